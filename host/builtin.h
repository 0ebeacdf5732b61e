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
struct eq_report_opts;
struct eq_paths;
int cmd_report_attribute(const struct eq_report_opts *o, const struct eq_paths *models);
int cmd_compare(int argc, char **argv);
int cmd_power(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_record(int argc, char **argv);
/* eqprof record --target cortexm: a bare-metal target's frames (builtin-record-cortexm.c) */
struct cm_rec_opts;
int cmd_record_cortexm(struct cm_rec_opts *o, int argc, char **argv);
int cmd_board(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_sources(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_view(int argc, char **argv);

#endif
