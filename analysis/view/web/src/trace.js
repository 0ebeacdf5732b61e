// trace.js - power against time (uPlot over pre-summed buckets), with the
// gestures of a scope: wheel zooms, drag pans, Shift+drag (or select mode)
// selects, Esc clears, arrows step; idle, markers, losses and resets drawn
// on it; and an overview strip of the whole run under it.
import uPlot from "uplot";
import { quantity } from "./fmt.js";

const COLORS = ["#1f5fbf", "#c2410c", "#15803d", "#7c3aed", "#b91c1c", "#0e7490"];
const IDLE = Array.from({ length: 17 }, (_, q) => `rgba(120,120,120,${(0.16 * q / 16).toFixed(3)})`);
const HL = Array.from({ length: 17 }, (_, q) => `rgba(234,88,12,${(0.15 + 0.85 * q / 16).toFixed(3)})`);

export class Trace {
  // runs: the recordings drawn (the first is the one selected on; others
  // overlaid), opts: {onSelect(sel, final), onView(), selectable, height}
  constructor(el, runs, opts = {}) {
    this.el = el;
    this.runs = runs;
    this.run = runs[0];
    this.opts = opts;
    this.sel = null;           // {A, B} bucket edges of the first run
    this.highlight = null;     // per-bucket counts of the highlighted code
    this.selectMode = false;
    const end = Math.max(...runs.map((r) => r.end()));
    this.full = { t0: 0, t1: end };
    this.view = { t0: 0, t1: end };
    this.power = runs.every((r) => r.hasPower);
    el.classList.add("trace");
    this.readoutEl = document.createElement("div");
    this.readoutEl.className = "readout";
    this.readoutEl.textContent = "\u00a0";
    this.plotEl = document.createElement("div");
    // the overview: the whole run's bars on a canvas drawn once a width;
    // the selection and the view's frame over it are boxes that move
    this.ovEl = document.createElement("canvas");
    this.ovEl.className = "overview";
    this.ovEl.title = "the whole run: click or drag to move the view";
    this.ovSel = document.createElement("div");
    this.ovSel.className = "ov-sel";
    this.ovView = document.createElement("div");
    this.ovView.className = "ov-view";
    this.ovBox = document.createElement("div");
    this.ovBox.className = "overview-box";
    this.ovBox.append(this.ovEl, this.ovSel, this.ovView);
    el.append(this.readoutEl, this.plotEl, this.ovBox);
    this.makePlot();
    this.bindGestures();
    this.render();
    new ResizeObserver((es) => this.resize(Math.floor(es[0].contentRect.width))).observe(el);
  }

  label() {
    if (this.power) return "power (W)";
    return "busy (% of time samples not idle)";
  }

  makePlot() {
    const width = Math.max(300, this.opts.width || this.el.clientWidth || 900);
    const series = [{}];
    const bands = [];
    this.runs.forEach((r, i) => {
      const c = COLORS[i % COLORS.length];
      const nm = this.runs.length > 1 ? r.name + " " : "";
      if (this.power) {
        series.push({ label: nm + "highest", stroke: "transparent", paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } });
        series.push({ label: nm + "lowest", stroke: "transparent", paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } });
        series.push({ label: nm + "mean power", stroke: c, width: 1.25, paths: uPlot.paths.stepped({ align: 1 }),
          points: { show: false }, value: (u, v) => (v == null ? "" : quantity(v, "W")) });
        const base = 1 + 3 * i;
        bands.push({ series: [base, base + 1], fill: c + (i ? "22" : "33") });
      } else {
        series.push({ label: nm + "busy", stroke: c, width: 1.25, paths: uPlot.paths.stepped({ align: 1 }),
          points: { show: false }, value: (u, v) => (v == null ? "" : v.toFixed(1) + "%") });
      }
    });
    const self = this;
    this.u = new uPlot({
      width, height: this.opts.height || 280,
      scales: { x: { time: false, auto: false, range: () => [self.view.t0, self.view.t1] },
        y: { range: (u, lo, hi) => (self.power ? [0, hi > 0 ? hi * 1.05 : 1] : [0, 100]) } },
      axes: [{ label: "time (s since the first sample)", values: (u, vs) => vs.map((v) => trimZeros(v)) },
        { label: this.label(), size: 60, values: (u, vs) => vs.map((v) => (this.power ? quantity(v, "W").replace(" ", "") : v + "%")) }],
      series, bands,
      legend: { show: false },
      cursor: { drag: { x: false, y: false, setScale: false }, y: false, points: { show: false } },
      hooks: { draw: [(u) => this.drawOver(u)], setCursor: [(u) => this.readout(u)] },
    }, [[0, 1], ...series.slice(1).map(() => [null, null])], this.plotEl);
  }

  // what is under the pointer, one line above the plot
  readout(u) {
    const i = u.cursor.idx;
    if (i == null || !this.cols || !this.cols[0] || i >= this.cols[0].x.length - 1) {
      this.readoutEl.textContent = "\u00a0";
      return;
    }
    const c0 = this.cols[0], t = c0.x[i], w = c0.x[i + 1] - t;
    const parts = [`${trimZeros(t)} s + ${quantity(w, "s")}:`];
    this.runs.forEach((r, k) => {
      const d = u.data, nm = this.runs.length > 1 ? (k === 0 ? "A " : "B ") : "";
      if (this.power) {
        const mean = d[3 + 3 * k][i], lo = d[2 + 3 * k][i], hi = d[1 + 3 * k][i];
        parts.push(`${nm}mean ${quantity(mean, "W")} (${quantity(lo, "W")} to ${quantity(hi, "W")})`);
      } else {
        parts.push(`${nm}busy ${d[1 + k][i] == null ? "-" : d[1 + k][i].toFixed(1) + "%"}`);
      }
    });
    const c = c0;
    if (c.idle[i] > 0) parts.push(`idle ${(100 * c.idle[i]).toFixed(0)}% of the samples`);
    if (c.lost[i] > 0) parts.push(`${c.lost[i]} sample(s) after a loss`);
    this.readoutEl.textContent = parts.join("  ");
  }

  resize(w) {
    if (w && Math.abs(w - this.u.width) > 4) {
      this.u.setSize({ width: w, height: this.u.height });
      this.render();
    }
  }

  // The data of the visible window, at about one point a pixel.
  render() {
    const { t0, t1 } = this.view;
    const cols = Math.max(100, this.u.bbox.width / uPlot.pxRatio);
    const data = [];
    this.cols = [];
    let x = null;
    this.runs.forEach((r, i) => {
      const c = r.columns(t0, t1, cols, i === 0 ? this.highlight : null);
      this.cols.push(c);
      if (!x) x = c.x;
      const at = i === 0 ? (v) => v : (v) => resample(c.x, v, x);
      if (this.power) data.push(at(c.hi), at(c.lo), at(c.mean));
      else data.push(at(c.busy.map((v) => 100 * v)));
    });
    this.u.batch(() => {
      this.u.setData([x, ...data], false);
      this.u.setScale("x", { min: t0, max: t1 });
    });
    this.drawOverview();
    if (this.opts.onView) this.opts.onView(this.view);
  }

  setView(t0, t1) {
    const span = this.full.t1 - this.full.t0;
    const minSpan = this.run.bucketS * 8;
    let w = Math.min(span, Math.max(minSpan, t1 - t0));
    let a = (t0 + t1) / 2 - w / 2;
    a = Math.max(this.full.t0, Math.min(this.full.t1 - w, a));
    this.view = { t0: a, t1: a + w };
    this.render();
  }

  zoomAt(t, factor) {
    const { t0, t1 } = this.view;
    const w = (t1 - t0) * factor;
    let a = t - (t - t0) * factor;
    a = Math.max(this.full.t0, Math.min(this.full.t1 - w, a));
    this.setView(a, a + w);
  }

  // A selection from pointer times: snapped to the buckets' edges.
  selectTimes(ta, tb, final) {
    const r = this.run;
    let A = r.nearestEdge(Math.min(ta, tb)), B = r.nearestEdge(Math.max(ta, tb));
    if (B === A) B = Math.min(r.nb, A + 1), A = Math.min(A, B - 1);
    this.setSelection({ A, B }, final);
  }

  setSelection(sel, final = true) {
    this.sel = sel;
    this.drawSelection();
    this.drawOverview();
    if (this.opts.onSelect) this.opts.onSelect(sel, final);
  }

  setHighlight(series) {
    this.highlight = series;
    this.render();
  }

  bindGestures() {
    const over = this.u.over;
    let drag = null;
    // during a drag the plot does not move: its rectangle is read once, at
    // the press (reading it on every move would lay the page out each time)
    const tAt = (ev, rect) => {
      rect = rect || over.getBoundingClientRect();
      return this.u.posToVal(ev.clientX - rect.left, "x");
    };
    over.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      this.zoomAt(tAt(ev), ev.deltaY > 0 ? 1.25 : 0.8);
    }, { passive: false });
    over.addEventListener("mousedown", (ev) => {
      if (ev.button !== 0) return;
      ev.preventDefault();
      const select = this.opts.selectable !== false && (ev.shiftKey || this.selectMode);
      const rect = over.getBoundingClientRect();
      drag = { select, x: ev.clientX, t: tAt(ev, rect), view: { ...this.view }, rect };
      over.style.cursor = select ? "col-resize" : "grabbing";
    });
    window.addEventListener("mousemove", (ev) => {
      if (!drag) return;
      if (drag.select) {
        this.selectTimes(drag.t, tAt(ev, drag.rect), false);
      } else {
        const px = ev.clientX - drag.x;
        const dt = -px * (drag.view.t1 - drag.view.t0) / (this.u.bbox.width / uPlot.pxRatio);
        this.setView(drag.view.t0 + dt, drag.view.t1 + dt);
      }
    });
    window.addEventListener("mouseup", (ev) => {
      if (!drag) return;
      if (drag.select) this.selectTimes(drag.t, tAt(ev, drag.rect), true);
      drag = null;
      over.style.cursor = "";
    });
    over.addEventListener("dblclick", () => this.zoomToSelection());
    this.el.tabIndex = 0;
    this.el.addEventListener("keydown", (ev) => this.key(ev));
    // the overview: click or drag moves the view there
    let ovDrag = false;
    const ovMove = (ev) => {
      const rect = this.ovEl.getBoundingClientRect();
      const t = this.full.t0 + (ev.clientX - rect.left) / rect.width * (this.full.t1 - this.full.t0);
      const w = this.view.t1 - this.view.t0;
      this.setView(t - w / 2, t + w / 2);
    };
    this.ovEl.addEventListener("mousedown", (ev) => { ovDrag = true; ovMove(ev); ev.preventDefault(); });
    window.addEventListener("mousemove", (ev) => { if (ovDrag) ovMove(ev); });
    window.addEventListener("mouseup", () => { ovDrag = false; });
  }

  key(ev) {
    const { t0, t1 } = this.view, w = t1 - t0;
    if (ev.key === "Escape") {
      this.setSelection(null, true);
    } else if (ev.key === "ArrowLeft" || ev.key === "ArrowRight") {
      const dir = ev.key === "ArrowLeft" ? -1 : 1;
      if (ev.shiftKey && this.sel) {
        const n = this.sel.B - this.sel.A;
        const A = Math.max(0, Math.min(this.run.nb - n, this.sel.A + dir * n));
        this.setSelection({ A, B: A + n }, true);
      } else {
        this.setView(t0 + dir * w / 10, t1 + dir * w / 10);
      }
    } else if (ev.key === "+" || ev.key === "=" || ev.key === "ArrowUp") {
      this.zoomAt((t0 + t1) / 2, 0.8);
    } else if (ev.key === "-" || ev.key === "ArrowDown") {
      this.zoomAt((t0 + t1) / 2, 1.25);
    } else if (ev.key === "Home" || ev.key === "0") {
      this.setView(this.full.t0, this.full.t1);
    } else {
      return;
    }
    ev.preventDefault();
  }

  zoomToSelection() {
    if (!this.sel) return;
    const a = this.run.edge(this.sel.A), b = this.run.edge(this.sel.B), pad = (b - a) * 0.05;
    this.setView(a - pad, b + pad);
  }

  // Idle, losses, markers, resets, the selection and the highlight.
  drawOver(u) {
    const ctx = u.ctx, { left, top, width, height } = u.bbox;
    const X = (t) => u.valToPos(t, "x", true);
    const c = this.cols && this.cols[0];
    const px = uPlot.pxRatio;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    if (c) {
      // runs of columns at one shade are one rectangle (16 shades)
      const band = (val, style, y, h, minW) => {
        let j = 0;
        while (j + 1 < c.x.length) {
          const q = val(j);
          let k = j + 1;
          while (k + 1 < c.x.length && val(k) === q) k++;
          if (q > 0) {
            const x0 = X(c.x[j]), x1 = X(c.x[k]);
            if (x1 >= left && x0 <= left + width) {
              ctx.fillStyle = style(q);
              ctx.fillRect(x0, y, Math.max(minW, x1 - x0), h);
            }
          }
          j = k;
        }
      };
      const level = (v) => (v > 0 ? Math.max(1, Math.round(16 * Math.min(1, v))) : 0);
      // idle: grey, as much as the idle share
      band((j) => level(c.idle[j]), (q) => IDLE[q], top, height, 1);
      // samples after a loss: red ticks
      band((j) => (c.lost[j] > 0 ? 1 : 0), () => "#dc2626", top + height - 8 * px, 8 * px, 2 * px);
      // the highlighted code's share of each column's samples
      if (c.ser) band((j) => level(c.ser[j]), (q) => HL[q], top + height - 18 * px, 9 * px, 1);
    }
    ctx.font = `${11 * px}px sans-serif`;
    ctx.setLineDash([4 * px, 3 * px]);
    for (const [t, label] of this.run.markers) {
      const x = X(t);
      ctx.strokeStyle = "#7c3aed";
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
      ctx.fillStyle = "#7c3aed";
      ctx.fillText(label, x + 3 * px, top + 12 * px);
    }
    for (const t of this.run.resets) {
      const x = X(t);
      ctx.strokeStyle = "#ea580c";
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
      ctx.fillStyle = "#ea580c";
      ctx.fillText("board reset", x + 3 * px, top + 26 * px);
    }
    ctx.setLineDash([]);
    ctx.restore();
    this.drawSelection();
  }

  // The selection as a box of its own over the plot: moving it redraws
  // nothing (a canvas redrawn each step is a new bitmap to composite).
  drawSelection() {
    const u = this.u;
    if (!this.selEl) {
      this.selEl = document.createElement("div");
      this.selEl.className = "sel";
      u.over.append(this.selEl);
    }
    const st = this.selEl.style;
    if (!this.sel) {
      st.display = "none";
      return;
    }
    const a = u.valToPos(this.run.edge(this.sel.A), "x"), b = u.valToPos(this.run.edge(this.sel.B), "x");
    const w = Math.round(u.bbox.width / uPlot.pxRatio);
    const l = Math.max(-2, Math.min(w + 2, a)), r = Math.max(-2, Math.min(w + 2, b));
    st.display = "";
    st.left = l + "px";
    st.width = Math.max(1, r - l) + "px";
  }

  drawOverview() {
    const cv = this.ovEl, px = window.devicePixelRatio || 1;
    // inside the box's border: the box is as wide as the plot
    const w = Math.max(100, this.u.width) - 2, h = 44;
    const r = this.run, span = this.full.t1 - this.full.t0;
    if (!this.ovCols || this.ovCols.w !== w) {
      // the whole run's columns change only with the width
      this.ovCols = { w, c: r.columns(this.full.t0, this.full.t1, w) };
      cv.width = w * px; cv.height = h * px; cv.style.width = w + "px"; cv.style.height = h + "px";
      this.ovBox.style.width = w + 2 + "px";  /* with its border (border-box) */
      const ctx = cv.getContext("2d");
      ctx.setTransform(px, 0, 0, px, 0, 0);
      ctx.clearRect(0, 0, w, h);
      const c = this.ovCols.c;
      const vals = this.power ? c.mean : c.busy;
      let hi = 0;
      for (const v of vals) if (v > hi) hi = v;
      ctx.fillStyle = "#94a3b8";
      for (let j = 0; j + 1 < c.x.length; j++) {
        const x0 = (c.x[j] - this.full.t0) / span * w, x1 = (c.x[j + 1] - this.full.t0) / span * w;
        const v = vals[j] / (hi || 1) * (h - 4);
        ctx.fillRect(x0, h - v, Math.max(1, x1 - x0), v);
      }
    }
    const ss = this.ovSel.style;
    if (this.sel) {
      const a = r.edge(this.sel.A) / span * w, b = r.edge(this.sel.B) / span * w;
      ss.display = "";
      ss.left = a + "px";
      ss.width = Math.max(1, b - a) + "px";
    } else {
      ss.display = "none";
    }
    const a = (this.view.t0 - this.full.t0) / span * w, b = (this.view.t1 - this.full.t0) / span * w;
    const vs = this.ovView.style;
    vs.left = a + "px";
    vs.width = Math.max(3, b - a) + "px";
  }

}

// values of another run's columns at the first run's column starts
function resample(xs, vs, at) {
  const out = new Float64Array(at.length);
  let j = 0;
  for (let i = 0; i < at.length; i++) {
    while (j + 1 < xs.length && xs[j + 1] <= at[i]) j++;
    out[i] = vs[j];
  }
  return out;
}

function trimZeros(v) {
  const s = String(+v.toPrecision(6));
  return s;
}
