/* gs_version.h: what this gpusim is: its version and git revision, its configure line, the
 * backends built into it, and the MPI library and CUDA runtime it runs with. One source for
 * `gpusim --version`, every run's `#` header and the version columns of the result rows. */
#ifndef GS_VERSION_H
#define GS_VERSION_H

#include <stddef.h>
#include <stdio.h>

struct gs_backend;

/* The MPI library this process runs with: the first line of MPI_Get_library_version (which MPI
 * allows before MPI_Init), as the rows' mpi_library column has it; at most size bytes. */
void gs_version_mpi(char *out, size_t size);

/* Backend be's CUDA runtime and driver as the rows' cuda_version column has them, "13.0/13.0",
 * or "none" where it has no runtime (the CPU backend). */
void gs_version_cuda(const struct gs_backend *be, char *out, size_t size);

/* The build lines, each after prefix ("# " in a run's header, "" for --version): version and git
 * revision (where built from git or from its tarball) followed by tail where not NULL (a run's
 * timestamp), the configure line, the backends built in, the MPI library (and the one configure
 * saw where they differ), and every device backend's runtime and driver or that it is not built. */
void gs_version_print(FILE *f, const char *prefix, const char *tail);

#endif
