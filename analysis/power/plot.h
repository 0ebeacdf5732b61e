/*
 * plot.h - plots drawn by gnuplot, run as a process.
 *
 * A plot is a private temporary directory holding the data files and the
 * script; plot_render() adds the terminal for the output's extension (.png:
 * pngcairo, .svg: svg), runs `gnuplot SCRIPT`, checks its exit status and
 * the file it wrote (PNG signature / SVG root), and copies it into the
 * output (outfile.h: atomic, never through a planted name).
 * Nothing is drawn by hand, and an existing output is never half-written.
 */
#ifndef EQ_PLOT_H
#define EQ_PLOT_H

#include <stdio.h>

#include "eq_error.h"

enum plot_kind { PLOT_NONE = 0, PLOT_PNG, PLOT_SVG };

struct plot {
	char dir[256];             /* private temporary directory */
	int ndata;
	FILE *script;              /* the caller writes plot commands here */
	char script_path[300];
};

/* What an output name asks for: PNG, SVG, or neither (the caller writes CSV). */
enum plot_kind plot_kind_of(const char *path);

int plot_begin(struct plot *p, struct eq_error *err);
/* A new data file in the plot's directory; its name goes into path. */
FILE *plot_data(struct plot *p, char *path, size_t size, struct eq_error *err);
/* Writes `s` as a gnuplot single-quoted string (quotes doubled). */
void plot_quote(FILE *script, const char *s);
/* Runs gnuplot on the script and puts the image at out. */
int plot_render(struct plot *p, const char *out, int width, int height,
		struct eq_error *err);
/* The same, writing the image into an output the caller opened (and
 * commits); out names it and chooses the format. */
struct eq_outfile;
int plot_render_to(struct plot *p, struct eq_outfile *o, const char *out, int width,
		   int height, struct eq_error *err);
/* Removes the temporary directory. */
void plot_end(struct plot *p);

/* Checks that a file is a complete PNG or SVG image (used by tests too). */
int plot_check_image(const char *path, enum plot_kind kind, struct eq_error *err);

#endif
