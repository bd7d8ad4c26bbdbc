/* gs_workload.h: what a workload is to the rest of gpusim: one entry of the table in gs_command.c
 * (name, summary, options, kernel names, main). The option parser, --help and the man page are
 * driven from that table and know nothing of any particular workload; adding a workload is its
 * own files plus one line of the table. Types only. */
#ifndef GS_WORKLOAD_H
#define GS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "gs_error.h"

struct gs_options;
struct gs_run;

enum gs_opt_kind { GS_OPT_FLAG, GS_OPT_INT, GS_OPT_COUNT, GS_OPT_STRING, GS_OPT_CHOICE, GS_OPT_REAL };

/* One option: where its value goes (an offset into the workload's own options struct, or into
 * struct gs_common_opts for the common table) and what it accepts. */
struct gs_opt {
  const char *name;     /* long name without "--" */
  int kind;             /* enum gs_opt_kind */
  size_t offset;        /* of the value */
  size_t size;          /* of the value, for strings */
  int64_t min, max;     /* accepted range for INT and COUNT */
  const char *choices;  /* "a|b|c" for CHOICE: stored as the index */
  const char *metavar;  /* shown in help */
  const char *help;     /* one line */
  const char *aliases;  /* CHOICE: other spellings, "alias=choice,...", any case (NULL: none) */
};

/* Offset and size of field f of struct type T, for an option table. */
#define GS_OPT_AT(T, f) offsetof(T, f), sizeof(((T *)0)->f)

struct gs_workload {
  const char *name;            /* the subcommand: "reduce" */
  const char *summary;         /* one line for --help */
  const struct gs_opt *opts;   /* its options, ending with an entry whose name is NULL */
  size_t opts_size;            /* bytes of its options struct (at most GS_WORKLOAD_OPTS_MAX) */
  /* Fill its options struct with the defaults (after a memset to 0). */
  void (*defaults)(void *opts);
  /* Cross-option checks once all are in (NULL: none); GS_OK or GS_USAGE with msg. Pure: the
   * same verdict on every rank. */
  int (*validate)(const struct gs_options *o, void *opts, struct gs_msg *msg);
  /* The names --kernel takes on any backend, NULL-terminated (NULL: no --kernel); the workload's
   * defaults fill them in from the backends' lists (gs_backend_names), and its options say how
   * many of the first ones may also be given by number. */
  const char *const *kernels;
  /* Run it (every rank); returns an exit status (enum gs_status). */
  int (*main)(struct gs_run *run);
};

#define GS_WORKLOAD_OPTS_MAX 8192 /* room for any workload's options struct */

#endif
