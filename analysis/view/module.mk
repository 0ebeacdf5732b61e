# analysis/view/: eqprof view.  The C side (view_build.c, view_json.c) is
# part of libeqanalysis through analysis/module.mk; web/ is the page: its
# JavaScript and styles with uPlot, bundled by esbuild into one HTML file,
# $(B)/viewer/viewer.html, which eqprof finds beside itself (or installed
# in $(PREFIX)/share/eqprof/).  The C build never needs Node.js; `make
# viewer` does (npm ci fetches the locked packages once, into web/node_modules).
VIEW_WEB      := analysis/view/web
VIEWER        := $(B)/viewer/viewer.html
VIEW_WEB_SRCS := $(wildcard $(VIEW_WEB)/src/*.js $(VIEW_WEB)/src/*.css) $(VIEW_WEB)/index.html \
		 $(VIEW_WEB)/build.mjs
VIEW_NPM_STAMP := $(VIEW_WEB)/node_modules/.package-lock.json

.PHONY: viewer viewer-deps
viewer: $(VIEWER)
viewer-deps: $(VIEW_NPM_STAMP)

# npm ci when node_modules is missing or older than the lock file.
$(VIEW_NPM_STAMP): $(VIEW_WEB)/package.json $(VIEW_WEB)/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || { \
		echo "make viewer: needs Node.js (18 or later) and npm; on Debian: apt-get install nodejs npm" >&2; exit 1; }
	$(if $(Q),@echo "  NPM     $(VIEW_WEB) (npm ci)")
	$(Q)cd $(VIEW_WEB) && npm ci --no-audit --no-fund --loglevel=error >/dev/null
	$(Q)touch $@

$(VIEWER): $(VIEW_WEB_SRCS) $(VIEW_NPM_STAMP)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  ESBUILD $@")
	$(Q)node $(VIEW_WEB)/build.mjs $@

CHECK_EXTRA += viewer-deps viewer
