/* gs_version.c: the build and runtime versions that --version, the run header and the result rows
 * all state, written once so that they never disagree. */
#include <config.h>

#include "gs_version.h"

#include <mpi.h>
#include <string.h>

#include "gs_backend.h"

void gs_version_mpi(char *out, size_t size) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  lib[strcspn(lib, "\n,")] = 0; /* Open MPI goes on with its repository and release date */
  snprintf(out, size, "%s", lib);
}

void gs_version_cuda(const struct gs_backend *be, char *out, size_t size) {
  int rt = 0, drv = 0;
  be->versions(&rt, &drv);
  if (rt) snprintf(out, size, "%d.%d/%d.%d", rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
  else snprintf(out, size, "none");
}

void gs_version_print(FILE *f, const char *prefix, const char *tail) {
  /* "unknown": configure found neither git nor the tarball's .gitrev; then there is none to say */
  int git = strcmp(GS_GIT_REVISION, "unknown") != 0;
  fprintf(f, "%sgpusim %s%s%s%s%s%s\n", prefix, PACKAGE_VERSION, git ? " (git " : "", git ? GS_GIT_REVISION : "",
          git ? ")" : "", tail ? " " : "", tail ? tail : "");
  fprintf(f, "%sconfigure: %s\n", prefix, GS_CONFIGURE_ARGS[0] ? GS_CONFIGURE_ARGS : "(no options)");
  const char *label;
  const struct gs_backend *be;
  fprintf(f, "%sbackends built:", prefix);
  for (int i = 0; gs_backend_at(i, &label, &be); i++)
    if (be) fprintf(f, " %s", be->name);
  fprintf(f, "\n");
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  gs_version_mpi(mpi, sizeof mpi);
  /* A module or LD_LIBRARY_PATH may give the run another MPI than the one gpusim was built with. */
  int same = strcmp(mpi, GS_MPI_LIBRARY_AT_BUILD) == 0;
  fprintf(f, "%sMPI: %s%s%s%s\n", prefix, mpi, same ? "" : " (built with ", same ? "" : GS_MPI_LIBRARY_AT_BUILD,
          same ? "" : ")");
  /* Every backend gpusim knows that has versions to tell (CUDA), built or not. */
  for (int i = 0; gs_backend_at(i, &label, &be); i++) {
    int rt = 0, drv = 0;
    if (!label[0]) continue;
    if (!be) {
      fprintf(f, "%s%s: not built into this gpusim\n", prefix, label);
      continue;
    }
    be->versions(&rt, &drv);
    fprintf(f, "%s%s: runtime %d.%d, driver %d.%d%s%s%s\n", prefix, label, rt / 1000, rt % 1000 / 10, drv / 1000,
            drv % 1000 / 10, drv ? "" : " (no driver)", be->coll ? ", " : "", be->coll ? be->coll->name : "");
  }
}
