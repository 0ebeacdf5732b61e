/*
 * report_energy.h - report's joules per row for recordings made with
 * `record -t --energy SOURCE` (analysis/energy/eprofile.h): the time
 * profile as usual, then each domain's energy per row; pooled over several
 * recordings as per-run means with the spread of the runs.
 */
#ifndef EQ_REPORT_ENERGY_H
#define EQ_REPORT_ENERGY_H

#include "report_common.h"

/* 1 when every one of the n recordings has energy readings. */
int eq_report_has_energy(const struct eq_loaded_profile *lp, int n);
/* Writes profile (one recording's, or the pooled one) and the energy per
 * row of the n recordings into o->out; returns the exit status. */
int eq_report_energy(const struct eq_report_opts *o,
		     const struct eq_loaded_profile *lp, int n, const struct eq_profile *profile);

/* With call chains: print_cg(out, arg) prints the inclusive time profile
 * (in o->fmt), then each domain's children and self joules per procedure
 * (ep_build_children); JSON: the profile's object with "energy" added. */
int eq_report_energy_children(const struct eq_report_opts *o,
			      const struct eq_loaded_profile *lp,
			      void (*print_cg)(FILE *out, const void *arg), const void *arg);
#endif
