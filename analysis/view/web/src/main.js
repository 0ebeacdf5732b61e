// main.js - the page eqprof view writes: the recordings' data sits in the
// page (script#eqprof-data, analysis/view/view_json.c); nothing is fetched.
import "uplot/dist/uPlot.min.css";
import "./style.css";
import { Run } from "./model.js";
import { h } from "./dom.js";
import { RunView } from "./runview.js";
import { CompareView, DiffView } from "./pairviews.js";

function boot() {
  const t0 = performance.now();
  const perf = { parse_ms: 0, decode_ms: 0, load_ms: 0, update_ms: 0, updates: 0 };
  window.__eqprof = { perf };
  const text = document.getElementById("eqprof-data").textContent;
  const data = JSON.parse(text);
  perf.parse_ms = performance.now() - t0;
  const runs = data.runs.map((j, i) => new Run(j, i));
  perf.decode_ms = performance.now() - t0 - perf.parse_ms;
  const page = { perf, runs, views: [] };
  const tabs = h("nav", { class: "tabs", role: "tablist" });
  const body = h("main");
  const title = runs.map((r) => r.name).join(", ");
  document.title = "eqprof view: " + title;
  document.body.append(h("header", {}, h("h1", {}, "eqprof view"), h("span", { class: "files" }, title)), tabs, body);
  const panes = [];
  const show = (i) => {
    panes.forEach((p, k) => {
      p.el.hidden = k !== i;
      p.tab.classList.toggle("on", k === i);
      p.tab.setAttribute("aria-selected", k === i ? "true" : "false");
    });
    if (!panes[i].view) panes[i].view = panes[i].make(panes[i].el);
    window.__eqprof.current = panes[i].view;
  };
  const add = (label, kind, make) => {
    const el = h("div", { class: "pane", "data-kind": kind });
    const i = panes.length;
    const tab = h("button", { type: "button", role: "tab", "data-kind": kind, onclick: () => show(i) }, label);
    panes.push({ el, tab, make, view: null });
    tabs.append(tab);
    body.append(el);
  };
  runs.forEach((r) => add(r.name + (r.mode === "time" ? " (time)" : " (energy)"), "run",
    (el) => new RunView(el, r, page)));
  if (data.compare) add("time against energy", "compare", (el) => new CompareView(el, data.compare, runs));
  if (data.diff) add("two runs", "diff", (el) => new DiffView(el, data.diff, runs));
  window.__eqprof.show = show;
  window.__eqprof.panes = panes;
  window.__eqprof.runs = runs;
  show(0);
  perf.load_ms = performance.now() - t0;
  document.body.dataset.ready = "1";
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
