// icicle.js - a flame graph hanging from the top (an icicle), drawn on a
// canvas: the whole at the top, callees below, widths by samples.  No
// maintained component fits (they want their own data model and a DOM node
// a frame); this one draws a few thousand frames in a millisecond.

const ROW = 18;

export class Icicle {
  // opts: {color(node), label(node), tip(node), onClick(node)}
  constructor(el, opts) {
    this.el = el;
    this.opts = opts;
    this.cv = document.createElement("canvas");
    this.tip = document.createElement("div");
    this.tip.className = "tip";
    el.classList.add("icicle");
    el.append(this.cv, this.tip);
    this.root = null;
    this.focus = null;       // the node shown full width (click zooms)
    this.chosen = null;
    this.boxes = [];
    this.cv.addEventListener("mousemove", (ev) => this.hover(ev));
    this.cv.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    this.cv.addEventListener("click", (ev) => this.click(ev));
    // the width comes from the observer: reading it while drawing would make
    // the browser lay the page out again in the middle of a drag
    this.width = 0;
    new ResizeObserver((es) => {
      const w = Math.floor(es[0].contentRect.width);
      if (w !== this.width) { this.width = w; this.draw(); }
    }).observe(el);
  }

  setTree(root, keep) {
    const oldFocus = this.focus && this.focus.key.join(","), oldChosen = this.chosen && this.chosen.key.join(",");
    this.root = root;
    this.focus = keep && oldFocus ? find(root, oldFocus) || root : root;
    this.chosen = keep && oldChosen ? find(root, oldChosen) : null;
    this.draw();
  }

  depthOf(n) {
    let d = 0;
    for (const c of n.children.values()) d = Math.max(d, this.depthOf(c));
    return d + 1;
  }

  draw() {
    if (!this.width) this.width = this.el.clientWidth;
    const w = Math.max(200, this.width), px = window.devicePixelRatio || 1;
    const root = this.root;
    const rows = root ? Math.min(60, this.depthOf(root)) : 1;
    const h = rows * ROW + 2;
    if (this.cv.width !== w * px || this.cv.height !== h * px) {
      this.cv.width = w * px;
      this.cv.height = h * px;
      this.cv.style.width = w + "px";
      this.cv.style.height = h + "px";
    }
    const ctx = this.cv.getContext("2d");
    ctx.setTransform(px, 0, 0, px, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = "12px sans-serif";
    ctx.textBaseline = "middle";
    this.boxes = [];
    if (!root || !root.value) {
      ctx.fillStyle = "#64748b";
      ctx.fillText("no samples in the range", 8, ROW / 2);
      return;
    }
    // the ancestors of the focus stay as full-width bars above it
    const path = pathTo(root, this.focus);
    path.forEach((n, d) => this.box(ctx, n, 0, w, d, true));
    this.layout(ctx, this.focus, 0, w, path.length, rows);
  }

  layout(ctx, n, x, w, d, rows) {
    this.box(ctx, n, x, w, d, false);
    if (d + 1 >= rows) return;
    const kids = [...n.children.values()].sort((a, b) => b.weight - a.weight || (a.name < b.name ? -1 : 1));
    let cx = x;
    for (const c of kids) {
      const cw = w * c.weight / n.weight;
      if (cw >= 0.5) this.layout(ctx, c, cx, cw, d + 1, rows);
      cx += cw;
    }
  }

  box(ctx, n, x, w, d, ancestor) {
    const y = d * ROW;
    ctx.fillStyle = this.opts.color(n);
    ctx.fillRect(x + 0.5, y + 0.5, Math.max(0.5, w - 1), ROW - 1);
    if (n === this.chosen) {
      ctx.strokeStyle = "#0f172a";
      ctx.lineWidth = 2;
      ctx.strokeRect(x + 1, y + 1, Math.max(1, w - 2), ROW - 2);
    }
    if (n.mark) {
      ctx.strokeStyle = "#111827";
      ctx.setLineDash([3, 2]);
      ctx.lineWidth = 1.5;
      ctx.strokeRect(x + 1.5, y + 1.5, Math.max(1, w - 3), ROW - 3);
      ctx.setLineDash([]);
    }
    if (w > 30) {
      ctx.fillStyle = "#0f172a";
      const text = this.opts.label(n);
      ctx.save();
      ctx.beginPath();
      ctx.rect(x, y, w - 2, ROW);
      ctx.clip();
      ctx.fillText(text, x + 4, y + ROW / 2);
      ctx.restore();
    }
    this.boxes.push({ n, x, y, w, ancestor });
  }

  at(ev) {
    const r = this.cv.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
    for (let i = this.boxes.length - 1; i >= 0; i--) {
      const b = this.boxes[i];
      if (x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + ROW) return b;
    }
    return null;
  }

  hover(ev) {
    const b = this.at(ev);
    if (!b) { this.tip.style.display = "none"; return; }
    this.tip.textContent = this.opts.tip(b.n);
    this.tip.style.display = "block";
    const r = this.el.getBoundingClientRect();
    this.tip.style.left = Math.min(ev.clientX - r.left + 12, r.width - 260) + "px";
    this.tip.style.top = ev.clientY - r.top + 14 + "px";
  }

  click(ev) {
    const b = this.at(ev);
    if (!b) return;
    // a click chooses a frame (and shows where in time it ran); a click on
    // the chosen one zooms into it, on an ancestor bar zooms out to it
    if (b.ancestor || b.n === this.chosen) this.focus = b.n;
    this.chosen = b.n;
    this.draw();
    if (this.opts.onClick) this.opts.onClick(b.n);
  }

  // choose the frame of this key (tests, keyboard)
  choose(key) {
    const n = find(this.root, key.join(","));
    if (!n) return null;
    this.chosen = n;
    this.draw();
    if (this.opts.onClick) this.opts.onClick(n);
    return n;
  }
}

function find(root, key) {
  if (!root) return null;
  if (root.key.join(",") === key) return root;
  for (const c of root.children.values()) {
    const f = find(c, key);
    if (f) return f;
  }
  return null;
}

function pathTo(root, n) {
  const out = [];
  let cur = root;
  out.push(cur);
  for (let d = 0; cur !== n && d < n.key.length; d++) {
    cur = cur.children.get(n.key[d]);
    if (!cur) break;
    out.push(cur);
  }
  out.pop();
  return out;
}
