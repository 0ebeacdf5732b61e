// runview.js - one recording: its trace, the selected range's numbers,
// histogram, profile and icicle, all following the selection as it moves.
import { h, choice, hue } from "./dom.js";
import { Trace } from "./trace.js";
import { Hist } from "./hist.js";
import { Icicle } from "./icicle.js";
import { fixed, general, quantity, pct, life, parseCapacity } from "./fmt.js";

const GROUP_LABEL = { exe: "executable", module: "module", proc: "procedure", line: "line" };

export function describe(run) {
  const j = run.j;
  const parts = [];
  if (run.mode === "energy") {
    parts.push(`energy-driven: each sample is one quantum of ${Number.isFinite(run.quantum) ? quantity(run.quantum, "J") : "unknown energy"}`);
  } else {
    parts.push(`time-driven: each sample stands for ${Number.isFinite(run.period) ? quantity(run.period, "s") : "an unknown time"} of time, not energy`);
  }
  if (run.basis === "board") parts.push("power from the board's stream of quanta");
  else if (run.basis === "source") parts.push("power from the energy source read alongside");
  else if (run.basis === "none") parts.push("no power: " + (j.why_none || "no energy source"));
  parts.push(`${j.nsamples} samples over ${quantity(j.span_s, "s")}` + (j.lost ? `, ${j.lost} lost` : ""));
  parts.push(`${run.nb} buckets of ${quantity(run.bucketS, "s")}`);
  return parts.join("; ");
}

export class RunView {
  constructor(root, run, page) {
    this.run = run;
    this.page = page;
    this.gi = Math.min(2, run.groups.length - 1);
    this.sel = null;
    this.battery = "20Wh";
    this.pending = false;
    const r = run;
    this.el = h("section", { class: "run", "data-run": r.index });
    this.traceEl = h("div", { class: "trace-box" });
    this.rangeEl = h("div", { class: "range", "data-testid": "range" });
    this.histEl = h("div", { class: "hist-box" });
    this.tableEl = h("div", { class: "profile-table" });
    this.icicleEl = h("div", { class: "icicle-box" });
    this.profHead = h("div", { class: "profile-head" });
    const modeBtn = h("button", { type: "button", class: "mode", title: "drag selects instead of panning (or hold Shift)",
      onclick: () => { this.trace.selectMode = !this.trace.selectMode; modeBtn.classList.toggle("on", this.trace.selectMode); } }, "select mode");
    const groups = r.groups.map((g) => g.by);
    this.el.append(
      h("p", { class: "meta" }, describe(r)),
      h("div", { class: "toolbar" },
        modeBtn,
        h("button", { type: "button", onclick: () => this.trace.zoomToSelection() }, "zoom to selection"),
        h("button", { type: "button", onclick: () => this.trace.setView(this.trace.full.t0, this.trace.full.t1) }, "whole run"),
        h("button", { type: "button", onclick: () => this.trace.setSelection(null) }, "clear selection"),
        h("span", { class: "hint" }, "wheel: zoom · drag: pan · Shift+drag: select · Esc: clear · \u2190/\u2192: step (Shift: move the selection) · double-click: zoom to it")),
      this.traceEl,
      h("div", { class: "panels" }, this.rangeEl, this.histEl),
      h("div", { class: "profile" },
        h("div", { class: "profile-left" },
          h("div", { class: "profile-bar" }, h("span", {}, "the range's code by "),
            choice(groups, groups.map((g) => GROUP_LABEL[g] || g), groups[this.gi], (v) => {
              this.gi = groups.indexOf(v);
              this.updateProfile();
            }, { "data-testid": "grouping" })),
          this.profHead, this.tableEl),
        h("div", { class: "profile-right" },
          h("div", { class: "icicle-title" }, run.chains ? "call stacks of the range (icicle: callers above, callees below)" :
            "the range by executable and procedure (no call chains recorded)"),
          this.icicleEl)));
    root.append(this.el);
    this.hist = new Hist(this.histEl);
    this.icicle = new Icicle(this.icicleEl, {
      color: (n) => n.depth === 1 ? "#cbd5e1" : n.name === "[idle]" ? "#e5e7eb" : moduleColour(n.module || n.name),
      label: (n) => n.name,
      tip: (n) => this.nodeTip(n),
      onClick: (n) => this.highlightNode(n),
    });
    // the widths the first drawing needs, read together: one layout of the
    // page instead of one forced by each canvas between the others' changes
    const wTrace = this.traceEl.clientWidth;
    this.hist.width = Math.floor(this.histEl.getBoundingClientRect().width);
    this.icicle.width = Math.floor(this.icicleEl.getBoundingClientRect().width);
    this.trace = new Trace(this.traceEl, [run], {
      width: wTrace,
      onSelect: (sel) => { this.sel = sel; this.schedule(); },
    });
    this.update();
  }

  // coalesce the drag's updates into one a frame
  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.update(); });
  }

  range() {
    return this.sel || { A: 0, B: this.run.nb, whole: true };
  }

  update() {
    const t = performance.now();
    this.updateRange();
    this.updateProfile();
    this.page.perf.update_ms = performance.now() - t;
    this.page.perf.updates++;
  }

  // The range panel is built once; each update only sets its texts (a drag
  // rebuilds nothing, so the browser lays out nothing new).
  buildRange() {
    const r = this.run, el = this.rangeEl;
    this.cells = {};
    const row = (k, label, note) => {
      const v = h("td", { class: "v" }), x = h("td", { class: "x" }, note || "");
      this.cells[k] = { v, x };
      return h("tr", { "data-k": k }, h("th", {}, label), v, x);
    };
    this.headEl = h("span");
    el.append(h("div", { class: "range-head", "data-testid": "range-head" }, this.headEl,
      h("span", { class: "snap" }, ` (snapped to the edges of the ${quantity(r.bucketS, "s")} buckets; typed into --from/--to they select the same samples)`)));
    const tb = h("table", { class: "kv" });
    if (r.hasPower) {
      tb.append(row("energy", "energy"), row("avg", "avg power"), row("peak", "peak power"), row("min", "min power"),
        row("median", "median power", "of the intervals (half the energy above it), to 1/128 decade"),
        row("duration", "duration"), row("samples", "samples"), row("intervals", "intervals"));
      const input = h("input", { type: "text", value: this.battery, size: 14, "data-testid": "battery",
        title: "a capacity: 20Wh, 55kJ or 3000mAh@3.85V",
        oninput: (ev) => { this.battery = ev.target.value; this.updateBatteryOnly(); } });
      this.lifeEl = h("span", { "data-k": "life" });
      this.cells.battery = { v: h("td", { class: "v" }, this.lifeEl), x: h("td", { class: "x" }, "at ", input) };
      tb.append(h("tr", { "data-k": "battery" }, h("th", {}, "battery life"), this.cells.battery.v, this.cells.battery.x));
    } else {
      tb.append(row("duration", "duration"), row("energy", "energy", "time-driven samples carry no energy and no source was read"),
        row("samples", "samples"));
    }
    el.append(tb);
    this.cmdEl = h("pre", { class: "cmd", "data-testid": "commands" });
    el.append(h("div", { class: "cmd-title" }, "the same numbers on the command line:"), this.cmdEl);
  }

  updateRange() {
    const r = this.run, s = this.range(), p = r.power(s.A, s.B);
    this.powerNow = p;
    if (!this.cells) this.buildRange();
    const set = (k, v, x) => {
      const c = this.cells[k];
      if (!c) return;
      if (c.v.textContent !== v) c.v.textContent = v;
      if (x != null && c.x.textContent !== x) c.x.textContent = x;
    };
    const from = r.timeText(s.A), to = r.timeText(s.B);
    this.headEl.textContent = s.whole ? `whole run: ${from} s to ${to} s` : `selection: ${from} s to ${to} s`;
    set("samples", `${p.samples} (${p.idleSamples} idle)`);
    if (p.outside) {
      set("energy", "n/a", `no power here: the ${r.basis === "source" ? "energy source's readings" : "power stream"} ` +
        `cover ${r.covA.toFixed(r.decimals)} s to ${r.covB.toFixed(r.decimals)} s on its own clock`);
      for (const k of ["avg", "peak", "min", "median", "intervals"]) set(k, "n/a");
      set("duration", quantity(r.edge(s.B) - r.edge(s.A), "s"));
    } else if (r.hasPower) {
      set("energy", quantity(p.energy, "J"), `[${quantity(p.energyLo, "J")}, ${quantity(p.energyHi, "J")}]`);
      set("avg", quantity(p.power, "W"));
      set("peak", quantity(p.peak, "W"));
      set("min", quantity(p.min, "W"));
      set("median", quantity(p.median, "W", 3));
      set("duration", quantity(p.duration, "s"));
      set("intervals", String(p.intervals) + (p.idleIntervals != null ? ` (${p.idleIntervals} idle)` : ""));
    } else {
      set("duration", quantity(r.edge(s.B) - r.edge(s.A), "s"));
      set("energy", "n/a");
    }
    if (this.lifeEl) this.updateBatteryOnly(true);
    this.cmdArgs = { fr: s.A === 0 ? "0" : from, to };
    this.writeCommands();
    if (r.hasPower) this.hist.set(p.outside ? new Map() : p.bins, r.idleKnown);
  }

  writeCommands() {
    const r = this.run, { fr, to } = this.cmdArgs;
    const g = r.groups[this.gi].by;
    const q = (s) => (/^[\w./:@+-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
    const lines = [];
    if (r.hasPower) lines.push(`eqprof power ${q(r.j.path)} --from ${fr} --to ${to}` + (Number.isFinite(parseCapacity(this.battery)) ? ` --battery ${q(this.battery)}` : ""));
    lines.push(`eqprof report ${q(r.j.path)} --from ${fr} --to ${to} --by ${g}`);
    if (r.hasPower) lines.push(`eqprof power ${q(r.j.path)} --from ${fr} --to ${to} --hist hist.png --bucket 16/decade --split-idle`);
    const text = lines.join("\n");
    if (this.cmdEl.textContent !== text) this.cmdEl.textContent = text;
  }

  updateBatteryOnly(quiet) {
    const cap = parseCapacity(this.battery), p = this.powerNow;
    const text = p.outside ? "n/a" : Number.isFinite(cap) ? life(cap / p.power) : "give a capacity: 20Wh, 55kJ, 3000mAh@3.85V";
    if (this.lifeEl && this.lifeEl.textContent !== text) this.lifeEl.textContent = text;
    if (!quiet) this.writeCommands();
  }

  updateProfile() {
    const r = this.run, s = this.range(), g = r.groups[this.gi];
    const prof = r.profile(s.A, s.B, this.gi);
    this.prof = prof;
    const per = r.amountPer(), unit = r.mode === "energy" ? "J" : "s";
    const head = `${prof.total} samples` +
      (per > 0 ? ` x ${quantity(per, unit)} = ${quantity(per * prof.total, unit)}` :
        r.mode === "energy" ? " (quantum unknown: shares only)" : " (sampling rate unknown: shares only)") +
      `; 95% intervals: sampling, this run's share` + (r.mode === "time" ? "; time, not energy" : "");
    if (this.profHead.textContent !== head) this.profHead.textContent = head;
    // rows by executable name themselves: no module column (as report prints them)
    const mod = g.by !== "exe", key = g.by;
    if (!this.tbl || this.tbl.key !== key) {
      const what = r.mode === "energy" ? "energy" : "time";
      // fixed column widths: a drag rewrites every cell, and a table laid
      // out by its contents measures all of them again each time
      const table = h("table", { class: mod ? "rows fixed" : "rows fixed nomod", "data-testid": "profile" });
      table.append(h("thead", {}, h("tr", {}, h("th", { class: "c-share" }, "share"), h("th", { class: "c-n" }, "samples"),
        h("th", { class: "c-amt" }, what), h("th", { class: "c-ci" }, "95% CI of share"),
        mod ? h("th", { class: "c-mod" }, "module") : null, h("th", { class: "c-name" }, g.by))));
      const body = h("tbody", { onclick: (ev) => {
        const tr = ev.target.closest("tr");
        if (tr && tr.dataset.row != null) this.highlightRow(Number(tr.dataset.row), tr);
      } });
      table.append(body);
      this.more = h("p", { class: "more" });
      this.tableEl.textContent = "";
      this.tableEl.append(table, this.more);
      // rows out of the table's sight are skipped by the browser (.off:
      // content-visibility hidden); their texts are kept up to date
      if (this.seen) this.seen.disconnect();
      this.seen = new IntersectionObserver((es) => {
        for (const e of es) e.target.classList.toggle("off", !e.isIntersecting);
      }, { root: this.tableEl, rootMargin: "60px 0px" });
      this.tbl = { key, body, trs: [] };
    }
    const shown = prof.rows.slice(0, 300), t = this.tbl;
    while (t.trs.length < shown.length) {
      const tr = h("tr", {}, h("td", { class: "n" }), h("td", { class: "n" }), h("td", { class: "n" }),
        h("td", { class: "ci" }), mod ? h("td", { class: "mod" }) : null, h("td", { class: "name" }));
      t.trs.push(tr);
      t.body.append(tr);
      this.seen.observe(tr);
    }
    while (t.trs.length > shown.length) {
      const tr = t.trs.pop();
      this.seen.unobserve(tr);
      tr.remove();
    }
    shown.forEach((x, i) => {
      const tr = t.trs[i], td = tr.children;
      const cells = [pct(x.share), String(x.samples), Number.isFinite(x.amount) ? quantity(x.amount, unit) : "n/a",
        `[${pct(x.lo)}, ${pct(x.hi)}]`, ...(mod ? [x.module] : []), x.name];
      for (let k = 0; k < cells.length; k++) if (td[k].textContent !== cells[k]) td[k].textContent = cells[k];
      if (tr.dataset.row !== String(x.row)) {
        tr.dataset.row = x.row;
        tr.dataset.name = x.name;
        tr.dataset.module = x.module;
      }
      tr.classList.toggle("hl", !!(this.hl && this.hl.gi === this.gi && this.hl.row === x.row));
    });
    const more = prof.rows.length > shown.length ? `and ${prof.rows.length - shown.length} more rows (eqprof report gives them all)` : "";
    if (this.more.textContent !== more) this.more.textContent = more;
    if (this.cmdArgs) this.writeCommands();
    const tree = r.stackTree(s.A, s.B);
    setWeights(tree);
    this.icicle.setTree(tree, true);
  }

  highlightRow(row, tr) {
    if (this.hl && this.hl.gi === this.gi && this.hl.row === row) {
      this.hl = null;
      this.trace.setHighlight(null);
    } else {
      this.hl = { gi: this.gi, row };
      this.trace.setHighlight(this.run.rowSeries(this.gi, row));
    }
    this.tableEl.querySelectorAll("tr.hl").forEach((x) => x.classList.remove("hl"));
    if (this.hl && tr) tr.classList.add("hl");
  }

  highlightNode(n) {
    this.hl = null;
    this.tableEl.querySelectorAll("tr.hl").forEach((x) => x.classList.remove("hl"));
    this.trace.setHighlight(n.key.length ? this.run.prefixSeries(n.key) : null);
  }

  nodeTip(n) {
    const r = this.run, per = r.amountPer(), unit = r.mode === "energy" ? "J" : "s";
    const total = this.prof ? this.prof.total : 0;
    return `${n.name}${n.module ? " (" + n.module + ")" : ""}: ${n.value} samples` +
      (per > 0 ? `, ${quantity(n.value * per, unit)}` : "") +
      (total ? `, ${pct(n.value / total)} of the range` : "") + " — click: where in time it ran";
  }
}

const colours = new Map();
function moduleColour(m) {
  let c = colours.get(m);
  if (!c) colours.set(m, c = `hsl(${hue(m)}, 70%, 78%)`);
  return c;
}

export function setWeights(n) {
  n.weight = n.value;
  for (const c of n.children.values()) setWeights(c);
}

export { general, fixed };
