// build.mjs - bundles the viewer into one HTML file (node build.mjs OUT.html):
// esbuild puts src/main.js, uPlot and the styles together, and both go
// inline into index.html, whose data placeholder eqprof view fills.
import * as esbuild from "esbuild";
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error("usage: node build.mjs OUT.html");
  process.exit(2);
}
const res = await esbuild.build({
  entryPoints: [join(here, "src/main.js")],
  bundle: true,
  minify: !process.env.VIEWER_NOMINIFY,
  format: "iife",
  target: ["es2020"],
  write: false,
  outdir: "out",
  legalComments: "inline",
  logLevel: "warning",
});
let js = "", css = "";
for (const f of res.outputFiles) {
  if (f.path.endsWith(".js")) js = f.text;
  else if (f.path.endsWith(".css")) css = f.text;
}
// the page must not end its own script element early
js = js.replace(/<\/(script)/gi, "<\\/$1");
const page = readFileSync(join(here, "index.html"), "utf8")
  .replace("/*EQPROF_CSS*/", () => css)
  .replace("/*EQPROF_JS*/", () => js);
if (page.split('"__EQPROF_VIEW_DATA__"').length !== 2) {
  console.error("build.mjs: the data placeholder must be in the page exactly once");
  process.exit(1);
}
writeFileSync(out + ".tmp", page);
renameSync(out + ".tmp", out);
