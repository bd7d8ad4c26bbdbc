/* gs_ic_file.h: `--ic FILE`, a text file of bodies, one "x y z vx vy vz m" line each ('#'
 * comments and blank lines allowed), read one body at a time: whole (the layouts whose ranks hold
 * every body), or counted and then handed out by slices (the tree's domains layout, whose rank 0
 * reads it and no rank holds all of it). */
#ifndef GS_IC_FILE_H
#define GS_IC_FILE_H

#include <stdint.h>
#include <stdio.h>

#include "gs_error.h"
#include "gs_ic.h"

/* The longest line of an --ic file, its newline not counted. */
#define GS_IC_LINE_MAX 4095

/* An --ic file open for reading, at line `line` (the last one read). */
struct gs_ic_file {
  FILE *f;
  const char *path;
  uint64_t line;
};

/* Open path (a regular file only). GS_OK, or GS_USAGE with msg. */
int gs_ic_file_open(struct gs_ic_file *in, const char *path, struct gs_msg *msg);

/* The next body's x, y, z, vx, vy, vz, m into v: 1, or 0 at the end of the file, or -1 with msg
 * naming the file and line of the problem. */
int gs_ic_file_next(struct gs_ic_file *in, double v[7], struct gs_msg *msg);

void gs_ic_file_close(struct gs_ic_file *in);

/* Every body of the file at path into b (allocated here). GS_OK, or GS_USAGE with msg naming the
 * file and line of the first problem (a file without bodies is one). */
int gs_ic_file_read(const char *path, struct gs_bodies *b, struct gs_msg *msg);

/* The same checks, keeping nothing: the number of bodies into n. GS_OK, or GS_USAGE with msg (the
 * message gs_ic_file_read gives). */
int gs_ic_file_count(const char *path, uint64_t *n, struct gs_msg *msg);

#endif
