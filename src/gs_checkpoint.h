/* gs_checkpoint.h: checkpoint files of an N-body run: a fixed header, then every body's
 * position, velocity and acceleration in global order, with checksums of both; written
 * atomically, and a manifest (checkpoint.json) naming the newest complete one. */
#ifndef GS_CHECKPOINT_H
#define GS_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "gs_error.h"

#define GS_CKPT_MAGIC "GSCKPT01"
#define GS_CKPT_TILE 128          /* bodies per tile: npad is n rounded up to it (GS_NBODY_TILE) */
#define GS_CKPT_MAX_N (1ULL << 31) /* the largest --n */
#define GS_CKPT_MAX_STEP 100000000 /* the largest --steps */
#define GS_CKPT_MAX_LEAF 1024      /* the largest --leaf */
#define GS_CKPT_MAX_ORDER 8        /* the largest --fmm-order (GS_FMM_ORDER_MAX) */
#define GS_CKPT_NAME 64            /* room for a checkpoint file's name */

/* What a checkpoint says about the run (little-endian on disk, 512 bytes). */
struct gs_ckpt_header {
  char magic[8];          /* GS_CKPT_MAGIC */
  uint32_t version;       /* 1 */
  uint32_t header_bytes;  /* sizeof(struct gs_ckpt_header) */
  uint64_t step;          /* steps done */
  double time;            /* simulated time */
  uint64_t n, npad;       /* bodies, and padded to whole tiles */
  int32_t precision;      /* 0 single, 1 double */
  int32_t law;            /* enum gs_nbody_law */
  int32_t ranks;          /* ranks of the run that wrote it */
  int32_t kernel;         /* force kernel of the simulation */
  double dt, eps, G, eps2, cut2;
  double e0;              /* energy at step 0, for |dE/E0| after a restart */
  uint64_t seed;
  char ic[64];            /* initial conditions it started from */
  uint64_t payload_bytes; /* 3 * npad * (16 or 32) */
  uint64_t payload_sum;   /* FNV-1a 64 of the payload */
  uint64_t header_sum;    /* FNV-1a 64 of this header with header_sum = 0 */
  int32_t solver;         /* enum gs_nbody_solver_id (0 direct: also every checkpoint written before it; 2 fmm) */
  int32_t opening;        /* the tree's: enum gs_tree_opening */
  double theta, alpha;    /* the tree's (0 for direct) */
  int32_t leaf;           /* the tree's (0: the backend's choice) */
  int32_t p0_set;         /* 1: p0 is the momentum at step 0 (0: a checkpoint written before it) */
  double p0[3];           /* for the momentum drift |P - P0| after a restart */
  uint64_t tree_cell;     /* the tree's --tree-cell (0: its default, or a checkpoint written before it): the
                           * CUDA tree's groups never span a cell, so a restart must cut the same cells */
  int32_t order;          /* the fast multipole solver's expansion order (theta: its opening; 0 for the others) */
  char pad[512 - 276];   /* room for later fields */
};

/* FNV-1a 64 over len bytes, continuing from h (start with GS_FNV_OFFSET). */
#define GS_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t gs_checkpoint_hash(uint64_t h, const void *data, size_t len);

/* Write dir/checkpoint_<step>.gsck from h and the three arrays (each h->npad bodies), then
 * point dir/checkpoint.json at it and delete prev, the file this run wrote last ("" if none;
 * updated to the new name). Nothing else is deleted or replaced: a file of the same name that
 * this run did not write is kept if it holds the same state (the manifest names it, and prev
 * becomes "": it is never this run's to delete), else refused. The file is written
 * to a temporary name (with host and pid), fsynced and renamed, so a crash leaves the last good
 * checkpoint. The directory must exist. Fills h's sizes and sums. Returns 0, or -1 with msg. */
int gs_checkpoint_write(const char *dir, struct gs_ckpt_header *h, const void *pos, const void *vel,
                        const void *acc, char prev[GS_CKPT_NAME], struct gs_msg *msg);

/* The same write in parts, so that its writer never holds the whole state: begin (h's fields but
 * the sizes and sums; NULL when out of memory), then the payload's bytes in file order (pos, vel,
 * acc, each h->npad vectors) in pieces of any size, then end, which checks that they were all
 * given and does the rest of what gs_checkpoint_write does (h gets the sizes and sums). A failed
 * write is remembered and told by end; end frees the writer in every case. */
struct gs_ckpt_writer;
struct gs_ckpt_writer *gs_checkpoint_begin(const char *dir, const struct gs_ckpt_header *h, const char *prev);
void gs_checkpoint_add(struct gs_ckpt_writer *w, const void *data, size_t bytes);
int gs_checkpoint_end(struct gs_ckpt_writer *w, struct gs_ckpt_header *h, char prev[GS_CKPT_NAME],
                      struct gs_msg *msg);

/* Read the checkpoint at path: a regular .gsck file, or a directory (its newest complete
 * checkpoint, gs_checkpoint_latest). Checks magic, version, every header field (its meaning,
 * not just its checksum), sizes (a truncated file), both checksums (a corrupted one), and every
 * value of the data (finite, masses >= 0: what an --ic file may hold; a checksum is no proof).
 * On success *payload (malloc'd) holds pos | vel | acc. Returns GS_OK, or GS_USAGE with msg. */
int gs_checkpoint_read(const char *path, struct gs_ckpt_header *h, void **payload, struct gs_msg *msg);

/* The same checks without holding the payload: the file opened, its header checked, its payload
 * read through once (a chunk at a time) for the checksum and the values; then parts of it read
 * where the caller wants them (offset in bytes from the payload's start: pos, vel, acc, each
 * h->npad vectors), so that rank 0 hands out a restart's slices one at a time. *r NULL unless
 * GS_OK. read_part: GS_OK, or GS_USAGE with msg (a read error, or bytes past the payload). */
struct gs_ckpt_reader;
int gs_checkpoint_open_payload(const char *path, struct gs_ckpt_header *h, struct gs_ckpt_reader **r,
                               struct gs_msg *msg);
int gs_checkpoint_read_part(struct gs_ckpt_reader *r, uint64_t offset, void *buf, size_t bytes, struct gs_msg *msg);
void gs_checkpoint_close(struct gs_ckpt_reader *r);

/* Check every header field against its meaning; GS_OK, or GS_USAGE with msg naming the field. */
int gs_checkpoint_validate(const struct gs_ckpt_header *h, struct gs_msg *msg);

/* Is name a checkpoint file's own name, checkpoint_<9 to 18 digits>.gsck? Its step in *step. */
int gs_checkpoint_name_step(const char *name, uint64_t *step);

/* Do two headers describe the same run (N, precision, force law and constants, dt, eps, seed, ic)? */
int gs_checkpoint_same_run(const struct gs_ckpt_header *a, const struct gs_ckpt_header *b);

/* The newest complete checkpoint in dir: the highest step of the checkpoint_<step>.gsck files
 * with a sound header and their full size, of the run the manifest's file belongs to (if it
 * names one that is sound), so a file left unreferenced by a crash before the manifest moved
 * still wins. Its name and header; 0, or -1 if there is none. */
int gs_checkpoint_latest(const char *dir, char *name, size_t size, struct gs_ckpt_header *h);

/* Before a run writes into dir: GS_OK if dir holds no checkpoint, or (resuming) only the
 * checkpoints of the run described by `run`; else GS_USAGE with msg (another run's files). */
int gs_checkpoint_claim(const char *dir, const struct gs_ckpt_header *run, int resuming, struct gs_msg *msg);

/* Before a run writes into dir, with or without --overwrite: GS_OK unless dir holds a file
 * named checkpoint_<step>.gsck with first <= step <= last (the steps the run may checkpoint: a
 * stop may come at any of them), which the run could only fail on, since it never replaces a
 * file it did not write. resumed: the checkpoint a restart loaded (NULL for a new run); its own
 * state at its step is no clash (a stop in the first step writes the same bits). GS_USAGE with
 * msg naming the lowest such file. */
int gs_checkpoint_clash(const char *dir, uint64_t first, uint64_t last, const struct gs_ckpt_header *resumed,
                        struct gs_msg *msg);

/* Delete the temporary files that writers on this host left in dir when they died. */
void gs_checkpoint_clean(const char *dir);

#endif
