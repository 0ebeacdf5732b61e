/* perf_data.h - a perf.data file holding the samples of a synthetic .eqp, so
 * that perf report reads the same samples as eqprof report (bench/speed). */
#ifndef EQ_BENCH_PERF_DATA_H
#define EQ_BENCH_PERF_DATA_H

#include <stdint.h>
#include <stdio.h>

#include "eq_sample.h"

struct perf_data;

/* A perf.data at path, one event (cpu-clock, period_ns a sample) whose
 * samples carry ip, pid/tid, time, cpu and period; exits with
 * "speed_rec: path: why" on an error. */
struct perf_data *perf_data_create(const char *path, uint64_t period_ns);
/* pid's name (PERF_RECORD_COMM) and its executable mappings, taken from
 * /proc/PID/maps lines (PERF_RECORD_MMAP2 for each one that executes). */
void perf_data_process(struct perf_data *p, uint32_t pid, const char *comm, const char *maps);
/* n samples as PERF_RECORD_SAMPLE, then a PERF_RECORD_FINISHED_ROUND, as perf
 * record writes one after each pass over its ring buffers. */
void perf_data_samples(struct perf_data *p, const struct eq_sample *s, size_t n);
/* Writes the header (sizes of the sections) and closes the file. */
void perf_data_close(struct perf_data *p);

#endif
