# test/view: eqprof view.  sums.mjs runs the page's own arithmetic (in
# Node) against power/report --from/--to; browser.mjs drives the page in
# Debian's Chromium through playwright-core (analysis/view/web's devDependency).
EQ_VIEW_INTEG = test/view/sums.mjs test/view/view-cli.sh
INTEG_TESTS += $(EQ_VIEW_INTEG)
INTEG_SAN_TESTS += $(EQ_VIEW_INTEG)
