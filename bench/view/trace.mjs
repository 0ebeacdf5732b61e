// trace.mjs - where a viewer page's CPU goes, from Chromium's own trace
// (node bench/view/trace.mjs PAGE.html; N=5 opens by default).  Figures
// only, for docs/viewer.md and for finding what to cut:
//
//   open   the CPU time (the trace's thread time, tdur, which a loaded
//          machine barely changes) of Chromium's threads from navigating
//          to the page until its first frame: the renderer's main thread,
//          all threads, and the same for an empty page; medians of N opens,
//          each in a fresh tab that first showed an empty file:// page (so
//          a renderer for files is already running, as when a user opens a
//          second page);
//   main   what the renderer's main thread did in the median open (trace
//          events by name, nested ones counted in each);
//   drag   a Shift+drag of 60 steps driven by the pointer's own events:
//          CPU a step per thread and on the main thread by kind of work.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SRC = process.env.SRC || new URL("../..", import.meta.url).pathname;
const { chromium } = await import(join(SRC, "analysis/view/web/node_modules/playwright-core/index.mjs"));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"] });
const N = +(process.env.N || 5);
const CATS = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink", "toplevel", "cc", "viz"];
const dir = mkdtempSync(join(tmpdir(), "eqprof-trace-"));
const empty = join(dir, "empty.html");
writeFileSync(empty, '<!doctype html><body data-ready="1">empty</body>');

// thread CPU of top-level events per thread, and by name on the main thread
function digest(buf) {
  const tr = JSON.parse(buf.toString());
  const ev = tr.traceEvents || tr;
  const names = new Map();
  for (const e of ev) if (e.ph === "M" && e.name === "thread_name") names.set(e.pid + ":" + e.tid, e.args.name);
  const xs = ev.filter((e) => e.ph === "X" && e.tdur != null).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const end = new Map(), threads = new Map(), main = new Map();
  for (const e of xs) {
    const key = e.pid + ":" + e.tid, th = names.get(key) || "?";
    if (th === "CrRendererMain") main.set(e.name, (main.get(e.name) || 0) + e.tdur / 1000);
    if ((end.get(key) || 0) > e.ts) continue;   // inside a top-level event
    end.set(key, e.ts + e.dur);
    threads.set(th, (threads.get(th) || 0) + e.tdur / 1000);
  }
  let all = 0;
  for (const v of threads.values()) all += v;
  return { main: threads.get("CrRendererMain") || 0, all, threads, byName: main };
}

async function open(file) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto("file://" + empty);
  await browser.startTracing(page, { categories: CATS });
  await page.goto("file://" + file, { timeout: 600000 });
  await page.waitForSelector("body[data-ready='1']", { timeout: 600000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  const d = digest(await browser.stopTracing());
  return { page, d };
}

const median = (xs, f) => [...xs].sort((a, b) => f(a) - f(b))[xs.length >> 1];
const ms = (v) => v.toFixed(0).padStart(5) + " ms";
const runs = { page: [], empty: [] };
let last;
for (let i = 0; i < N; i++) {
  for (const [k, f] of [["empty", empty], ["page", process.argv[2]]]) {
    const o = await open(f);
    runs[k].push(o.d);
    if (k === "page" && i === N - 1) last = o.page;
    else await o.page.close();
  }
}
const mp = median(runs.page, (d) => d.main), me = median(runs.empty, (d) => d.main);
console.log(`open (median of ${N}): renderer main thread ${ms(mp.main)}, all threads ${ms(median(runs.page, (d) => d.all).all)};` +
  ` an empty page ${ms(me.main)}, ${ms(median(runs.empty, (d) => d.all).all)}`);
console.log("  threads: " + [...mp.threads].filter(([, v]) => v >= 5).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", "));
console.log("  main thread, by event (nested ones in each):");
[...mp.byName].sort((a, b) => b[1] - a[1]).slice(0, 14).forEach(([k, v]) => console.log("   " + ms(v) + "  " + k));

// a drag
const page = last;
await page.waitForTimeout(300);
const STEPS = 60;
await browser.startTracing(page, { categories: CATS });
await page.evaluate(async (n) => {
  const v = window.__eqprof.current, tr = v.trace, end = v.run.end();
  const painted = () => new Promise((r) => requestAnimationFrame(() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = r;
    ch.port2.postMessage(0);
  }));
  const over = tr.u.over, rect = over.getBoundingClientRect();
  const xOf = (t) => rect.left + tr.u.valToPos(t, "x");
  const mouse = (type, t, target = window) => target.dispatchEvent(new MouseEvent(type,
    { clientX: xOf(t), clientY: rect.top + rect.height / 2, shiftKey: true, button: 0, bubbles: true }));
  const a = end * 0.3;
  mouse("mousedown", a, over);
  for (let i = 0; i < n; i++) {
    mouse("mousemove", a + end * (0.02 + 0.1 * i / n));
    await painted();
  }
  mouse("mouseup", a + end * 0.12);
  await painted();
}, STEPS);
const d = digest(await browser.stopTracing());
const step = (v) => (v / STEPS).toFixed(1).padStart(5) + " ms";
console.log(`drag (${STEPS} steps): CPU a step ${step(d.all)}: ` +
  [...d.threads].filter(([, v]) => v / STEPS >= 0.3).map(([k, v]) => `${k} ${(v / STEPS).toFixed(1)}`).join(", "));
console.log("  main thread a step, by event (nested ones in each):");
[...d.byName].sort((a, b) => b[1] - a[1]).slice(0, 16).forEach(([k, v]) => console.log("   " + step(v) + "  " + k));
await browser.close();
rmSync(dir, { recursive: true, force: true });
