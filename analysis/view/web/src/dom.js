// dom.js - a few helpers to build the page.

export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k != null && k !== false) el.append(k);
  return el;
}

// A row of toggle buttons; onPick(value) when one is chosen.
export function choice(values, labels, current, onPick, attrs = {}) {
  const box = h("div", { class: "choice", role: "group", ...attrs });
  const buttons = values.map((v, i) => h("button", {
    type: "button", "data-value": v, class: v === current ? "on" : null,
    onclick: () => {
      buttons.forEach((b) => b.classList.toggle("on", b === buttons[i]));
      onPick(v);
    },
  }, labels[i]));
  box.append(...buttons);
  return box;
}

// A stable colour a name (modules in icicles).
export function hue(name) {
  let x = 2166136261;
  for (let i = 0; i < name.length; i++) x = Math.imul(x ^ name.charCodeAt(i), 16777619);
  return ((x >>> 0) % 360);
}
