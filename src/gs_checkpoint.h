/* gs_checkpoint.h: checkpoint files of an N-body run: a fixed header, then every body's
 * position, velocity and acceleration in global order, with checksums of both; written
 * atomically, and a manifest (checkpoint.json) naming the newest complete one. */
#ifndef GS_CHECKPOINT_H
#define GS_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "gs_error.h"

#define GS_CKPT_MAGIC "GSCKPT01"

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
  char pad[512 - 208];   /* room for later fields */
};

/* FNV-1a 64 over len bytes, continuing from h (start with GS_FNV_OFFSET). */
#define GS_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t gs_checkpoint_hash(uint64_t h, const void *data, size_t len);

/* Write dir/checkpoint_<step>.gsck from h and the three arrays (each h->npad bodies), then
 * point dir/checkpoint.json at it and delete the file the old manifest named. Each file is
 * written to a temporary name, fsynced and renamed, so a crash leaves the last good checkpoint.
 * Fills h's sizes and sums. Returns 0, or -1 with msg. */
int gs_checkpoint_write(const char *dir, struct gs_ckpt_header *h, const void *pos, const void *vel,
                        const void *acc, struct gs_msg *msg);

/* Read the checkpoint at path: a .gsck file, or a directory whose checkpoint.json names one.
 * Checks magic, version, sizes (a truncated file), and both checksums (a corrupted one).
 * On success *payload (malloc'd) holds pos | vel | acc. Returns GS_OK, or GS_USAGE with msg. */
int gs_checkpoint_read(const char *path, struct gs_ckpt_header *h, void **payload, struct gs_msg *msg);

#endif
