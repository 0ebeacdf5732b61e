# tap.sh - TAP output for the integration test scripts; source it.
#
#   ok WHAT / not_ok WHAT          one result
#   check WHAT COMMAND [ARGS]...   runs COMMAND: ok when it exits 0; when it
#                                  fails its output follows as TAP comments
#   check_status STATUS WHAT       ok when STATUS is 0
#   tap_plan                       the plan line, "1..N", at the end
tap_n=0

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }

check() {
	local what=$1 log
	shift
	log=$(mktemp)
	if "$@" >"$log" 2>&1; then
		ok "$what"
	else
		not_ok "$what"
		sed 's/^/# /' "$log" | head -n 20
	fi
	rm -f "$log"
}

check_status() {
	local status=$1
	shift
	if [ "$status" -eq 0 ]; then ok "$@"; else not_ok "$@"; fi
}

tap_plan() { echo "1..$tap_n"; }
