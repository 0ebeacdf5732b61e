// hist.js - the range's power histogram: percentage of the intervals ending
// in it per logarithmic bin (power --hist --bucket 16/decade --split-idle),
// busy and idle stacked.
import { FINE, binEdge } from "./model.js";
import { fixed, general, quantity } from "./fmt.js";

export class Hist {
  constructor(el, perDecade = 16) {
    this.el = el;
    this.per = perDecade;
    this.cv = document.createElement("canvas");
    this.tip = document.createElement("div");
    this.tip.className = "tip";
    el.classList.add("hist");
    el.append(this.cv, this.tip);
    this.cv.addEventListener("mousemove", (ev) => this.hover(ev));
    this.cv.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    this.width = 0;  // from the observer: no layout read while drawing
    new ResizeObserver((es) => {
      const w = Math.floor(es[0].contentRect.width);
      if (w !== this.width) { this.width = w; this.draw(); }
    }).observe(el);
  }

  // bins: fine bin -> [all, idle] (Run.histBins)
  set(bins, idleKnown) {
    const group = FINE / this.per, m = new Map();
    let total = 0;
    for (const [k, v] of bins) {
      const b = Math.floor(k / group);
      const x = m.get(b) || [0, 0];
      x[0] += v[0];
      x[1] += v[1];
      m.set(b, x);
      total += v[0];
    }
    const keys = [...m.keys()].sort((a, b) => a - b);
    // what power --hist's CSV prints: bucket edges (%.6g) and percentages (%.6f)
    this.rows = keys.map((b) => {
      const [all, idle] = m.get(b);
      return { b, lo: binEdge(b, this.per), hi: binEdge(b + 1, this.per),
        idle: 100 * idle / total, busy: 100 * (all - idle) / total };
    });
    this.idleKnown = idleKnown;
    this.total = total;
    this.el.dataset.bins = JSON.stringify(this.rows.map((r) =>
      [general(r.lo, 6), general(r.hi, 6), fixed(r.idle, 6), fixed(r.busy, 6)]));
    this.draw();
  }

  draw() {
    if (!this.width) this.width = this.el.clientWidth;
    const w = Math.max(200, this.width), hgt = 190, px = window.devicePixelRatio || 1;
    if (this.cv.width !== w * px || this.cv.height !== hgt * px) {
      this.cv.width = w * px; this.cv.height = hgt * px;
      this.cv.style.width = w + "px"; this.cv.style.height = hgt + "px";
    }
    const ctx = this.cv.getContext("2d");
    ctx.setTransform(px, 0, 0, px, 0, 0);
    ctx.clearRect(0, 0, w, hgt);
    this.boxes = [];
    if (!this.rows || !this.rows.length) {
      ctx.fillStyle = "#64748b";
      ctx.font = "12px sans-serif";
      ctx.fillText("no interval ends in the range", 10, 20);
      return;
    }
    const L = 44, R = 8, T = 8, B = 34, pw = w - L - R, ph = hgt - T - B;
    const b0 = this.rows[0].b - 1, b1 = this.rows[this.rows.length - 1].b + 2;
    let top = 0;
    for (const r of this.rows) top = Math.max(top, r.idle + r.busy);
    top = niceTop(top);
    const X = (b) => L + (b - b0) / (b1 - b0) * pw, Y = (v) => T + ph - v / top * ph;
    ctx.strokeStyle = "#cbd5e1";
    ctx.fillStyle = "#475569";
    ctx.font = "11px sans-serif";
    for (let i = 0; i <= 4; i++) {
      const v = top * i / 4, y = Y(v);
      ctx.beginPath(); ctx.moveTo(L, y); ctx.lineTo(L + pw, y); ctx.stroke();
      ctx.fillText(general(v, 3) + "%", 4, y + 4);
    }
    // decades on the axis
    for (let d = Math.ceil(b0 / this.per); d * this.per <= b1; d++) {
      const x = X(d * this.per);
      ctx.fillText(quantity(binEdge(d * this.per, this.per), "W"), x - 14, T + ph + 14);
      ctx.beginPath(); ctx.moveTo(x, T + ph); ctx.lineTo(x, T + ph + 4); ctx.stroke();
    }
    ctx.fillText("power of the interval before each sample (" + this.per + " bins a decade)", L, hgt - 4);
    for (const r of this.rows) {
      const x0 = X(r.b) + 0.5, x1 = X(r.b + 1) - 0.5;
      ctx.fillStyle = "#2563eb";
      ctx.fillRect(x0, Y(r.busy), x1 - x0, Y(0) - Y(r.busy));
      ctx.fillStyle = "#9ca3af";
      ctx.fillRect(x0, Y(r.busy + r.idle), x1 - x0, Y(r.busy) - Y(r.busy + r.idle));
      this.boxes.push({ r, x0, x1 });
    }
    ctx.fillStyle = "#2563eb"; ctx.fillRect(L + pw - 150, T, 10, 10);
    ctx.fillStyle = "#475569"; ctx.fillText("busy", L + pw - 136, T + 9);
    if (this.idleKnown) {
      ctx.fillStyle = "#9ca3af"; ctx.fillRect(L + pw - 90, T, 10, 10);
      ctx.fillStyle = "#475569"; ctx.fillText("idle", L + pw - 76, T + 9);
    }
  }

  hover(ev) {
    const rect = this.cv.getBoundingClientRect(), x = ev.clientX - rect.left;
    const b = (this.boxes || []).find((q) => x >= q.x0 - 0.5 && x < q.x1 + 0.5);
    if (!b) { this.tip.style.display = "none"; return; }
    const r = b.r;
    this.tip.textContent = `${quantity(r.lo, "W")} to ${quantity(r.hi, "W")}: ` +
      `${fixed(r.busy + r.idle, 6)}% of the intervals` +
      (this.idleKnown ? ` (${fixed(r.idle, 6)}% idle, ${fixed(r.busy, 6)}% busy)` : "");
    this.tip.style.display = "block";
    this.tip.style.left = Math.min(x + 12, rect.width - 280) + "px";
    this.tip.style.top = (ev.clientY - rect.top + 12) + "px";
  }
}

function niceTop(v) {
  if (!(v > 0)) return 1;
  const e = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * e >= v) return m * e;
  return 10 * e;
}
