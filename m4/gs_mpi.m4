# gs_mpi.m4: find the MPI C compiler and make it the C compiler (our own macro, so building
# needs no autoconf-archive). An explicit MPICC= or CC= on the configure line wins.
#
# GS_PROG_MPICC: sets CC (before AC_PROG_CC), MPICC, and checks that MPI_Init links.
AC_DEFUN([GS_PROG_MPICC], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper (default: mpicc found in PATH)])
  AS_IF([test -n "$MPICC"], [CC="$MPICC"],
        [test -z "$CC"], [AC_CHECK_PROGS([MPICC], [mpicc mpiicx mpiicc mpigcc hcc], [])
                          AS_IF([test -n "$MPICC"], [CC="$MPICC"])])
])

# GS_CHECK_MPI: after AC_PROG_CC, prove the compiler builds and links an MPI program, and
# find mpiexec for the tests.
AC_DEFUN([GS_CHECK_MPI], [
  AC_MSG_CHECKING([whether $CC compiles and links MPI programs])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
                                  [[int v, s; MPI_Init(0, 0); MPI_Get_version(&v, &s); MPI_Finalize();]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([$CC cannot build MPI programs: pass MPICC=/path/to/mpicc (an explicit CC or MPICC is used as given), or install Open MPI (Debian: openmpi-bin libopenmpi-dev)])])
  AC_ARG_VAR([MPIEXEC], [MPI launcher used by the tests (default: mpiexec found in PATH)])
  AC_PATH_PROGS([MPIEXEC], [mpiexec mpirun], [])
  AC_MSG_CHECKING([MPI library])
  AC_RUN_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#include <stdio.h>
#include <string.h>]], [[char v[MPI_MAX_LIBRARY_VERSION_STRING]; int len; FILE *f;
      MPI_Get_library_version(v, &len); v[strcspn(v, "\n,")] = 0;
      f = fopen("conftest.mpiver", "w"); if (!f) return 1; fputs(v, f); fclose(f);]])],
    [gs_mpi_library=`cat conftest.mpiver`], [gs_mpi_library="unknown"], [gs_mpi_library="unknown (cross)"])
  rm -f conftest.mpiver
  AC_MSG_RESULT([$gs_mpi_library])
])
