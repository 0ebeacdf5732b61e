/*
 * knots.h - the matched edges of a merged recording (board_align_knots:
 * "BOARD_NS:TARGET_NS ..." ascending in both, docs/format.md), and the map
 * from the board's clock to the target's they give.  No dependency on the
 * reader: the parsers' fuzz target links it alone.
 */
#ifndef EQ_KNOTS_H
#define EQ_KNOTS_H

#include <stddef.h>

struct eq_knots {
	size_t n;
	double *board_ns, *target_ns;
};

/* Parses text (NULL: none, 0 knots); 0, or -1 when it is malformed (not
 * pairs of finite numbers, not ascending in both) or memory ran out. */
int eq_knots_parse(const char *text, struct eq_knots *k);
void eq_knots_free(struct eq_knots *k);
/* Target ns of board ns b by linear interpolation; NAN outside the knots
 * or with fewer than two. */
double eq_knots_map(const struct eq_knots *k, double b);

#endif
