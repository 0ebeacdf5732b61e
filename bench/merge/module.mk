# bench/merge: the alignment of a recording with a long board log (eqprof merge).
BENCHES += bench/merge/align.sh
