/* gs_options.h: the command line. The common options plus the chosen workload's own table
 * (struct gs_workload, gs_workload.h), parsed into struct gs_options (no globals) and validated
 * identically on every rank. */
#ifndef GS_OPTIONS_H
#define GS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gs_error.h"
#include "gs_workload.h"

#define GS_PATH_MAX 1024
#define GS_LIST_MAX 256

/* --backend values, in the order of the option's choice list. */
enum gs_backend_kind { GS_BACKEND_AUTO = 0, GS_BACKEND_CUDA, GS_BACKEND_CPU };

/* Options every subcommand takes. */
struct gs_common_opts {
  int backend;                  /* enum gs_backend_kind */
  char gpu_bind[GS_LIST_MAX];   /* "local", "none" or a comma list of device indices */
  int gpu_share;                /* allow several ranks of one node on the same GPU */
  char csv[GS_PATH_MAX];        /* append result rows to this CSV file ("" = none) */
  char json[GS_PATH_MAX];       /* write result rows to this JSON file ("" = none) */
};

/* Everything the command line says. */
struct gs_options {
  const struct gs_workload *wl; /* the subcommand (NULL: none given, the main job) */
  int help;                     /* --help given: print help for wl (or the program) and exit 0 */
  int version;                  /* --version given */
  struct gs_common_opts common;
  union {                       /* the workload's own options struct (gs_options_workload) */
    max_align_t align;
    unsigned char bytes[GS_WORKLOAD_OPTS_MAX];
  } wl_opts;
  char given[1024];             /* "|name|" of every option the command line gave */
};

/* Parse argv into o against the workloads of `table` (NULL-terminated). Returns GS_OK, or
 * GS_USAGE with msg filled. Pure: no MPI, no printing, so every rank reaches the same verdict
 * and tests can call it. */
int gs_options_parse(int argc, char **argv, const struct gs_workload *const *table, struct gs_options *o,
                     struct gs_msg *msg);

/* The chosen workload's options struct. */
const void *gs_options_workload(const struct gs_options *o);

/* Print the help of workload w (NULL: the program's, listing table's workloads) to f. */
void gs_options_help(FILE *f, const struct gs_workload *const *table, const struct gs_workload *w);

/* Parse an unsigned count: 123, 2^30, 256M (K/M/G/T = 2^10/2^20/2^30/2^40), 1e6.
 * Returns 0, or -1 not a number, -2 too large for 64 bits, -3 negative. */
int gs_options_parse_u64(const char *s, uint64_t *out);

/* Is s[0..len) the keyword `word`, in any case? Every keyword of every option is matched in any
 * case (the choices of a|b|c options, --kernel names, the --ic presets, --gpu-bind local and
 * none, --grid auto) and stored in its canonical lowercase spelling; a file name never is. */
int gs_options_keyword(const char *s, size_t len, const char *word);

/* Did the command line give option `name` (long name without "--")? */
int gs_options_given(const struct gs_options *o, const char *name);

/* Parse HH:MM:SS (or MM:SS, or SS) into seconds; -1 if malformed. */
double gs_options_parse_hms(const char *s);

#endif
