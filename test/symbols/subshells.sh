# subshells.sh - a shell whose work runs in a background job and a
# subshell: both are forks of the shell without exec.
f() { i=0; while [ $i -lt "$1" ]; do i=$((i + 1)); done; }
f "$1" &
(f "$1")
wait
