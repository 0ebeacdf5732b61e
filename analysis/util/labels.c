/*
 * labels.c - shortest distinguishing ends of paths; see labels.h.
 */
#include "util/labels.h"

#include <string.h>

/* The last k components of p ("" separators at the end ignored), or p
 * itself when it has k or fewer; *whole says which. */
static const char *tail(const char *p, size_t k, int *whole)
{
	size_t len = strlen(p), seen = 0;

	while (len > 1 && p[len - 1] == '/')
		len--;
	while (len > 0) {
		if (p[len - 1] == '/' && ++seen == k) {
			*whole = 0;
			return p + len;
		}
		len--;
	}
	*whole = 1;
	return p;
}

/* Do a and b read the same over their ends, up to a trailing '/'? */
static int same_tail(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && !memcmp(a, b, la);
}

void eq_path_labels(const char *const *paths, size_t n, const char **labels)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		int whole = 0;

		for (k = 1;; k++) {
			const char *mine = tail(paths[i], k, &whole);
			int clash = 0;

			for (j = 0; j < n && !clash; j++) {
				int w;

				if (j != i && strcmp(paths[j], paths[i]) &&
				    same_tail(tail(paths[j], k, &w), mine))
					clash = 1;
			}
			if (!clash || whole) {
				labels[i] = mine;
				break;
			}
		}
	}
}
