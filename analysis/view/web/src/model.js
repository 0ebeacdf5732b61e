// model.js - one recording as the page holds it (analysis/view/view.h), and
// what a range of its buckets adds up to: the numbers `eqprof power --from
// --to` and `eqprof report --from --to` print for the same edges.
import * as D from "./decode.js";
import { rowDeff, rowInterval } from "./stats.js";

export const FINE = 128;        // log bins a decade (POWER_FINE_PER_DECADE)
const NBINS = 24 * FINE;        // POWER_LOG_DECADES of them
export const GROUPS = ["exe", "module", "proc", "line"];

// C's strcmp on the UTF-16 of names (rows are ASCII nearly always)
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

class Group {
  constructor(g, nb) {
    this.by = g.by;
    this.rows = g.rows;
    this.j = g;
    this.nb = nb;
  }
  get csr() {
    const v = D.csr(this.j.csr, this.nb, 4);
    Object.defineProperty(this, "csr", { value: v });
    return v;
  }
  get edges() {
    const v = D.i32v(this.j.edges, 4 * (this.nb + 1));
    Object.defineProperty(this, "edges", { value: v });
    return v;
  }
}

export class Run {
  constructor(j, index) {
    this.j = j;
    this.index = index;
    this.name = j.name;
    this.mode = j.mode;
    this.basis = j.basis;
    this.hasPower = j.basis !== "none";
    this.quantum = j.quantum_j ?? NaN;
    this.period = j.period_s ?? NaN;
    this.clock = j.clock_hz;
    this.decimals = j.decimals;
    this.nb = j.nb;
    this.w = j.w_ticks;
    this.bucketS = this.w / this.clock;
    this.covA = j.cov_a ?? NaN;
    this.covB = j.cov_b ?? NaN;
    this.idleKnown = j.idle_known;
    const nb = this.nb;
    if (this.hasPower) {
      this.e = D.f64(j.e);
      this.nint = D.u32(j.nint);
      this.nidleInt = D.u32(j.nidle_int);
      this.pmin = D.f64(j.pmin);
      this.pmax = D.f64(j.pmax);
      this.se = D.f64(j.se);
      this.sa = D.f64(j.sa);
      this.sb = D.f64(j.sb);
      this.hist = D.csr(j.hist, nb, 3);
      this.boardDrops = j.board_drops ? D.u32(j.board_drops) : null;
    }
    this.ns = D.u32(j.ns);
    this.nidle = D.u32(j.nidle);
    this.nlost = D.u32(j.nlost);
    if (j.dtn) {
      this.dtn = D.f64(j.dtn);
      this.dts = D.f64(j.dts);
      this.dts2 = D.f64(j.dts2);
      this.xdt = D.f64(j.xdt);
    }
    this.edgeBk = D.i32v(j.edge_bk, 2 * (nb + 1));
    // a grouping's lists are decoded when first used: the page opens on
    // one grouping, and decoding the others was a fifth of its opening
    this.groups = j.groups.map((g) => new Group(g, nb));
    this.stackTable = D.stacks(j.stacks);
    this.stackCsr = D.csr(j.stack_csr, nb, 2);
    this.chains = j.chains;
    this.markers = j.markers;
    this.resets = j.resets;
    this.buildLevels();
  }

  // Edge k: k x w ticks, the double range.h makes of a typed time.
  edge(k) { return (k * this.w) / this.clock; }
  end() { return this.edge(this.nb); }
  // the nearest edge to a time
  nearestEdge(t) {
    const k = Math.round(t * this.clock / this.w);
    return Math.min(this.nb, Math.max(0, k));
  }
  // How a time is typed back to the command line (to the tick).
  timeText(k) { return k === 0 ? "0" : (this.edge(k)).toFixed(this.decimals); }
  amountPer() { return this.mode === "energy" ? this.quantum : this.period; }

  // ---- levels for drawing: bucket pairs summed, min and max kept ----
  buildLevels() {
    const nb = this.nb, L = [];
    let n = nb;
    const e0 = this.hasPower ? Float64Array.from(this.e) : new Float64Array(nb);
    const lo0 = new Float64Array(nb), hi0 = new Float64Array(nb);
    for (let k = 0; k < nb; k++) {
      const mean = e0[k] / this.bucketS;
      lo0[k] = this.hasPower && Number.isFinite(this.pmin[k]) ? Math.min(this.pmin[k], mean) : mean;
      hi0[k] = this.hasPower && Number.isFinite(this.pmax[k]) ? Math.max(this.pmax[k], mean) : mean;
    }
    L.push({ n, span: 1, e: e0, lo: lo0, hi: hi0, ns: Float64Array.from(this.ns),
      nidle: Float64Array.from(this.nidle), nlost: Float64Array.from(this.nlost) });
    while (n > 1) {
      const p = L[L.length - 1], m = Math.ceil(n / 2);
      const q = { n: m, span: p.span * 2, e: new Float64Array(m), lo: new Float64Array(m),
        hi: new Float64Array(m), ns: new Float64Array(m), nidle: new Float64Array(m),
        nlost: new Float64Array(m) };
      for (let i = 0; i < m; i++) {
        const a = 2 * i, b = a + 1 < n ? a + 1 : a;
        const two = b !== a;
        q.e[i] = p.e[a] + (two ? p.e[b] : 0);
        q.lo[i] = Math.min(p.lo[a], p.lo[b]);
        q.hi[i] = Math.max(p.hi[a], p.hi[b]);
        q.ns[i] = p.ns[a] + (two ? p.ns[b] : 0);
        q.nidle[i] = p.nidle[a] + (two ? p.nidle[b] : 0);
        q.nlost[i] = p.nlost[a] + (two ? p.nlost[b] : 0);
      }
      L.push(q);
      n = m;
    }
    this.levels = L;
  }

  // The columns of [t0, t1] at about `cols` points: x (column start), mean,
  // lowest, highest power, idle share, losses; and a per-bucket series
  // summed the same way when given.
  columns(t0, t1, cols, series) {
    const want = Math.max(1, (t1 - t0) / this.bucketS / cols);
    let li = 0;
    while (li + 1 < this.levels.length && this.levels[li + 1].span <= want) li++;
    const lv = this.levels[li], span = lv.span, wS = this.bucketS * span;
    const i0 = Math.max(0, Math.floor(t0 / wS) - 1), i1 = Math.min(lv.n, Math.ceil(t1 / wS) + 1);
    const n = Math.max(0, i1 - i0);
    const x = new Float64Array(n + 1), mean = new Float64Array(n + 1), lo = new Float64Array(n + 1),
      hi = new Float64Array(n + 1), idle = new Float64Array(n + 1), lost = new Float64Array(n + 1),
      busy = new Float64Array(n + 1), ser = series ? new Float64Array(n + 1) : null;
    for (let j = 0; j < n; j++) {
      const i = i0 + j;
      const k0 = i * span, k1 = Math.min(this.nb, k0 + span);
      const width = this.edge(k1) - this.edge(k0);
      x[j] = this.edge(k0);
      mean[j] = lv.e[i] / width;
      lo[j] = lv.lo[i];
      hi[j] = lv.hi[i];
      idle[j] = lv.ns[i] ? lv.nidle[i] / lv.ns[i] : NaN;
      busy[j] = lv.ns[i] ? 1 - lv.nidle[i] / lv.ns[i] : NaN;
      lost[j] = lv.nlost[i];
      if (ser) {
        let s = 0;
        for (let k = k0; k < k1; k++) s += series[k];
        ser[j] = lv.ns[i] ? s / lv.ns[i] : 0;
      }
    }
    // a last point so steps reach the end
    x[n] = n ? this.edge(Math.min(this.nb, (i0 + n) * span)) : t0;
    mean[n] = n ? mean[n - 1] : NaN;
    lo[n] = n ? lo[n - 1] : NaN;
    hi[n] = n ? hi[n - 1] : NaN;
    idle[n] = NaN;
    busy[n] = n ? busy[n - 1] : NaN;
    lost[n] = 0;
    if (ser) ser[n] = n ? ser[n - 1] : 0;
    return { x, mean, lo, hi, idle, lost, busy, ser, bucketS: wS };
  }

  // ---- a range of buckets [A, B): power (power_range.c) ----
  power(A, B) {
    const T0 = this.edge(A), T1 = this.edge(B);
    const r = { A, B, t0: T0, t1: T1, samples: 0, idleSamples: 0 };
    for (let k = A; k < B; k++) {
      r.samples += this.ns[k];
      r.idleSamples += this.nidle[k];
    }
    if (!this.hasPower) return r;
    // no interval of the power stream overlaps: power --from/--to refuses it
    if (!(Math.min(T1, this.covB) > Math.max(T0, this.covA))) {
      r.outside = true;
      return r;
    }
    let energy = 0, nint = 0, nidle = 0, peak = NaN, min = NaN;
    for (let k = A; k < B; k++) {
      energy += this.e[k];
      nint += this.nint[k];
      nidle += this.nidleInt[k];
      const lo = this.pmin[k], hi = this.pmax[k];
      if (!(hi <= peak)) peak = Number.isNaN(hi) ? peak : hi;
      if (!(lo >= min)) min = Number.isNaN(lo) ? min : lo;
    }
    // the intervals the ends cut: their parts inside, for the bounds
    let lo = energy, cutWhole = 0;
    const cut = (k) => {
      const e = this.se[k], a = this.sa[k], b = this.sb[k];
      const l = a > T0 ? a : T0, h = b < T1 ? b : T1;
      return { e, a, part: h > l ? e * (h - l) / (b - a) : 0 };
    };
    const cA = this.se[A] > 0 ? cut(A) : null;
    const cB = this.se[B] > 0 ? cut(B) : null;
    if (cA) { lo -= cA.part; cutWhole += cA.e; }
    if (cB && !(cA && cA.a === cB.a)) { lo -= cB.part; cutWhole += cB.e; }
    // no interval wholly inside: the bound is 0 exactly, as the command
    // line's sum of none (not the rounding left of the subtraction)
    const whole = nint - (cA && this.sb[A] <= T1 ? 1 : 0);
    if (whole <= 0 || lo < 0) lo = 0;
    const from = Math.max(T0, this.covA), to = Math.min(T1, this.covB);
    Object.assign(r, {
      energy, energyLo: lo, energyHi: lo + cutWhole, intervals: nint,
      idleIntervals: this.idleKnown ? nidle : null, peak, min,
      from, to, duration: to - from, power: energy / (to - from),
    });
    r.bins = this.histBins(A, B);
    r.median = medianOf(r.bins);
    return r;
  }

  // fine log bin -> [all, idle] over the range
  histBins(A, B) {
    const h = this.hist, all = new Float64Array(NBINS), idle = new Float64Array(NBINS);
    const [bin, ca, ci] = h.cols;
    let lo = NBINS, hi = -1;
    for (let j = h.off[A]; j < h.off[B]; j++) {
      const k = bin[j];
      all[k] += ca[j];
      idle[k] += ci[j];
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    }
    const m = new Map();
    for (let k = lo; k <= hi; k++) if (all[k]) m.set(k, [all[k], idle[k]]);
    return m;
  }

  // ---- a range's profile (profile.c over the range's samples) ----
  profile(A, B, gi) {
    const g = this.groups[gi], nr = g.rows.length, c = g.csr;
    const cnt = new Float64Array(nr), t1 = new Float64Array(nr), t2 = new Float64Array(nr);
    const [rows, cn, c1, c2] = c.cols;
    for (let j = c.off[A]; j < c.off[B]; j++) {
      const r = rows[j];
      cnt[r] += cn[j];
      t1[r] += c1[j];
      t2[r] += c2[j];
    }
    // pairs that reach back over the range's start are not the range's
    const E = g.edges, bk1 = this.edgeBk[2 * A], bk2 = this.edgeBk[2 * A + 1];
    const xm2 = E[4 * A], xm1 = E[4 * A + 1], x1 = E[4 * A + 2], x2 = E[4 * A + 3];
    const in1 = x1 >= 0 && bk1 >= 0 && bk1 < B, in2 = x2 >= 0 && bk2 >= 0 && bk2 < B;
    if (in1 && xm1 >= 0 && xm1 !== x1) { t1[xm1]--; t1[x1]--; }
    if (in1 && xm2 >= 0 && xm2 !== x1) { t2[xm2]--; t2[x1]--; }
    if (in2 && xm1 >= 0 && xm1 !== x2) { t2[xm1]--; t2[x2]--; }
    let m = 0;
    for (let r = 0; r < nr; r++) m += cnt[r];
    const cv2 = this.mode === "time" ? this.cv2(A, B, in1) : 0;
    const per = this.amountPer(), out = [];
    for (let r = 0; r < nr; r++) {
      if (!cnt[r]) continue;
      const deff = rowDeff(cnt[r], m, t1[r], t2[r], cv2);
      const [lo, hi] = rowInterval(cnt[r], m, t1[r], t2[r], cv2, deff);
      out.push({ row: r, name: g.rows[r][0], module: g.rows[r][1], samples: cnt[r],
        share: cnt[r] / m, lo, hi, deff, amount: per > 0 ? cnt[r] * per : NaN });
    }
    out.sort((a, b) => b.samples - a.samples || cmp(a.name, b.name) || cmp(a.module, b.module));
    return { rows: out, total: m, cv2 };
  }

  // the timer's jitter over the range (profile.c series_intervals)
  cv2(A, B, firstIn) {
    let n = 0, s = 0, s2 = 0;
    for (let k = A; k < B; k++) { n += this.dtn[k]; s += this.dts[k]; s2 += this.dts2[k]; }
    const x = this.xdt[A];
    if (firstIn && Number.isFinite(x)) { n -= 1; s -= x; s2 -= x * x; }
    if (!(n > 1 && s > 0)) return 0;
    const mean = s / n, cv2 = (s2 / n - mean * mean) / (mean * mean);
    return cv2 > 0 ? cv2 : 0;
  }

  // per bucket: the samples of row r of grouping gi
  rowSeries(gi, r) {
    const c = this.groups[gi].csr, out = new Float64Array(this.nb);
    for (let k = 0; k < this.nb; k++)
      for (let j = c.off[k]; j < c.off[k + 1]; j++) if (c.cols[0][j] === r) out[k] += c.cols[1][j];
    return out;
  }

  // per bucket: the samples whose stack starts with prefix (exe, frames...)
  prefixSeries(prefix) {
    const match = new Uint8Array(this.stackTable.length);
    this.stackTable.forEach((s, i) => {
      if (s.length < prefix.length) return;
      for (let j = 0; j < prefix.length; j++) if (s[j] !== prefix[j]) return;
      match[i] = 1;
    });
    const c = this.stackCsr, out = new Float64Array(this.nb);
    for (let k = 0; k < this.nb; k++)
      for (let j = c.off[k]; j < c.off[k + 1]; j++) if (match[c.cols[0][j]]) out[k] += c.cols[1][j];
    return out;
  }

  // The range's stacks as a tree: root -> exe -> outermost ... leaf.
  stackTree(A, B) {
    const c = this.stackCsr, counts = new Map();
    for (let j = c.off[A]; j < c.off[B]; j++) {
      const s = c.cols[0][j];
      counts.set(s, (counts.get(s) || 0) + c.cols[1][j]);
    }
    return this.treeOf(counts);
  }

  treeOf(counts) {
    const exe = this.groups[0].rows, proc = this.groups[2].rows;
    const root = { name: "all", key: [], value: 0, children: new Map() };
    for (const [s, n] of counts) {
      const st = this.stackTable[s];
      let node = root;
      root.value += n;
      for (let d = 0; d < st.length; d++) {
        let ch = node.children.get(st[d]);
        if (!ch) {
          const r = d === 0 ? exe[st[d]] : proc[st[d]];
          ch = { name: r[0], module: d === 0 ? null : r[1], key: node.key.concat(st[d]), value: 0,
            children: new Map(), depth: d + 1 };
          node.children.set(st[d], ch);
        }
        ch.value += n;
        node = ch;
      }
    }
    return root;
  }
}

// The bin of the interval of rank ceil(n/2): power_hist_median_bin()
export function medianOf(bins) {
  let total = 0;
  for (const v of bins.values()) total += v[0];
  if (!total) return NaN;
  const want = Math.floor((total + 1) / 2), keys = [...bins.keys()].sort((a, b) => a - b);
  let cum = 0;
  for (const k of keys) {
    cum += bins.get(k)[0];
    if (cum >= want) return binCentre(k, FINE);
  }
  return NaN;
}

export const binEdge = (k, per) => Math.pow(10.0, k / per - 12.0);
export const binCentre = (k, per) => Math.pow(10.0, (k + 0.5) / per - 12.0);
