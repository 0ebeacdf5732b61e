# test/view: eqprof view.  fmt.py checks the page's printf against
# Python's; sums.mjs runs the page's own arithmetic (in Node) against
# power/report --from/--to; view-cli.sh the command; browser.mjs drives the
# page in Debian's Chromium through playwright-core (analysis/view/web's
# devDependency, installed by `make viewer-deps`).
UNIT_TESTS += test/view/test_view
EQ_VIEW_INTEG = test/view/sums.mjs test/view/view-cli.sh
INTEG_TESTS += $(EQ_VIEW_INTEG) test/view/fmt.py test/view/browser.mjs
INTEG_SAN_TESTS += $(EQ_VIEW_INTEG)

# The screenshots of docs/viewer.md, from the browser test's views.
.PHONY: viewer-shots
viewer-shots: $(EQPROF) viewer viewer-deps
	@env EQPROF=$(abspath $(EQPROF)) B=$(abspath $(B)) SRC=$(CURDIR) SHOTS=$(CURDIR)/docs/img \
		test/view/browser.mjs >$(B)/viewer-shots.log || { tail -20 $(B)/viewer-shots.log; exit 1; }
	@echo "viewer-shots: docs/img/viewer-*.png"
