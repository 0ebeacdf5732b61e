// pairviews.js - two recordings: time against energy (what `eqprof
// compare` prints) and two runs (`eqprof diff`).  The whole runs show the
// commands' own documents (run-to-run variances where they use them); a
// range dragged on the trace shows that range's comparison with sampling
// variances, computed here as the commands compute it (pair.js).
import { h, choice } from "./dom.js";
import { Trace } from "./trace.js";
import { Icicle } from "./icicle.js";
import { fixed, quantity } from "./fmt.js";
import { describe, setWeights } from "./runview.js";
import { rangeCompare, rangeDiff, sameEdges } from "./pair.js";

const pctOf = (v) => fixed(100 * v, 2) + "%";
// printf's %+.Nf: the sign of the value as it is, -0 too
const neg = (v) => v < 0 || Object.is(v, -0);
const signedPct = (v) => (neg(v) ? "-" : "+") + fixed(Math.abs(100 * v), 2) + "%";
// diff.c's signed_q()
function signedQ(v, u) {
  if (!Number.isFinite(v)) return "-";
  return (v < 0 ? "-" : v > 0 ? "+" : "") + quantity(Math.abs(v), u);
}

function groupsOf(doc) {
  return ["exe", "module", "proc", "line"].filter((g) => doc[g]);
}

// A pair view's range: the selection on its trace, its head and commands.
class PairRange {
  constructor(view, a, b, cmd) {
    this.view = view;
    this.a = a;
    this.b = b;
    this.cmd = cmd;
    this.sel = null;
    this.ok = sameEdges(a, b);
    this.pending = false;
    this.noteEl = h("p", { class: "note range-note", "data-testid": "pair-range" });
    this.cmdEl = h("pre", { class: "cmd", "data-testid": "pair-commands" });
  }

  onSelect(sel) {
    this.sel = this.ok ? sel : null;
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.view.draw(); });
  }

  // the range's document, or null for the whole runs
  doc(by, f) {
    if (!this.sel) return null;
    return f(this.a, this.b, this.sel.A, this.sel.B, by);
  }

  describe(by) {
    const r = this.a, q = (x) => (/^[\w./:@+-]+$/.test(x) ? x : `'${x.replace(/'/g, "'\\''")}'`);
    let note, cmd;
    if (!this.ok) {
      note = "the two recordings do not share bucket edges (different clocks): ranges of them are not compared here";
      cmd = "";
    } else if (!this.sel) {
      note = "whole recordings. Shift+drag on the trace: that range compared, with sampling variances";
      cmd = `eqprof ${this.cmd} ${q(this.a.j.path)} ${q(this.b.j.path)} --by ${by}`;
    } else {
      const fr = this.sel.A === 0 ? "0" : r.timeText(this.sel.A), to = r.timeText(this.sel.B);
      note = `selection: ${fr} s to ${to} s (snapped to the ${quantity(r.bucketS, "s")} buckets both recordings share), ` +
        "sampling variances: how far this range's shares could be off from its own samples. The run-to-run " +
        "variances of the whole recordings come from batch means over each whole run, which a page cannot " +
        "re-add over a range. Esc: the whole recordings";
      cmd = `eqprof ${this.cmd} ${q(this.a.j.path)} ${q(this.b.j.path)} --from ${fr} --to ${to} --by ${by} --interval sampling`;
    }
    if (this.noteEl.textContent !== note) this.noteEl.textContent = note;
    if (this.cmdEl.textContent !== cmd) this.cmdEl.textContent = cmd;
  }
}

export class CompareView {
  constructor(root, doc, runs) {
    this.doc = doc;
    const t = runs[doc.a], e = runs[doc.b];
    this.t = t;
    this.e = e;
    const groups = groupsOf(doc);
    this.by = groups.includes("proc") ? "proc" : groups[0];
    this.tableEl = h("div", { class: "cmp-table" });
    this.headEl = h("p", { class: "meta" });
    this.traceEl = h("div", { class: "trace-box" });
    this.range = new PairRange(this, t, e, "compare");
    this.el = h("section", { class: "compare" },
      h("p", { class: "meta" }, `time: ${t.name} (${describe(t)})`),
      h("p", { class: "meta" }, `energy: ${e.name} (${describe(e)})`),
      this.traceEl, this.range.noteEl, this.range.cmdEl,
      h("div", { class: "profile-bar" }, h("span", {}, "rows by "),
        choice(groups, groups, this.by, (v) => { this.by = v; this.draw(); }, { "data-testid": "cmp-grouping" })),
      this.headEl, this.tableEl,
      h("p", { class: "note" }, "Time share and energy share of every row side by side; * marks a row " +
        "compare finds different at 95%. Rows with a higher energy share than time share ran at more than " +
        "the average power."));
    root.append(this.el);
    // the energy recording's trace: a range of it is the same range of both
    this.trace = new Trace(this.traceEl, [e], { height: 200, width: this.traceEl.clientWidth,
      onSelect: (sel) => this.range.onSelect(sel) });
    this.draw();
  }

  draw() {
    const c = this.range.doc(this.by, rangeCompare) || this.doc[this.by];
    this.range.describe(this.by);
    this.headEl.textContent = `time profile ${c.time_file} (${c.time_total_samples} samples) against energy profile ` +
      `${c.energy_file} (${c.energy_total_samples} samples), by ${c.by}; ${c.interval} variances`;
    const hasPower = c.rows.some((r) => "power_w" in r && r.power_w != null), hasJ = c.rows.some((r) => "energy_j" in r);
    const tb = h("table", { class: "rows", "data-testid": "compare" });
    tb.append(h("thead", {}, h("tr", {}, h("th", {}, "time"), h("th", {}, "energy"), h("th", { class: "bars" }, "time | energy"),
      h("th", {}, "diff"), h("th", {}, "sig"), hasPower ? h("th", {}, "avg power") : null,
      hasJ ? h("th", {}, "joules") : null, c.by !== "exe" ? h("th", {}, "module") : null, h("th", {}, c.by))));
    const body = h("tbody");
    let top = 0;
    for (const r of c.rows) top = Math.max(top, r.time_share, r.energy_share);
    for (const r of c.rows) {
      const bars = h("td", { class: "bars" },
        h("div", { class: "bar t", style: `width:${(100 * r.time_share / (top || 1)).toFixed(2)}%` }),
        h("div", { class: "bar e", style: `width:${(100 * r.energy_share / (top || 1)).toFixed(2)}%` }));
      body.append(h("tr", { class: r.significant ? "sig" : null, "data-name": r.name, "data-module": r.module },
        h("td", { class: "n" }, pctOf(r.time_share)), h("td", { class: "n" }, pctOf(r.energy_share)), bars,
        h("td", { class: "n" }, signedPct(r.difference)), h("td", { class: "sig" }, r.significant ? "*" : ""),
        hasPower ? h("td", { class: "n" }, r.power_w != null ? quantity(r.power_w, "W") : "n/a") : null,
        hasJ ? h("td", { class: "n" }, r.energy_j != null ? quantity(r.energy_j, "J") : "n/a") : null,
        c.by !== "exe" ? h("td", { class: "mod" }, r.module) : null, h("td", { class: "name" }, r.name)));
    }
    tb.append(body);
    this.tableEl.textContent = "";
    this.tableEl.append(tb);
  }
}

export class DiffView {
  constructor(root, doc, runs) {
    this.doc = doc;
    this.a = runs[doc.a];
    this.b = runs[doc.b];
    const groups = groupsOf(doc);
    this.by = groups.includes("proc") ? "proc" : groups[0];
    this.unit = this.a.mode === "energy" ? "J" : "s";
    this.headEl = h("div", { class: "diff-head" });
    this.tableEl = h("div", { class: "cmp-table" });
    this.traceEl = h("div", { class: "trace-box" });
    this.icicleEl = h("div", { class: "icicle-box" });
    this.range = new PairRange(this, this.a, this.b, "diff");
    this.el = h("section", { class: "diff" },
      h("p", { class: "meta" }, `A (before): ${this.a.name}; B (after): ${this.b.name}`),
      this.traceEl, this.range.noteEl, this.range.cmdEl,
      h("div", { class: "icicle-title" }, `the energy difference B - A in ${this.a.mode === "energy" ? "joules" : "seconds (time-driven: not energy)"}: ` +
        "width by the larger of the two, red where B spends more, blue where it spends less; a dashed frame is a procedure diff flags"),
      this.icicleEl,
      h("div", { class: "profile-bar" }, h("span", {}, "rows by "),
        choice(groups, groups, this.by, (v) => { this.by = v; this.draw(); }, { "data-testid": "diff-grouping" })),
      this.headEl, this.tableEl);
    root.append(this.el);
    this.trace = new Trace(this.traceEl, [this.a, this.b], { height: 240, width: this.traceEl.clientWidth,
      onSelect: (sel) => this.range.onSelect(sel) });
    this.icicle = new Icicle(this.icicleEl, {
      color: (n) => diffColour(n, this.maxAbs),
      label: (n) => `${n.name} ${signedQ(n.delta, this.unit)}`,
      tip: (n) => `${n.name}${n.module ? " (" + n.module + ")" : ""}: A ${quantity(n.va, this.unit)}, ` +
        `B ${quantity(n.vb, this.unit)}, B - A ${signedQ(n.delta, this.unit)}` + (n.mark ? " (diff: significant)" : ""),
      onClick: () => {},
    });
    this.draw();
  }

  draw() {
    const d = this.range.doc(this.by, rangeDiff) || this.doc[this.by];
    this.range.describe(this.by);
    const u = this.unit.toLowerCase();
    const t = d.total;
    this.headEl.textContent = `A: ${quantity(t["a_" + u], this.unit)} a run; B: ${quantity(t["b_" + u], this.unit)} a run; ` +
      `total: ${signedQ(t["change_" + u], this.unit)}; ${d.flagged} row(s) flagged (${d.flags === "holm" ? "family-wise 5%, Holm" : "each at 95%"}, ${d.interval} design effects)`;
    const tb = h("table", { class: "rows", "data-testid": "diff" });
    tb.append(h("thead", {}, h("tr", {}, h("th", {}, "change"), h("th", {}, ""), h("th", {}, "95% CI of change"),
      h("th", {}, "rel"), h("th", {}, "share A"), h("th", {}, "share B"), h("th", {}, "A"), h("th", {}, "B"),
      d.by !== "exe" ? h("th", {}, "module") : null, h("th", {}, d.by))));
    const body = h("tbody");
    for (const r of d.rows) {
      const rel = r.relative != null ? (neg(r.relative) ? "-" : "+") + fixed(Math.abs(100 * r.relative), 1) + "%" : "new";
      body.append(h("tr", { class: r.significant ? "sig" : null, "data-name": r.name, "data-module": r.module },
        h("td", { class: "n" }, signedQ(r["change_" + u], this.unit)), h("td", { class: "sig" }, r.significant ? "*" : ""),
        h("td", { class: "ci" }, `[${signedQ(r.change_low, this.unit)}, ${signedQ(r.change_high, this.unit)}]`),
        h("td", { class: "n" }, rel), h("td", { class: "n" }, pctOf(r.share_a)), h("td", { class: "n" }, pctOf(r.share_b)),
        h("td", { class: "n" }, quantity(r["a_" + u], this.unit)), h("td", { class: "n" }, quantity(r["b_" + u], this.unit)),
        d.by !== "exe" ? h("td", { class: "mod" }, r.module) : null, h("td", { class: "name" }, r.name)));
    }
    tb.append(body);
    this.tableEl.textContent = "";
    this.tableEl.append(tb);
    this.drawIcicle();
  }

  // Both runs' whole stacks merged by frame names; each node's amount in
  // each run, their difference, and diff's verdict on its procedure.
  drawIcicle() {
    const s = this.range.sel, A = s ? s.A : 0;
    const ta = this.a.stackTree(Math.min(A, this.a.nb), s ? Math.min(s.B, this.a.nb) : this.a.nb);
    const tb = this.b.stackTree(Math.min(A, this.b.nb), s ? Math.min(s.B, this.b.nb) : this.b.nb);
    const pa = this.a.amountPer(), pb = this.b.amountPer();
    const flagged = new Set();
    const proc = this.doc.proc && (this.range.doc("proc", rangeDiff) || this.doc.proc);
    if (proc) for (const r of proc.rows) if (r.significant) flagged.add(r.name + "\u0000" + r.module);
    const merged = { name: "all", key: [], children: new Map(), va: 0, vb: 0 };
    const add = (dst, src, side, per) => {
      dst[side] += src.value * per;
      for (const c of src.children.values()) {
        const k = c.name + "\u0000" + (c.module || "");
        let m = dst.children.get(k);
        if (!m) {
          m = { name: c.name, module: c.module, key: dst.key.concat(k), children: new Map(), va: 0, vb: 0,
            depth: c.depth, mark: c.module != null && flagged.has(c.name + "\u0000" + c.module) };
          dst.children.set(k, m);
        }
        add(m, c, side, per);
      }
    };
    add(merged, ta, "va", pa);
    add(merged, tb, "vb", pb);
    let maxAbs = 0;
    const fin = (n) => {
      n.delta = n.vb - n.va;
      n.weight = Math.max(n.va, n.vb);
      n.value = n.weight;
      if (n.depth) maxAbs = Math.max(maxAbs, Math.abs(n.delta));
      for (const c of n.children.values()) fin(c);
    };
    fin(merged);
    this.maxAbs = maxAbs;
    this.icicle.setTree(merged, true);
  }
}

function diffColour(n, maxAbs) {
  if (!n.depth) return "#cbd5e1";
  const f = maxAbs > 0 ? Math.min(1, Math.abs(n.delta) / maxAbs) : 0;
  const l = 92 - 40 * f;
  return n.delta > 0 ? `hsl(0, 75%, ${l}%)` : n.delta < 0 ? `hsl(215, 75%, ${l}%)` : "hsl(0, 0%, 90%)";
}

export { setWeights };
