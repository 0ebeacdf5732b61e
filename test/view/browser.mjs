#!/usr/bin/env node
// browser.mjs - the viewer page in Debian's Chromium, driven headless by
// playwright-core, as a person would use it.
//
// Opens the page of the demo's Music recording, Shift+drags over a busy
// stretch and checks every number the page shows -- the range's energy and
// its bounds, average, peak, minimum and median power, duration, samples,
// intervals, battery life, the histogram's bins, the profile's rows -- and
// again in the middle of the drag, after typing a capacity, after moving
// the selection with Shift+arrow and after switching the grouping, against
// what `eqprof power --from --to`, `power --hist --bucket 16/decade` and
// `eqprof report --from --to` print for the edges the page shows.  Zooms
// with the wheel, pans by dragging, clears with Esc; clicks a row and an
// icicle frame of a recording with call chains; opens time against energy
// and two runs and checks their rows and marks against `eqprof compare`
// and `eqprof diff`.  The page must fetch nothing and log no error.
// Screenshots of each view go to $B/viewer-shots (SHOTS=DIR elsewhere:
// `make viewer-shots` puts them in docs/img).
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const SRC = process.env.SRC || new URL("../..", import.meta.url).pathname;
const B = process.env.B || join(SRC, "build");
const EQPROF = process.env.EQPROF || join(B, "eqprof");
const SHOTS = process.env.SHOTS || join(B, "viewer-shots");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

let n = 0, failed = 0;
function ok(cond, what, detail) {
  n++;
  console.log(`${cond ? "ok" : "not ok"} ${n} - ${what}`);
  if (!cond) {
    failed++;
    if (detail) for (const l of String(detail).split("\n").slice(0, 30)) console.log("#   " + l);
  }
  return cond;
}

function eqprof(...args) {
  const p = spawnSync(EQPROF, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  return { rc: p.status, out: p.stdout || "", err: p.stderr || "" };
}

function viewerPath() {
  for (const p of [process.env.EQPROF_VIEWER, join(B, "viewer/viewer.html"), join(B, "../viewer/viewer.html"),
    join(SRC, "build/viewer/viewer.html")])
    if (p) try { readFileSync(p); return p; } catch { /* next */ }
  return null;
}

const norm = (s) => s.replace(/\s+/g, " ").trim();

function powerTable(out) {
  const m = {};
  for (const l of out.split("\n")) {
    const x = /^(duration|samples|intervals|energy|avg power|peak power|min power|median power|battery life)\s{2,}(.*)$/.exec(l);
    if (x) m[x[1]] = norm(x[2]);
  }
  return m;
}

// report's table rows: share, samples, amount, CI, [module,] name (rows by
// exe have no module column)
function reportRows(out, by) {
  const rows = [];
  for (const l of out.split("\n")) {
    const x = /^\s*(\d+\.\d\d%)\s+(\d+)\s+(\S+ \S*J|\S+ \S*s|n\/a)\s+(\[[^\]]*\])\s+(.*)$/.exec(l);
    if (!x) continue;
    const rest = by === "exe" ? [x[5].trim()] : /^(\S+)\s+(.*)$/.exec(x[5]).slice(1);
    rows.push([x[1], x[2], x[3], x[4], ...rest].join(" | "));
  }
  return rows;
}

function histCsv(path) {
  return readFileSync(path, "utf8").trim().split("\n").slice(1).map((l) => l.split(","));
}

const work = mkdtempSync(join(tmpdir(), "eqprof-browser."));
let browser;
try {
  const viewer = viewerPath();
  if (!ok(viewer, "the viewer page is built (make viewer)")) throw new Error("no viewer page");
  const env = { ...process.env, EQPROF_VIEWER: viewer };
  // names as a user in the folder would give them (the page shows them)
  const view = (out, ...files) => spawnSync(EQPROF, ["view", ...files.map((f) => relative(work, f)), "-o", out, "-q"],
    { encoding: "utf8", env, cwd: work });
  const music = join(work, "music"), music2 = join(work, "music2");
  ok(eqprof("sim", "Music", "-o", music, "-q").rc === 0, "eqprof sim Music -o music");
  ok(eqprof("sim", "Music", "-o", music2, "-q", "--seed", "2").rc === 0, "eqprof sim Music --seed 2 (another run)");
  const game = eqprof("sim", "--print", "Game").out
    .replace("phase Game 54s", "phase Game 15s")
    .replace("  proc mix_sound ", "  proc main_loop          0x08000 0x0200 700mW\n  proc mix_sound ") +
    "\ncalls game_logic memcpy 1\ncalls render_sprites memcpy 3\ncalls main_loop game_logic\ncalls main_loop render_sprites\n";
  writeFileSync(join(work, "game.scn"), game);
  ok(eqprof("sim", join(work, "game.scn"), "-o", join(work, "game"), "-q").rc === 0, "eqprof sim Game with call chains");
  const E = join(music, "energy.eqp");
  const pages = {
    music: join(work, "music.html"), game: join(work, "game.html"),
    compare: join(work, "compare.html"), diff: join(work, "diff.html"),
  };
  let r = view(pages.music, E);
  ok(r.status === 0, "eqprof view music/energy.eqp", r.stderr);
  r = view(pages.game, join(work, "game/energy.eqp"));
  ok(r.status === 0, "eqprof view of the recording with call chains", r.stderr);
  r = view(pages.compare, join(music, "time.eqp"), E);
  ok(r.status === 0, "eqprof view music/time.eqp music/energy.eqp", r.stderr);
  r = view(pages.diff, E, join(music2, "energy.eqp"));
  ok(r.status === 0, "eqprof view music/energy.eqp music2/energy.eqp", r.stderr);
  mkdirSync(SHOTS, { recursive: true });

  const { chromium } = await import(join(SRC, "analysis/view/web/node_modules/playwright-core/index.mjs"));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  const problems = [];
  const open = async (file, width = 1400, height = 1000) => {
    const p = await browser.newPage({ viewport: { width, height } });
    p.on("console", (m) => { if (m.type() === "error") problems.push(`${file}: console: ${m.text()}`); });
    p.on("pageerror", (e) => problems.push(`${file}: ${e.message}`));
    await p.route("**/*", (route) => {
      const u = route.request().url();
      if (u.startsWith("file:") || u.startsWith("data:")) return route.continue();
      problems.push(`${file}: fetched ${u}`);
      return route.abort();
    });
    await p.goto("file://" + file);
    await p.waitForSelector("body[data-ready='1']", { timeout: 60000 });
    return p;
  };
  const frame = (p) => p.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));

  // ---- Music: drag over a busy stretch ----
  const p = await open(pages.music);
  const geom = async (t) => p.evaluate((t) => {
    const u = window.__eqprof.current.trace.u, rect = u.over.getBoundingClientRect();
    return { x: rect.left + u.valToPos(t, "x"), y: rect.top + rect.height / 2, left: rect.left, w: rect.width };
  }, t);
  const shown = () => p.evaluate(() => {
    const el = document.querySelector(".pane:not([hidden]) [data-testid=range]");
    const v = {};
    for (const tr of el.querySelectorAll("tr[data-k]")) {
      const td = tr.querySelector("td.v"), x = tr.querySelector("td.x");
      v[tr.dataset.k] = { v: td.textContent, x: x ? x.textContent : "", input: tr.querySelector("input")?.value };
    }
    const head = el.querySelector("[data-testid=range-head]").firstChild.textContent;
    const rows = [...document.querySelectorAll(".pane:not([hidden]) [data-testid=profile] tbody tr")]
      .map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent).join(" | "));
    const bins = JSON.parse(document.querySelector(".pane:not([hidden]) .hist").dataset.bins || "[]");
    return { v, head, rows, bins };
  });
  const edges = (head) => {
    const m = /(?:selection|whole run): (\S+) s to (\S+) s/.exec(head);
    return m ? [m[1], m[2]] : null;
  };
  // every number shown against the command line, for the edges shown
  const checkRange = async (what, by = "proc") => {
    const s = await shown(), e = edges(s.head);
    if (!ok(e, `${what}: the page shows its range's edges`, s.head)) return s;
    const bat = s.v.battery.input;
    const c = eqprof("power", E, "--from", e[0], "--to", e[1], "--battery", bat);
    const want = powerTable(c.out);
    const got = {
      duration: s.v.duration.v, samples: s.v.samples.v, intervals: s.v.intervals.v,
      energy: norm(s.v.energy.v + " " + s.v.energy.x), "avg power": s.v.avg.v, "peak power": s.v.peak.v,
      "min power": s.v.min.v, "median power": s.v.median.v, "battery life": norm(s.v.battery.v + " at " + bat),
    };
    const bad = Object.keys(want).filter((k) => want[k] !== got[k]);
    ok(c.rc === 0 && Object.keys(want).length === 9 && !bad.length,
      `${what}: energy, bounds, avg/peak/min/median power, duration, samples, intervals, battery life = eqprof power --from ${e[0]} --to ${e[1]}`,
      c.err + bad.map((k) => `${k}: page '${got[k]}' cli '${want[k]}'`).join("\n"));
    const rep = eqprof("report", E, "--from", e[0], "--to", e[1], "--by", by);
    const wrows = reportRows(rep.out, by);
    const diff = wrows.map((w, i) => (w === s.rows[i] ? null : `page '${s.rows[i]}'\ncli  '${w}'`)).filter(Boolean);
    ok(rep.rc === 0 && wrows.length > 1 && wrows.length === s.rows.length && !diff.length,
      `${what}: the ${wrows.length} rows by ${by} (share, samples, joules, interval, module, name) = eqprof report`,
      diff.slice(0, 6).join("\n") + `\n${wrows.length} vs ${s.rows.length}`);
    const h = join(work, "h.csv");
    const hc = eqprof("power", E, "--from", e[0], "--to", e[1], "--hist", h, "--bucket", "16/decade", "--split-idle");
    const want_bins = hc.rc === 0 ? histCsv(h) : [];
    ok(JSON.stringify(want_bins) === JSON.stringify(s.bins),
      `${what}: the histogram's ${s.bins.length} bins = power --hist --bucket 16/decade --split-idle`,
      JSON.stringify(s.bins.slice(0, 3)) + "\n" + JSON.stringify(want_bins.slice(0, 3)));
    return s;
  };

  const whole = await shown();
  ok(/^whole run: 0 s to /.test(whole.head), "the page opens on the whole run", whole.head);
  await checkRange("whole run");

  // Shift+drag from 20 s to 32 s (Music decodes throughout: busy)
  const a = await geom(20), b = await geom(32);
  await p.keyboard.down("Shift");
  await p.mouse.move(a.x, a.y);
  await p.mouse.down();
  await p.mouse.move((a.x + b.x) / 2, a.y, { steps: 6 });
  await frame(p);
  await checkRange("in the middle of the drag");
  const mid = await shown();
  await p.mouse.move(b.x, b.y, { steps: 6 });
  await p.mouse.up();
  await p.keyboard.up("Shift");
  await frame(p);
  const sel = await checkRange("a dragged busy stretch (20 s to 32 s)");
  ok(sel.v.energy.v !== mid.v.energy.v && sel.v.energy.v !== whole.v.energy.v,
    "the numbers followed the drag", `${whole.v.energy.v} ${mid.v.energy.v} ${sel.v.energy.v}`);
  const e = edges(sel.head);
  ok(e && Math.abs(+e[0] - 20) < 0.05 && Math.abs(+e[1] - 32) < 0.05, "the selection is where the mouse went", sel.head);
  await p.screenshot({ path: join(SHOTS, "viewer-range.png"), fullPage: true });

  // a capacity typed in
  await p.fill(".pane:not([hidden]) [data-testid=battery]", "3000mAh@3.85V");
  await frame(p);
  await checkRange("after typing 3000mAh@3.85V");

  // Shift+Right: the selection moves by its own width
  await p.focus(".pane:not([hidden]) .trace-box");
  await p.keyboard.press("Shift+ArrowRight");
  await frame(p);
  const moved = await checkRange("after Shift+Right");
  ok(edges(moved.head)[0] === e[1], "Shift+Right moved the selection by its width", moved.head);

  // zoom with the wheel, pan by dragging: the view changes, the selection stays
  const scale = () => p.evaluate(() => { const s = window.__eqprof.current.trace.view; return [s.t0, s.t1]; });
  const s0 = await scale();
  const c = await geom(40);
  await p.mouse.move(c.x, c.y);
  for (let i = 0; i < 6; i++) { await p.mouse.wheel(0, -120); await frame(p); }
  const s1 = await scale();
  ok(s1[1] - s1[0] < 0.5 * (s0[1] - s0[0]) && s1[0] < 40 && s1[1] > 40, "the wheel zoomed in around the pointer",
    `${s0} -> ${s1}`);
  await p.mouse.down();
  await p.mouse.move(c.x - 200, c.y, { steps: 5 });
  await p.mouse.up();
  const s2 = await scale();
  ok(s2[0] > s1[0] && Math.abs((s2[1] - s2[0]) - (s1[1] - s1[0])) < 1e-9, "a plain drag panned (same width, later)", `${s1} -> ${s2}`);
  ok(norm((await shown()).head) === norm(moved.head), "zooming and panning kept the selection");
  await p.screenshot({ path: join(SHOTS, "viewer-zoom.png"), fullPage: false });

  // the grouping
  for (const [by, label] of [["exe", "executable"], ["module", "module"], ["proc", "procedure"]]) {
    await p.click(`.pane:not([hidden]) [data-testid=grouping] button[data-value=${by}]`);
    await frame(p);
    await checkRange(`by ${label}`, by);
  }
  // a row clicked: where in time it ran is drawn on the trace
  await p.click(".pane:not([hidden]) [data-testid=profile] tbody tr:nth-child(2)");
  await frame(p);
  const hl = await p.evaluate(() => {
    const t = window.__eqprof.current.trace;
    return t.highlight ? { total: t.highlight.reduce((x, y) => x + y, 0) } : null;
  });
  const row2 = (await shown()).rows[1];
  const total = eqprof("report", E, "--by", "proc").out;
  const name2 = row2.split(" | ")[5];
  const m2 = new RegExp(`^\\s*\\S+%\\s+(\\d+)\\s.*\\s${name2.replace(/[[\]]/g, "\\$&")}$`, "m").exec(total);
  ok(hl && m2 && hl.total === +m2[1], `clicking ${name2} highlights its ${m2 && m2[1]} samples over the run`, JSON.stringify(hl));

  // Esc clears: back to the whole run
  await p.focus(".pane:not([hidden]) .trace-box");
  await p.keyboard.press("Escape");
  await frame(p);
  const cleared = await shown();
  ok(/^whole run:/.test(cleared.head), "Esc cleared the selection", cleared.head);
  await p.close();

  // ---- call chains: the icicle, a frame clicked ----
  const g = await open(pages.game);
  const gi = await g.evaluate(() => {
    const v = window.__eqprof.current, root = v.icicle.root;
    const find = (n) => (n.name === "memcpy" && n.key.length > 2 ? n : [...n.children.values()].map(find).find(Boolean));
    const m = find(root);
    const node = m ? v.icicle.choose(m.key) : null;
    return { depth: v.icicle.depthOf(root), chosen: node && node.key.length, hl: !!v.trace.highlight,
      hlsum: v.trace.highlight ? v.trace.highlight.reduce((x, y) => x + y, 0) : 0, value: node ? node.value : 0,
      boxes: v.icicle.boxes.length };
  });
  ok(gi.depth >= 4 && gi.boxes > 6, "the icicle draws the call stacks (root, executable, callers, callee)", JSON.stringify(gi));
  ok(gi.hl && gi.hlsum === gi.value, "clicking a frame highlights where in time its samples are", JSON.stringify(gi));
  // and a real click on a drawn frame
  const box = await g.evaluate(() => {
    const v = window.__eqprof.current, r = v.icicle.cv.getBoundingClientRect();
    const b = v.icicle.boxes.find((q) => q.n.depth >= 3 && q.w > 40);
    return b ? { x: r.left + b.x + b.w / 2, y: r.top + b.y + 9, name: b.n.name } : null;
  });
  if (box) {
    await g.mouse.click(box.x, box.y);
    const chosen = await g.evaluate(() => window.__eqprof.current.icicle.chosen?.name);
    ok(chosen === box.name, `a click on the frame ${box.name} chooses it`);
  } else ok(false, "a frame wide enough to click");
  await g.screenshot({ path: join(SHOTS, "viewer-icicle.png"), fullPage: true });
  await g.close();

  // Shift+drag on the shown pane's trace from t0 to t1 s
  const dragOn = async (pg, t0, t1) => {
    const at = (t) => pg.evaluate((t) => {
      const u = window.__eqprof.current.trace.u, rect = u.over.getBoundingClientRect();
      return { x: rect.left + u.valToPos(t, "x"), y: rect.top + rect.height / 2 };
    }, t);
    const x0 = await at(t0), x1 = await at(t1);
    await pg.keyboard.down("Shift");
    await pg.mouse.move(x0.x, x0.y);
    await pg.mouse.down();
    await pg.mouse.move(x1.x, x1.y, { steps: 5 });
    await pg.mouse.up();
    await pg.keyboard.up("Shift");
    await frame(pg);
    await frame(pg);
    return pg.evaluate(() => ({ note: document.querySelector(".pane:not([hidden]) [data-testid=pair-range]").textContent,
      cmd: document.querySelector(".pane:not([hidden]) [data-testid=pair-commands]").textContent }));
  };
  const cmdArgs = (cmd) => cmd.trim().split(/\s+/).slice(1);
  // the page's commands name the recordings as eqprof view was given them
  const eqprofIn = (args) => {
    const q = spawnSync(EQPROF, args, { encoding: "utf8", maxBuffer: 1 << 28, cwd: work });
    return { rc: q.status, out: q.stdout || "", err: q.stderr || "" };
  };

  // ---- time against energy ----
  const cp = await open(pages.compare);
  await cp.evaluate(() => window.__eqprof.show(2));
  await frame(cp);
  const cmpRows = await cp.evaluate(() => [...document.querySelectorAll(".pane:not([hidden]) [data-testid=compare] tbody tr")]
    .map((tr) => [...tr.querySelectorAll("td")].filter((td) => !td.classList.contains("bars")).map((td) => td.textContent)));
  const cli = eqprof("compare", join(music, "time.eqp"), E).out.split("\n").filter((l) => /^\s*\d+\.\d\d%/.test(l))
    .map((l) => /^\s*(\S+)\s+(\S+)\s+(\S+)\s+(\*?)\s+(\S+ \S*W|n\/a)\s+(\S+ \S*J|n\/a)\s+(\S+)\s+(.*)$/.exec(l))
    .map((m) => (m ? m.slice(1) : null));
  const cdiff = cli.map((w, i) => (w && JSON.stringify(w) === JSON.stringify(cmpRows[i]) ? null :
    `page ${JSON.stringify(cmpRows[i])}\ncli  ${JSON.stringify(w)}`)).filter(Boolean);
  ok(cli.length > 5 && cli.length === cmpRows.length && !cdiff.length,
    `time against energy: ${cli.length} rows, shares, difference, marks, power, joules = eqprof compare`, cdiff.slice(0, 4).join("\n"));
  ok(cmpRows.some((r) => r[3] === "*"), "rows compare finds different are marked");
  await cp.screenshot({ path: join(SHOTS, "viewer-compare.png"), fullPage: true });
  // a range of both: the command the page shows prints the page's table
  const cmpRe = /^\s*(\S+)\s+(\S+)\s+(\S+)\s+(\*?)\s+(\S+ \S*W|n\/a)\s+(\S+ \S*J|n\/a)\s+(\S+)\s+(.*)$/;
  const cmpRange = await dragOn(cp, 20, 32);
  ok(/^selection: \S+ s to \S+ s .*sampling variances/.test(cmpRange.note) && / --from \S+ --to \S+ --by proc --interval sampling$/.test(cmpRange.cmd),
    "time against energy, a dragged range: its edges, sampling variances and the command", JSON.stringify(cmpRange));
  const cmpRangeRows = await cp.evaluate(() => [...document.querySelectorAll(".pane:not([hidden]) [data-testid=compare] tbody tr")]
    .map((tr) => [...tr.querySelectorAll("td")].filter((td) => !td.classList.contains("bars")).map((td) => td.textContent)));
  const rc = eqprofIn(cmdArgs(cmpRange.cmd));
  const rcli = rc.out.split("\n").filter((l) => /^\s*\d+\.\d\d%/.test(l)).map((l) => cmpRe.exec(l)).map((m) => (m ? m.slice(1) : null));
  const rcdiff = rcli.map((w, i) => (w && JSON.stringify(w) === JSON.stringify(cmpRangeRows[i]) ? null :
    `page ${JSON.stringify(cmpRangeRows[i])}\ncli  ${JSON.stringify(w)}`)).filter(Boolean);
  ok(rc.rc === 0 && rcli.length > 5 && rcli.length === cmpRangeRows.length && !rcdiff.length,
    `time against energy over ${cmpRange.cmd.replace(/.* --from/, "--from")}: ${rcli.length} rows = ${cmpRange.cmd.replace(/ \S*\/(time|energy)\.eqp/g, " $1.eqp")}`,
    rc.err + rcdiff.slice(0, 4).join("\n"));
  await cp.focus(".pane:not([hidden]) .trace-box");
  await cp.keyboard.press("Escape");
  await frame(cp);
  const backRows = await cp.evaluate(() => document.querySelectorAll(".pane:not([hidden]) [data-testid=compare] tbody tr").length);
  ok(backRows === cmpRows.length, "Esc: back to the whole recordings' comparison");
  // the time recording's own tab says time, not energy
  await cp.evaluate(() => window.__eqprof.show(0));
  await frame(cp);
  const tmeta = await cp.evaluate(() => ({ meta: document.querySelector(".pane:not([hidden]) .meta").textContent,
    col: document.querySelector(".pane:not([hidden]) [data-testid=profile] thead th:nth-child(3)").textContent,
    unit: document.querySelector(".pane:not([hidden]) [data-testid=profile] tbody td:nth-child(3)").textContent }));
  ok(/time-driven/.test(tmeta.meta) && tmeta.col === "time" && / m?s$/.test(tmeta.unit),
    "the time-driven recording's rows are time (s), not joules", JSON.stringify(tmeta));
  await cp.close();

  // ---- two runs ----
  const dp = await open(pages.diff);
  await dp.evaluate(() => window.__eqprof.show(2));
  await frame(dp);
  const drows = await dp.evaluate(() => [...document.querySelectorAll(".pane:not([hidden]) [data-testid=diff] tbody tr")]
    .map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
  const dcli = eqprof("diff", E, join(music2, "energy.eqp")).out.split("\n")
    .map((l) => /^\s*(\S+ \S*J)([* ])\s+(\[[^\]]+\])\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+ \S*J)\s+(\S+ \S*J)\s+(\S+)\s+(.*)$/.exec(l))
    .filter(Boolean).map((m) => [m[1], m[2].trim(), m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10]]);
  const ddiff = dcli.map((w, i) => (JSON.stringify(w) === JSON.stringify(drows[i]) ? null :
    `page ${JSON.stringify(drows[i])}\ncli  ${JSON.stringify(w)}`)).filter(Boolean);
  ok(dcli.length > 5 && dcli.length === drows.length && !ddiff.length,
    `two runs: ${dcli.length} rows, change, interval, marks = eqprof diff`, ddiff.slice(0, 4).join("\n"));
  const dic = await dp.evaluate(() => {
    const v = window.__eqprof.current, root = v.icicle.root;
    let n = 0, signed = 0;
    const walk = (x) => { n++; if (x.delta) signed++; for (const c of x.children.values()) walk(c); };
    walk(root);
    return { n, signed, traces: v.trace.runs.length };
  });
  ok(dic.n > 5 && dic.signed > 3 && dic.traces === 2, "two runs: both traces overlaid, an icicle of the difference",
    JSON.stringify(dic));
  await dp.screenshot({ path: join(SHOTS, "viewer-diff.png"), fullPage: true });
  // a range of both runs: diff --from --to --interval sampling
  const dRange = await dragOn(dp, 20, 32);
  ok(/^selection: .*sampling variances/.test(dRange.note) && / --interval sampling$/.test(dRange.cmd),
    "two runs, a dragged range: its edges, sampling variances and the command", JSON.stringify(dRange));
  const drRows = await dp.evaluate(() => [...document.querySelectorAll(".pane:not([hidden]) [data-testid=diff] tbody tr")]
    .map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
  const drc = eqprofIn(cmdArgs(dRange.cmd));
  const drcli = drc.out.split("\n")
    .map((l) => /^\s*(\S+ \S*J)([* ])\s+(\[[^\]]+\])\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+ \S*J)\s+(\S+ \S*J)\s+(\S+)\s+(.*)$/.exec(l))
    .filter(Boolean).map((m) => [m[1], m[2].trim(), m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10]]);
  const drdiff = drcli.map((w, i) => (JSON.stringify(w) === JSON.stringify(drRows[i]) ? null :
    `page ${JSON.stringify(drRows[i])}\ncli  ${JSON.stringify(w)}`)).filter(Boolean);
  ok(drc.rc === 0 && drcli.length > 5 && drcli.length === drRows.length && !drdiff.length,
    `two runs over ${dRange.cmd.replace(/.* --from/, "--from")}: ${drcli.length} rows = eqprof diff of that range`,
    drc.err + drdiff.slice(0, 4).join("\n"));
  const dhead = await dp.evaluate(() => document.querySelector(".pane:not([hidden]) .diff-head").textContent);
  const dflag = /\((\d+) flagged\)/.exec(drc.out);
  ok(dflag && new RegExp(`; ${dflag[1]} row\\(s\\) flagged .*sampling design effects`).test(dhead),
    "two runs over the range: as many rows flagged as diff flags", dhead + "\n" + (dflag && dflag[0]));
  await dp.screenshot({ path: join(SHOTS, "viewer-diff-range.png"), fullPage: true });
  await dp.close();

  ok(problems.length === 0, "no console error, no page error, nothing fetched", problems.join("\n"));
} catch (e) {
  ok(false, "browser.mjs ran to the end", e.stack);
} finally {
  if (browser) await browser.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
