/* gs_io_hdf5.h: the HDF5 snapshot writer (built when configure finds HDF5). */
#ifndef GS_IO_HDF5_H
#define GS_IO_HDF5_H

#include "gs_io_job.h"

/* Write the snapshot to j->tmp (collective on j->comm; failures recorded in j, agreed). */
void gs_io_hdf5_write(struct gs_io_job *j);

#endif
