// measure.mjs - a viewer page in headless Chromium: how long it takes to
// open, and how long each interaction takes until the next frame is drawn
// (node measure.mjs PAGE.html; prints one JSON line).  Figures only.
import { join } from "node:path";

const SRC = process.env.SRC || new URL("../..", import.meta.url).pathname;
const { chromium } = await import(join(SRC, "analysis/view/web/node_modules/playwright-core/index.mjs"));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"] });
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
const errors = [];
page.on("pageerror", (e) => errors.push(e.message));
const t0 = Date.now();
await page.goto("file://" + process.argv[2], { timeout: 600000 });
await page.waitForSelector("body[data-ready='1']", { timeout: 600000 });
await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const load = Date.now() - t0;
const res = await page.evaluate(async () => {
  const v = window.__eqprof.current, tr = v.trace, run = v.run;
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const time = async (f) => { const t = performance.now(); f(); await frame(); return performance.now() - t; };
  const stats = (xs) => { xs.sort((a, b) => a - b); return { median: xs[xs.length >> 1], max: xs[xs.length - 1] }; };
  const end = run.end(), drag = [], zoom = [], group = [], hl = [];
  // a drag: the selection's end moving over a tenth of the run
  for (let i = 0; i < 30; i++) {
    const a = end * 0.3, b = a + end * (0.02 + 0.1 * i / 30);
    drag.push(await time(() => { tr.selectTimes(a, b, false); v.update(); }));
  }
  // a wide selection (half the run) too
  const wide = await time(() => { tr.selectTimes(end * 0.1, end * 0.6, true); v.update(); });
  for (let i = 0; i < 12; i++) zoom.push(await time(() => tr.zoomAt(end * 0.45, i < 6 ? 0.6 : 1 / 0.6)));
  for (const gi of [0, 1, 2, 0, 1, 2]) group.push(await time(() => { v.gi = gi; v.updateProfile(); }));
  for (let i = 0; i < 3; i++) hl.push(await time(() => tr.setHighlight(run.rowSeries(2, i))));
  return { perf: window.__eqprof.perf, drag: stats(drag), wide, zoom: stats(zoom), group: stats(group),
    highlight: stats(hl), nb: run.nb };
});
console.log(JSON.stringify({ load_ms: load, ...res, errors }));
await browser.close();
