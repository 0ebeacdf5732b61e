/*
 * boardcmp.c - compares the board streams of two recordings (the built-in
 * counter model's and the firmware-in-simavr one's, for the same run):
 * prints "N M same dt" where N and M are the numbers of board records,
 * "same" how many leading records agree in seq and pulses, and dt the
 * largest difference of their timestamps (board clock ticks).
 *
 * usage: boardcmp A.eqp B.eqp
 */
#include <stdint.h>
#include <stdio.h>

#include "file/eqp.h"

int main(int argc, char **argv)
{
	struct eq_error err;
	struct eqp_file *a, *b;
	size_t na, nb, i;
	uint64_t dt = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: boardcmp A.eqp B.eqp\n");
		return 2;
	}
	a = eqp_open(argv[1], &err);
	b = a ? eqp_open(argv[2], &err) : NULL;
	if (!a || !b) {
		fprintf(stderr, "boardcmp: %s\n", err.msg);
		return 1;
	}
	na = eqp_nboard_records(a);
	nb = eqp_nboard_records(b);
	for (i = 0; i < na && i < nb; i++) {
		const struct eqp_board_rec *ra = eqp_board_record_at(a, i);
		const struct eqp_board_rec *rb = eqp_board_record_at(b, i);

		if (ra->seq != rb->seq || ra->pulses != rb->pulses)
			break;
		if ((ra->time > rb->time ? ra->time - rb->time : rb->time - ra->time) > dt)
			dt = ra->time > rb->time ? ra->time - rb->time : rb->time - ra->time;
	}
	printf("%zu %zu %zu %llu\n", na, nb, i, (unsigned long long)dt);
	eqp_close(a);
	eqp_close(b);
	return 0;
}
