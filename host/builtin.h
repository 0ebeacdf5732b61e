/*
 * builtin.h - eqprof's subcommands, perf/git style: one thin builtin-NAME.c
 * each, over the libraries in analysis/, sim/ and firmware/portable/.
 *
 * A builtin gets argv with argv[0] = its own name and returns the process
 * exit status: 0 success, 1 failure (message already printed), 2 usage error.
 */
#ifndef EQ_BUILTIN_H
#define EQ_BUILTIN_H

int cmd_import(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* eqprof report --attribute async: device energy to its causes (builtin-report-attrib.c) */
int cmd_report_attribute(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_power(int argc, char **argv);
/* eqprof power --by proc: power per procedure by regression (builtin-power-by.c) */
int cmd_power_by(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_record(int argc, char **argv);
/* eqprof record --target cortexm: a bare-metal target's frames (builtin-record-cortexm.c) */
int cmd_record_cortexm(int argc, char **argv);
int cmd_board(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_sources(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_view(int argc, char **argv);

#endif
