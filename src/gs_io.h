/* gs_io.h: N-body snapshots for analysis tools: HDF5 in the GADGET layout (yt, pynbody, h5py
 * read it), written collectively with parallel HDF5 when the library is parallel; without HDF5,
 * a documented raw binary file with a JSON sidecar (docs/snapshot-format.md). */
#ifndef GS_IO_H
#define GS_IO_H

#include <mpi.h>
#include <stdint.h>

#include "gs_error.h"
#include "gs_snapshot.h"

/* Write DIR/snapshot_NNN.hdf5 (or .bin + .json) for snapshot number index, atomically (a
 * temporary name in DIR, then rename by rank 0 after every rank is done). Collective on comm:
 * every rank passes the same dir, index, n_total, time, step, G, eps and ic. Rank 0 creates DIR
 * (and its parents) if missing. Returns GS_OK, or GS_FAILED with the same msg on every rank
 * (never aborts, never leaves the other ranks waiting). */
int gs_io_write_snapshot(const char *dir, int index, const struct gs_snapshot *s, MPI_Comm comm, struct gs_msg *msg);

/* The format this build writes: "HDF5 (parallel, collective)", "HDF5 (serial, via rank 0)" or
 * "raw binary + JSON". */
const char *gs_io_format(void);

/* The least index in [first, last] of a snapshot file in DIR, of any format (snapshot_NNN.hdf5,
 * .bin or .json), with its file name in name; -1 if none (or DIR cannot be read). Local, no MPI:
 * a run asks before step 0 whether it would replace another run's snapshots. */
int gs_io_find_snapshot(const char *dir, int first, int last, char *name, size_t size);

#endif
