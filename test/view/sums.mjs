#!/usr/bin/env node
// sums.mjs - the page's numbers for a range are the command line's.
//
// For simulated recordings (energy-driven; time-driven with the board's
// stream; a scenario with call chains), `eqprof view` writes a page; the
// page's own code (analysis/view/web/src/model.js, run here in Node)
// adds up its buckets over many ranges (the whole run, one bucket, ranges
// that start at the first sample or end past the last, ranges inside one
// interval), and every number it would show must equal, as printed, what
// `eqprof power --from --to` and `eqprof report --from --to --by G` print
// for the same edges.  The expected values come from the command line,
// which walks the samples themselves (test/analysis/range.py checks those
// against an independent reading of the file).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SRC = process.env.SRC || new URL("../..", import.meta.url).pathname;
const B = process.env.B || join(SRC, "build");
const EQPROF = process.env.EQPROF || join(B, "eqprof");
globalThis.atob = (s) => Buffer.from(s, "base64").toString("latin1");
const web = join(SRC, "analysis/view/web/src");
const { Run } = await import(join(web, "model.js"));
const F = await import(join(web, "fmt.js"));
const P = await import(join(web, "pair.js"));

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
  return { rc: p.status, out: p.stdout, err: p.stderr };
}

export function viewerPath() {
  for (const p of [process.env.EQPROF_VIEWER, join(B, "viewer/viewer.html"), join(B, "../viewer/viewer.html"),
    join(SRC, "build/viewer/viewer.html")])
    if (p) try { readFileSync(p); return p; } catch { /* next */ }
  return null;
}

function pageData(html) {
  const m = html.match(/<script id="eqprof-data" type="application\/json">([\s\S]*?)<\/script>/);
  return JSON.parse(m[1]);
}

// power's table: "label   value" lines
function powerTable(out) {
  const m = {};
  for (const l of out.split("\n")) {
    const x = /^(duration|samples|intervals|energy|avg power|peak power|min power|median power|battery life)\s{2,}(.*)$/.exec(l);
    if (x) m[x[1]] = x[2].replace(/\s+/g, " ").trim();
  }
  return m;
}

// report's table rows: share, samples, amount, CI, module, name
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

function pageRange(r, A, B, battery) {
  const p = r.power(A, B);
  const m = { samples: `${p.samples} (${p.idleSamples} idle)` };
  if (r.hasPower) {
    Object.assign(m, {
      duration: F.quantity(p.duration, "s"),
      intervals: String(p.intervals) + (p.idleIntervals != null ? ` (${p.idleIntervals} idle)` : ""),
      energy: `${F.quantity(p.energy, "J")} [${F.quantity(p.energyLo, "J")}, ${F.quantity(p.energyHi, "J")}]`,
      "avg power": F.quantity(p.power, "W"),
      "peak power": F.quantity(p.peak, "W"),
      "min power": F.quantity(p.min, "W"),
      "median power": F.quantity(p.median, "W", 3),
      "battery life": `${F.life(F.parseCapacity(battery) / p.power)} at ${battery}`,
    });
  }
  return m;
}

function pageRows(r, A, B, gi) {
  const prof = r.profile(A, B, gi), unit = r.mode === "energy" ? "J" : "s";
  return prof.rows.map((x) => [F.pct(x.share), String(x.samples),
    Number.isFinite(x.amount) ? F.quantity(x.amount, unit) : "n/a",
    `[${F.pct(x.lo)}, ${F.pct(x.hi)}]`, ...(r.groups[gi].by === "exe" ? [] : [x.module]), x.name].join(" | "));
}

function ranges(r, seed) {
  let s = seed;
  const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const nb = r.nb, out = [[0, nb], [0, 1], [nb - 1, nb], [0, Math.ceil(nb / 3)], [Math.floor(nb / 2), nb]];
  // under the sanitizers the builder is what is checked: fewer ranges
  for (let i = 0; i < (process.env.SAN ? 2 : 7); i++) {
    const a = Math.floor(rnd() * (nb - 1)), w = 1 + Math.floor(rnd() * rnd() * (nb - a));
    out.push([a, Math.min(nb, a + w)]);
  }
  // a range inside one long interval (no interval ends in it), if any
  if (r.hasPower) for (let k = 1; k < nb - 1; k++) if (r.nint[k] === 0 && r.se[k] > 0) { out.push([k, k + 1]); break; }
  return out;
}

// A range of two recordings on one page: the page's compare and diff
// documents (pair.js), each cell as the page shows it, against the tables
// `eqprof compare`/`diff --from --to --interval sampling` print for the
// same edges: row for row, to the printed digit, marks included.
const Q = String.raw`[+-]?\d[\d.]*(?:e[+-]?\d+)? [a-zµ]{0,2}[JWs]`;
const CMP_ROW = new RegExp(String.raw`^\s*(\d+\.\d\d%)\s+(\d+\.\d\d%)\s+([+-]\d+\.\d\d%)\s+(\*?)\s+(${Q}|n/a)\s+(${Q}|n/a)\s+(.*)$`);
const DIFF_ROW = new RegExp(String.raw`^\s*(${Q})(\*?)\s+\[(${Q}|-), (${Q}|-)\]\s+(new|[+-]\d+\.\d%)\s+(\d+\.\d\d%)\s+(\d+\.\d\d%)\s+(${Q})\s+(${Q})\s+(.*)$`);
function tableRows(out, re, by) {
  const rows = [];
  for (const l of out.split("\n")) {
    const x = re.exec(l);
    if (!x) continue;
    const rest = x.pop().trim();
    const names = by === "exe" ? [rest] : /^(\S+)\s+(.*)$/.exec(rest).slice(1).reverse();
    rows.push([...x.slice(1), ...names].join(" | "));
  }
  return rows;
}
const pct2 = (v) => F.fixed(100 * v, 2) + "%";
const sgnPct = (v) => (v < 0 || Object.is(v, -0) ? "-" : "+") + F.fixed(Math.abs(100 * v), 2) + "%";
function signedQ(v, u) {
  if (v == null || !Number.isFinite(v)) return "-";
  return (v < 0 ? "-" : v > 0 ? "+" : "") + F.quantity(Math.abs(v), u);
}
// the page's cells (pairviews.js), in the command's column order
function cmpLine(x, by) {
  return [pct2(x.time_share), pct2(x.energy_share), sgnPct(x.difference), x.significant ? "*" : "",
    x.power_w == null ? "n/a" : F.quantity(x.power_w, "W"), x.energy_j == null ? "n/a" : F.quantity(x.energy_j, "J"),
    x.name, ...(by === "exe" ? [] : [x.module])].join(" | ");
}
function diffLine(x, u, by) {
  const U = u === "j" ? "J" : "s";
  const rel = x.relative == null ? "new" : (x.relative < 0 || Object.is(x.relative, -0) ? "-" : "+") +
    F.fixed(Math.abs(100 * x.relative), 1) + "%";
  return [signedQ(x["change_" + u], U), x.significant ? "*" : "", signedQ(x.change_low, U), signedQ(x.change_high, U),
    rel, pct2(x.share_a), pct2(x.share_b), F.quantity(x["a_" + u], U), F.quantity(x["b_" + u], U),
    x.name, ...(by === "exe" ? [] : [x.module])].join(" | ");
}

function pairs(work, viewer) {
  let r = eqprof("sim", "Music", "-o", join(work, "m2"), "-q", "--seed", "2");
  ok(r.rc === 0, "eqprof sim Music --seed 2", r.err);
  const sets = [["compare", join(work, "m/time.eqp"), join(work, "m/energy.eqp")],
    ["diff", join(work, "m/energy.eqp"), join(work, "m2/energy.eqp")],
    ["diff", join(work, "m/time.eqp"), join(work, "m2/time.eqp")],
    ["compare", join(work, "g/time.eqp"), join(work, "g/energy.eqp")]];
  let seed = 5;
  for (const [kind, fa, fb] of sets) {
    const page = join(work, "pair.html");
    r = spawnSync(EQPROF, ["view", fa, fb, "-o", page, "-q"], { encoding: "utf8",
      env: { ...process.env, EQPROF_VIEWER: viewer } });
    if (!ok(r.status === 0, `eqprof view ${fa} ${fb}`, r.stderr)) continue;
    const doc = pageData(readFileSync(page, "utf8"));
    const runs = doc.runs.map((j, i) => new Run(j, i));
    const a = runs[doc[kind].a], b = runs[doc[kind].b];
    const name = `${kind} ${fa.replace(work + "/", "")} ${fb.replace(work + "/", "")}`;
    ok(P.sameEdges(a, b), `${name}: the two recordings share their bucket edges on the page`,
      `w ${a.w} ${b.w}, clock ${a.clock} ${b.clock}`);
    for (const [A, Bk] of ranges(a, seed++).slice(0, process.env.SAN ? 4 : 8)) {
      const from = A === 0 ? "0" : a.timeText(A), to = a.timeText(Bk);
      for (const by of ["exe", "proc"]) {
        const c = eqprof(kind, a.j.path, b.j.path, "--from", from, "--to", to, "--by", by,
          "--interval", "sampling", "-q");
        if (!ok(c.rc === 0, `${name} --from ${from} --to ${to} --by ${by} runs`, c.err)) continue;
        let wl, gl;
        if (kind === "compare") {
          const got = P.rangeCompare(a, b, A, Bk, by);
          wl = tableRows(c.out, CMP_ROW, by);
          gl = got.rows.map((x) => cmpLine(x, by));
          wl.push(/\((\d+ samples)\) against .*\((\d+ samples)\)/.exec(c.out)?.slice(1).join(", "));
          gl.push(`${got.time_total_samples} samples, ${got.energy_total_samples} samples`);
        } else {
          const got = P.rangeDiff(a, b, A, Bk, by), u = a.mode === "energy" ? "j" : "s";
          wl = tableRows(c.out, DIFF_ROW, by);
          gl = got.rows.map((x) => diffLine(x, u, by));
          wl.push(/\((\d+) flagged\)/.exec(c.out)?.[1]);
          gl.push(String(got.flagged));
        }
        const diff = [];
        for (let i = 0; i < Math.max(wl.length, gl.length); i++)
          if (wl[i] !== gl[i]) diff.push(`row ${i}: page '${gl[i]}'\n        cli  '${wl[i]}'`);
        ok(!diff.length && wl.length > 1, `${name} --from ${from} --to ${to} --by ${by} --interval sampling: every row`,
          diff.slice(0, 8).join("\n"));
      }
    }
  }
}

const work = mkdtempSync(join(tmpdir(), "eqprof-viewsums."));
try {
  const viewer = viewerPath();
  if (!ok(viewer, "the viewer page is built (make viewer)")) throw new Error("no viewer");
  // recordings: Music (energy, and time with the board's stream), Game with call chains
  let r = eqprof("sim", "Music", "-o", join(work, "m"), "-q");
  ok(r.rc === 0, "eqprof sim Music", r.err);
  const game = eqprof("sim", "--print", "Game").out
    .replace("phase Game 54s", "phase Game 12s")
    .replace("  proc mix_sound ", "  proc main_loop          0x08000 0x0200 700mW\n  proc mix_sound ") +
    "\ncalls game_logic memcpy 1\ncalls render_sprites memcpy 3\ncalls main_loop game_logic\ncalls main_loop render_sprites\n";
  writeFileSync(join(work, "g.scn"), game);
  r = eqprof("sim", join(work, "g.scn"), "-o", join(work, "g"), "-q", "--seed", "3");
  ok(r.rc === 0, "eqprof sim of Game with call chains", r.err);
  // Music's energy recording also in buckets shorter than its intervals,
  // where some lie inside one interval
  const recs = [[join(work, "m/energy.eqp"), "4096"], [join(work, "m/energy.eqp"), "60000"],
    [join(work, "m/time.eqp"), "4096"], [join(work, "g/energy.eqp"), "4096"], [join(work, "g/time.eqp"), "4096"],
    // a time-driven recording with an energy source's readings (record -t --energy)
    [join(SRC, "test/format/corpus/time-energy-readings.eqp"), "64"]];
  const battery = "3000mAh@3.85V";
  let seed = 11;
  for (const [rec, buckets] of recs) {
    const page = join(work, "p.html");
    r = spawnSync(EQPROF, ["view", rec, "-o", page, "-q", "--buckets", buckets], { encoding: "utf8",
      env: { ...process.env, EQPROF_VIEWER: viewer } });
    if (!ok(r.status === 0, `eqprof view ${rec}`, r.stderr)) continue;
    const html = readFileSync(page, "utf8");
    ok(!/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}\//i.test(html.replace(/"[^"]{200,}"/g, "")),
      `${rec}: the page names no address to fetch`);
    const run = new Run(pageData(html).runs[0], 0);
    if (rec.includes("/g/")) ok(run.chains && run.stackTable.some((s) => s.length > 2),
      `${rec}: the page holds call stacks`);
    for (const [A, Bk] of ranges(run, seed++)) {
      const from = run.timeText(A), to = run.timeText(Bk);
      const what = `${rec.replace(work + "/", "").replace(SRC + "/", "")} --from ${from} --to ${to}`;
      if (run.hasPower && run.power(A, Bk).outside) {
        const c = eqprof("power", rec, "--from", from, "--to", to);
        ok(c.rc !== 0 && /outside the recording/.test(c.err), `power ${what}: no power there, page and command line`, c.out + c.err);
      } else if (run.hasPower) {
        const c = eqprof("power", rec, "--from", from, "--to", to, "--battery", battery);
        const want = powerTable(c.out), got = pageRange(run, A, Bk, battery);
        const bad = Object.keys(want).filter((k) => want[k] !== got[k]);
        ok(c.rc === 0 && Object.keys(want).length >= 9 && !bad.length, `power ${what}: every number`,
          c.err + bad.map((k) => `${k}: page '${got[k]}' cli '${want[k]}'`).join("\n"));
      }
      for (let gi = 0; gi < run.groups.length; gi++) {
        const by = run.groups[gi].by;
        const c = eqprof("report", rec, "--from", from, "--to", to, "--by", by, "--no-children", "-q");
        const want = reportRows(c.out, by), got = pageRows(run, A, Bk, gi);
        const diff = [];
        for (let i = 0; i < Math.max(want.length, got.length); i++)
          if (want[i] !== got[i]) diff.push(`row ${i}: page '${got[i]}'\n        cli  '${want[i]}'`);
        ok(c.rc === 0 && !diff.length && (want.length > 0 || !run.power(A, Bk).samples),
          `report ${what} --by ${by}: every row`,
          c.err + diff.slice(0, 8).join("\n"));
      }
    }
  }
  pairs(work, viewer);
} catch (e) {
  ok(false, "sums.mjs ran to the end", e.stack);
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
