/* gs_io_raw.h: the raw binary + JSON snapshot writer (built without HDF5). */
#ifndef GS_IO_RAW_H
#define GS_IO_RAW_H

#include "gs_io_job.h"

/* Write the snapshot to j->tmp (collective on j->comm; failures recorded in j). */
void gs_io_raw_write(struct gs_io_job *j);

/* Rank 0, once the .bin is in place: DIR/snapshot_NNN.json, atomically. */
void gs_io_raw_write_sidecar(struct gs_io_job *j, const char *dir, int index);

#endif
