/*
 * plot.h - plots drawn by gnuplot, run as a process.
 *
 * A plot is a private temporary directory holding the data files and the
 * script; plot_render() adds the terminal for the output's extension (.png:
 * pngcairo, .svg: svg, .pdf: pdfcairo, .jpg/.jpeg: jpeg), runs `gnuplot
 * SCRIPT`, checks its exit status and the file it wrote (the format's
 * signature and end), and copies it into the output (outfile.h: atomic,
 * never through a planted name).
 * Nothing is drawn by hand, and an existing output is never half-written.
 */
#ifndef EQ_PLOT_H
#define EQ_PLOT_H

#include <stdio.h>

#include "util/eq_error.h"

enum plot_kind { PLOT_NONE = 0, PLOT_PNG, PLOT_SVG, PLOT_PDF, PLOT_JPEG };

/* The extensions plot_kind_of() knows, for messages. */
#define PLOT_FORMATS ".png, .svg, .pdf or .jpg"

struct plot {
	char dir[256];             /* private temporary directory */
	int ndata;
	FILE *script;              /* the caller writes plot commands here */
	char script_path[300];
};

/* What an output name asks for: an image kind, or PLOT_NONE (no image
 * extension: the caller writes CSV). */
enum plot_kind plot_kind_of(const char *path);

/*
 * An output that is either data or a plot: 0 when path is "-" (standard
 * output), ends in .csv (data) or in an image extension; else -1 with err
 * naming what `what` (e.g. "--trace") writes, so that `--hist h.jpeg2` is
 * refused instead of silently written as CSV.
 */
int plot_check_output(const char *path, const char *what, struct eq_error *err);

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
