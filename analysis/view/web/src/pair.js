// pair.js - two recordings over one range of their shared bucket edges:
// what `eqprof compare` and `eqprof diff` print for that range with
// `--from T --to T --interval sampling` (analysis/profile/compare.c,
// diff.c), as the documents their --format json writes.
//
// Only sampling variances can be re-added over a range: each run's rows
// carry their changes between consecutive samples per bucket (model.js).
// The run-to-run variances of the whole-run views come from batch means,
// batches of equal numbers of samples that a range cuts anywhere inside a
// bucket: the page cannot rebuild them, so a range is sampling only, and
// says so.
import { Z95, sharesDiffer, erfc, holm } from "./stats.js";

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const key = (r) => r.name + "\u0000" + r.module;

// The range's profile of run r by grouping `by`, rows by (name, module).
function rows(r, A, B, by) {
  const gi = r.groups.findIndex((g) => g.by === by);
  const b = Math.min(B, r.nb), a = Math.min(A, b);
  const p = r.profile(a, b, gi);
  return { total: p.total, map: new Map(p.rows.map((x) => [key(x), x])) };
}

function merged(pa, pb) {
  const keys = new Set([...pa.map.keys(), ...pb.map.keys()]);
  return [...keys].map((k) => [pa.map.get(k), pb.map.get(k)]);
}

// compare TIME ENERGY --from --to --by BY --interval sampling
export function rangeCompare(t, e, A, B, by) {
  const pt = rows(t, A, B, by), pe = rows(e, A, B, by);
  const tn = pt.total, en = pe.total, q = e.quantum;
  // power_row_context(): seconds a time sample from the whole time
  // recording's span (the jittered timer meets its nominal rate only on
  // average), else its nominal rate
  const n = t.j.nsamples, perT = n > 1 && t.j.span_s > 0 ? t.j.span_s / (n - 1) :
    t.j.nominal_hz > 0 ? 1 / t.j.nominal_hz : NaN;
  const out = merged(pt, pe).map(([x, y]) => {
    const any = x || y;
    const ts = x ? x.samples : 0, es = y ? y.samples : 0;
    const [significant, z] = sharesDiffer(es, en, y ? y.deff : 1, ts, tn, x ? x.deff : 1);
    const time_share = tn ? ts / tn : 0, energy_share = en ? es / en : 0;
    return { name: any.name, module: any.module, time_samples: ts, time_share, energy_samples: es,
      energy_share, difference: energy_share - time_share, z, significant,
      energy_j: q > 0 && Number.isFinite(q) ? es * q : null,
      power_w: ts > 0 && perT > 0 && q > 0 ? es * q / (ts * perT) : null };
  });
  out.sort((a, b) => b.time_samples - a.time_samples || b.energy_samples - a.energy_samples ||
    cmp(a.name, b.name) || cmp(a.module, b.module));
  return { by, interval: "sampling", time_file: t.j.path, energy_file: e.j.path,
    time_total_samples: tn, energy_total_samples: en, rows: out };
}

// diff A B --from --to --by BY --interval sampling (one run a side)
export function rangeDiff(a, b, A, B, by) {
  const pa = rows(a, A, B, by), pb = rows(b, A, B, by);
  const na = pa.total, nb = pb.total, qa = a.amountPer(), qb = b.amountPer();
  const u = a.mode === "energy" ? "j" : "s";
  const totA = na * qa, totB = nb * qb;
  const out = merged(pa, pb).map(([x, y]) => {
    const any = x || y;
    const ka = x ? x.samples : 0, kb = y ? y.samples : 0, da = x ? x.deff : 1, db = y ? y.deff : 1;
    const share_a = na > 0 ? ka / na : 0, share_b = nb > 0 ? kb / nb : 0;
    const amount_a = totA * share_a, amount_b = totB * share_b, change = amount_b - amount_a;
    const p0 = na + nb > 0 ? (ka + kb) / (na + nb) : 0;
    const v0 = na > 0 ? totA * totA * p0 * (1 - p0) * da / na : 0;
    const v1 = nb > 0 ? totB * totB * p0 * (1 - p0) * db / nb : 0;
    const v = v0 + v1;
    const r = { name: any.name, module: any.module, samples_a: ka, samples_b: kb, share_a, share_b,
      ["a_" + u]: amount_a, ["b_" + u]: amount_b, ["change_" + u]: change,
      relative: amount_a > 0 ? change / amount_a : null };
    if (v > 0) {
      const tt = change / Math.sqrt(v);
      Object.assign(r, { t: tt, p: erfc(Math.abs(tt) / Math.SQRT2),
        change_low: change - Z95 * Math.sqrt(v), change_high: change + Z95 * Math.sqrt(v) });
    } else {
      Object.assign(r, { t: 0, p: 1, change_low: change, change_high: change });
    }
    r.share_significant = sharesDiffer(kb, nb, db, ka, na, da)[0];
    return r;
  });
  const sig = holm(out.map((r) => r.p));
  let flagged = 0;
  out.forEach((r, i) => { r.significant = sig[i]; flagged += sig[i] ? 1 : 0; });
  const ch = "change_" + u;
  out.sort((x, y) => Math.abs(y[ch]) - Math.abs(x[ch]) || cmp(x.name, y.name) || cmp(x.module, y.module));
  return { mode: a.mode, by, a: a.j.path, b: b.j.path, runs_a: 1, runs_b: 1, interval: "sampling",
    flags: "holm", total: { ["a_" + u]: totA, ["b_" + u]: totB, ["change_" + u]: totB - totA },
    flagged, rows: out };
}

// Both runs' bucket edges the same (eqprof view folds two recordings on
// one page alike): a range of the first is the same --from/--to in both.
export function sameEdges(a, b) {
  return a.w === b.w && a.clock === b.clock;
}
