/* gs_nbody_io.h: what leaves and enters an N-body run: checkpoints, snapshots, the state hash,
 * the output directory, and the checkpoint a run resumes from. */
#ifndef GS_NBODY_IO_H
#define GS_NBODY_IO_H

#include "gs_checkpoint.h"
#include "gs_nbody_job.h"

/* Every body's position, velocity and acceleration (npad each, global order) on rank 0; NULLs
 * elsewhere. Collective. The caller frees. All N on rank 0: the run's own checkpoints and hash
 * stream the slices instead (one at a time); tests compare whole states with this. */
void gs_nbody_io_gather(struct gs_nbody_job *job, void **pos, void **vel, void **acc);

/* Write a checkpoint of the state after `step` (collective). Returns GS_OK or GS_FAILED. */
int gs_nbody_io_checkpoint(struct gs_nbody_job *job, long step);

/* Write snapshot `index` of the state after `step` (collective). Returns GS_OK or GS_FAILED. */
int gs_nbody_io_snapshot(struct gs_nbody_job *job, int index, long step);

/* FNV-1a 64 of every real body's position and velocity in global order (valid on rank 0). */
uint64_t gs_nbody_io_hash(struct gs_nbody_job *job);

/* Before step 0 (collective): create --output (and its parents), check that it takes files,
 * refuse another run's checkpoints there unless --overwrite, and (with it too) any checkpoint
 * file at a step this run may write (gs_checkpoint_clash; resumed: the restart's checkpoint, or
 * NULL), clean dead writers' temporaries. Returns the agreed GS_OK, or GS_USAGE with msg. */
int gs_nbody_io_prepare(struct gs_nbody_job *job, const struct gs_ckpt_header *resumed, struct gs_msg *msg);

/* A checkpoint to resume from (collective: rank 0 reads and checks it against the options the
 * command line gives; every rank learns the header). GS_OK, or GS_USAGE with msg. */
int gs_nbody_io_restart(struct gs_nbody_job *job, struct gs_ckpt_header *h, struct gs_ckpt_reader **ckpt,
                        struct gs_msg *msg);

/* Adopt a checkpoint's run parameters into job and o. */
void gs_nbody_io_adopt(struct gs_nbody_job *job, const struct gs_ckpt_header *h, struct gs_nbody_opts *o);

#endif
