# bench/record: what record --events costs a program (needs root and tracefs).
BENCHES += bench/record/events.sh
