// measure.mjs - a viewer page in headless Chromium: how long it takes to
// open, and what each interaction costs until its frame is drawn
// (node measure.mjs PAGE.html; prints one JSON line).  Figures only.
//
// On a machine shared with other work the wall-clock figures grow with the
// load, so every figure comes twice: the time the page itself measures
// (performance.now() from the input event to after the frame it causes has
// been painted: the rendering step of that frame has run), medians over
// many steps, and the CPU time all of Chromium's processes spent (from
// /proc, divided by the steps), which the load barely changes.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadavg, tmpdir } from "node:os";

const SRC = process.env.SRC || new URL("../..", import.meta.url).pathname;
const { chromium } = await import(join(SRC, "analysis/view/web/node_modules/playwright-core/index.mjs"));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"] });
// Chromium runs in processes under this one (playwright spawns it)
const root = process.pid;
const HZ = 100;  // USER_HZ: /proc's clock ticks

// CPU seconds of every process under this one: the browser's
function cpu() {
  const kids = new Map();
  const stat = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    let s;
    try { s = readFileSync(`/proc/${d}/stat`, "utf8"); } catch { continue; }
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    const ppid = +f[1];
    stat.set(+d, (+f[11] + +f[12]) / HZ);
    if (!kids.has(ppid)) kids.set(ppid, []);
    kids.get(ppid).push(+d);
  }
  let sum = 0;
  const walk = (p) => { if (p !== root) sum += stat.get(p) || 0; for (const k of kids.get(p) || []) walk(k); };
  walk(root);
  return sum;
}

// Opening: the median of 3 opens, each in a fresh page, and of 3 opens of an
// empty page the same way: what Chromium spends on any page (a renderer
// for the file, its first frame) apart from ours.
const empty = join(mkdtempSync(join(tmpdir(), "eqprof-bench-")), "empty.html");
writeFileSync(empty, '<!doctype html><body data-ready="1">empty</body>');
const errors = [];
async function open(file) {
  const p = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  p.on("pageerror", (e) => errors.push(e.message));
  const c0 = cpu(), t0 = Date.now();
  await p.goto("file://" + file, { timeout: 600000 });
  await p.waitForSelector("body[data-ready='1']", { timeout: 600000 });
  await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  return { p, wall_ms: Date.now() - t0, cpu_ms: 1000 * (cpu() - c0) };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const opens = [], empties = [];
let page;
for (let i = 0; i < 3; i++) {
  const e = await open(empty);
  empties.push(e.cpu_ms);
  await e.p.close();
  const o = await open(process.argv[2]);
  opens.push(o);
  if (i < 2) await o.p.close();
  else page = o.p;
}
rmSync(dirname(empty), { recursive: true });
const load = { wall_ms: median(opens.map((o) => o.wall_ms)), cpu_ms: median(opens.map((o) => o.cpu_ms)),
  empty_cpu_ms: median(empties) };
await page.waitForTimeout(300);

// One batch of steps, timed in the page; its CPU from /proc.
async function batch(name, n) {
  const c = cpu();
  const times = await page.evaluate(async ([name, n]) => {
    const v = window.__eqprof.current, tr = v.trace, run = v.run, end = run.end();
    // after the frame that the step caused has been rendered
    const painted = () => new Promise((r) => requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = r;
      ch.port2.postMessage(0);
    }));
    const over = tr.u.over, rect = over.getBoundingClientRect();
    const xOf = (t) => rect.left + tr.u.valToPos(t, "x");
    const mouse = (type, t, target = window) => target.dispatchEvent(new MouseEvent(type,
      { clientX: xOf(t), clientY: rect.top + rect.height / 2, shiftKey: true, button: 0, bubbles: true }));
    const out = [];
    const step = async (f) => { const t = performance.now(); f(); await painted(); out.push(performance.now() - t); };
    tr.setView(0, end);
    await painted();
    if (name === "drag") {
      // a Shift+drag: the pointer's events, the selection's end moving over a tenth of the run
      const a = end * 0.3;
      mouse("mousedown", a, over);
      for (let i = 0; i < n; i++) await step(() => mouse("mousemove", a + end * (0.02 + 0.1 * i / n)));
      mouse("mouseup", a + end * 0.12);
      await painted();
    } else if (name === "wide") {
      for (let i = 0; i < n; i++)
        await step(() => tr.selectTimes(end * (0.1 + 0.01 * (i % 2)), end * 0.6, true));
    } else if (name === "zoom") {
      for (let i = 0; i < n; i++) await step(() => tr.zoomAt(end * 0.45, (i % 12) < 6 ? 0.6 : 1 / 0.6));
    } else if (name === "pan") {
      tr.setView(end * 0.2, end * 0.4);
      await painted();
      for (let i = 0; i < n; i++) await step(() => tr.setView(end * (0.2 + 0.002 * i), end * (0.4 + 0.002 * i)));
    } else if (name === "group") {
      const ng = run.groups.length;
      for (let i = 0; i < n; i++) await step(() => { v.gi = i % ng; v.updateProfile(); });
    }
    return out;
  }, [name, n]);
  const cpu_ms = 1000 * (cpu() - c) / n;
  times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  return { median: q(0.5), p90: q(0.9), max: times[times.length - 1], cpu_ms, n };
}

const res = {
  drag: await batch("drag", 60),
  wide: await batch("wide", 20),
  zoom: await batch("zoom", 24),
  pan: await batch("pan", 40),
  group: await batch("group", 12),
};
const perf = await page.evaluate(() => ({ ...window.__eqprof.perf, nb: window.__eqprof.current.run.nb }));
console.log(JSON.stringify({ load, ...res, perf, nb: perf.nb, loadavg: loadavg()[0], errors }));
await browser.close();
