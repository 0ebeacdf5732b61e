/*
 * maps.h - the /proc/PID/maps text format: one mapping a line,
 *
 *   START-END PERMS OFFSET DEV INODE [PATH]
 *   55d0c4e00000-55d0c4e01000 r-xp 00001000 08:01 1234  /usr/bin/prog
 *
 * Parsed once per process into an array sorted by start address so that a
 * pc is placed with a binary search.
 */
#ifndef EQ_MAPS_H
#define EQ_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "util/eq_error.h"

#define EQ_MAP_R 0x1
#define EQ_MAP_W 0x2
#define EQ_MAP_X 0x4

struct eq_map {
	uint64_t start;      /* first address */
	uint64_t end;        /* one past the last address */
	uint64_t offset;     /* file offset of start */
	unsigned perms;      /* EQ_MAP_* */
	const char *path;    /* "" for anonymous mappings; points into eq_maps */
};

struct eq_maps {
	size_t n;
	struct eq_map *maps; /* sorted by start, non-overlapping */
	char *strings;       /* backing store of the paths */
};

/*
 * Parses text (len bytes, need not be NUL-terminated).  name names the
 * source in errors ("app.maps" or "recording pid 42"); errors give the line
 * and field.  Returns 0, or -1 with err and *m untouched.
 */
int eq_maps_parse(const char *text, size_t len, const char *name,
		  struct eq_maps *m, struct eq_error *err);
void eq_maps_release(struct eq_maps *m);

/*
 * The same text read as a log of mappings in the order they were made, as
 * a recorder writes them: a later line replaces what it overlaps of an
 * earlier one (a library loaded where another was unloaded, a JIT region
 * mapped again), as perf's maps do.  Overlaps are not errors here.
 */
int eq_maps_parse_log(const char *text, size_t len, const char *name,
		      struct eq_maps *m, struct eq_error *err);

/* The mapping containing pc, or NULL. */
const struct eq_map *eq_maps_find(const struct eq_maps *m, uint64_t pc);

/* The main executable: the first file-backed mapping's path, or NULL. */
const char *eq_maps_main_path(const struct eq_maps *m);

#endif
