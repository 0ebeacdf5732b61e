/*
 * labels.h - what names a recording in a table row, a plot's legend or a
 * CSV column when several are shown together: the shortest end of its path
 * that tells it from the others (music/energy.eqp and silent/energy.eqp,
 * not energy.eqp twice), as a user would shorten them by hand.
 */
#ifndef EQ_LABELS_H
#define EQ_LABELS_H

#include <stddef.h>

/*
 * For each of the n paths, labels[i] points into paths[i]: its last k
 * components ("a/b/c.eqp": k = 1 is "c.eqp", 2 "b/c.eqp"), k the fewest
 * that no other path's last k components spell, or the whole path when no
 * k does.  One path gets its base name; paths given twice get the same
 * label.
 */
void eq_path_labels(const char *const *paths, size_t n, const char **labels);

#endif
