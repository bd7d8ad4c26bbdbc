# gs_hdf5.m4: our own HDF5 detection for N-body snapshots (src/gs_io.c). No pkg.m4 needed: we
# call pkg-config ourselves, so ./autogen.sh works where pkg-config's m4 files are missing.
#
#   --with-hdf5            require HDF5 (found as below)
#   --with-hdf5=PATH       require HDF5 from PATH/include and PATH/lib (or PATH/lib64)
#   --with-hdf5=NAME       require HDF5 from the pkg-config module NAME (e.g. hdf5-serial)
#   --without-hdf5         never use HDF5: snapshots are raw binary + JSON
#   (default: auto)        use HDF5 if found, otherwise the raw fallback (configure says so)
#   HDF5_CPPFLAGS, HDF5_LIBS  when either is set, used as given (no search)
#
# The search, first that links wins: pkg-config modules hdf5-openmpi, hdf5-mpich (first if the MPI
# library is MPICH-based, so the HDF5 matches the MPI we compile with), hdf5, hdf5-serial, then a
# plain -lhdf5 from the compiler's default paths (HPC modules that set CPATH/LIBRARY_PATH).
# Parallel HDF5 is used when H5Pset_fapl_mpio links (the library has H5_HAVE_PARALLEL); a serial
# HDF5 still works, with rank 0 writing the file.
#
# Results: HDF5_CPPFLAGS, HDF5_LIBS (AC_SUBST), GS_HAVE_HDF5 (AC_DEFINE and AM_CONDITIONAL),
# GS_HAVE_HDF5_PARALLEL (AC_DEFINE), gs_have_hdf5, gs_hdf5_parallel, gs_hdf5_summary.
AC_DEFUN([GS_HDF5], [
  AC_ARG_WITH([hdf5],
    [AS_HELP_STRING([--with-hdf5@<:@=PATH|NAME@:>@], [write snapshots in HDF5, from PATH (PATH/include, PATH/lib) or pkg-config module NAME (default: auto-detect; without it, raw binary + JSON)])],
    [], [with_hdf5=auto])
  AC_ARG_VAR([HDF5_CPPFLAGS], [preprocessor flags for HDF5 (set with HDF5_LIBS to skip the search)])
  AC_ARG_VAR([HDF5_LIBS], [linker flags for HDF5])

  gs_have_hdf5=no
  gs_hdf5_parallel=no
  gs_hdf5_from=
  gs_hdf5_version=
  AS_IF([test "x$with_hdf5" != xno], [
    AC_PATH_TOOL([PKG_CONFIG], [pkg-config])
    AS_CASE([$gs_mpi_library], [*MPICH*|*Intel*|*MVAPICH*],
      [gs_hdf5_pcs="hdf5-mpich hdf5-openmpi hdf5 hdf5-serial"],
      [gs_hdf5_pcs="hdf5-openmpi hdf5-mpich hdf5 hdf5-serial"])
    AS_IF([test -n "$HDF5_CPPFLAGS$HDF5_LIBS"], [gs_hdf5_cands=env],
      [test "x$with_hdf5" = xyes || test "x$with_hdf5" = xauto], [gs_hdf5_cands="$gs_hdf5_pcs plain"],
      [test -d "$with_hdf5"], [gs_hdf5_cands=dir],
      [gs_hdf5_cands="$with_hdf5"])
    gs_save_CPPFLAGS=$CPPFLAGS
    gs_save_LIBS=$LIBS
    for gs_c in $gs_hdf5_cands; do
      AS_CASE([$gs_c],
        [env], [gs_cpp=$HDF5_CPPFLAGS; gs_libs=${HDF5_LIBS:--lhdf5}; gs_from="HDF5_CPPFLAGS and HDF5_LIBS"],
        [dir], [gs_d=$with_hdf5/lib
                AS_IF([test -d "$with_hdf5/lib64" && test ! -d "$gs_d"], [gs_d=$with_hdf5/lib64])
                gs_cpp="-I$with_hdf5/include"; gs_libs="-L$gs_d -Wl,-rpath,$gs_d -lhdf5"; gs_from=$with_hdf5],
        [plain], [gs_cpp=; gs_libs=-lhdf5; gs_from="-lhdf5 (the compiler's default paths)"],
        [AS_IF([test -z "$PKG_CONFIG" || ! $PKG_CONFIG --exists "$gs_c" 2>/dev/null], [continue])
         gs_cpp=`$PKG_CONFIG --cflags "$gs_c"`
         gs_libs=`$PKG_CONFIG --libs "$gs_c"`
         # A prefix outside the loader's default paths still runs from the build tree.
         for gs_l in $gs_libs; do
           AS_CASE([$gs_l], [-L/usr/lib*|-L/lib*], [], [-L*], [gs_libs="$gs_libs -Wl,-rpath,`echo "$gs_l" | sed "s/^-L//"`"])
         done
         gs_from="pkg-config $gs_c"])
      AC_MSG_CHECKING([for HDF5 from $gs_from])
      CPPFLAGS="$gs_save_CPPFLAGS $gs_cpp"
      LIBS="$gs_libs $gs_save_LIBS"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hdf5.h>]],
                                      [[hid_t f = H5Fcreate("conftest.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
                                        return f < 0 || H5Fclose(f) < 0;]])],
        [AC_MSG_RESULT([yes]); gs_have_hdf5=yes], [AC_MSG_RESULT([no])])
      AS_IF([test $gs_have_hdf5 = yes], [
        AC_MSG_CHECKING([whether this HDF5 is parallel (H5Pset_fapl_mpio)])
        AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#include <hdf5.h>
#ifndef H5_HAVE_PARALLEL
#error serial HDF5
#endif]], [[hid_t p = H5Pcreate(H5P_FILE_ACCESS); return H5Pset_fapl_mpio(p, MPI_COMM_WORLD, MPI_INFO_NULL) < 0;]])],
          [gs_hdf5_parallel=yes], [])
        AC_MSG_RESULT([$gs_hdf5_parallel])
        AC_COMPUTE_INT([gs_h5_major], [H5_VERS_MAJOR], [[#include <hdf5.h>]], [gs_h5_major=])
        AC_COMPUTE_INT([gs_h5_minor], [H5_VERS_MINOR], [[#include <hdf5.h>]], [gs_h5_minor=])
        AC_COMPUTE_INT([gs_h5_release], [H5_VERS_RELEASE], [[#include <hdf5.h>]], [gs_h5_release=])
        gs_hdf5_version="$gs_h5_major.$gs_h5_minor.$gs_h5_release"
        HDF5_CPPFLAGS=$gs_cpp
        HDF5_LIBS=$gs_libs
        gs_hdf5_from=$gs_from
      ])
      rm -f conftest.h5
      CPPFLAGS=$gs_save_CPPFLAGS
      LIBS=$gs_save_LIBS
      AS_IF([test $gs_have_hdf5 = yes], [break])
    done
  ])

  AS_IF([test "x$with_hdf5" != xno && test "x$with_hdf5" != xauto && test $gs_have_hdf5 = no],
        [AC_MSG_ERROR([--with-hdf5=$with_hdf5 was given but no working HDF5 was found (tried: $gs_hdf5_cands); install it (Debian: libhdf5-openmpi-dev) or see config.log])])
  AS_IF([test $gs_have_hdf5 = yes], [
    AC_DEFINE([GS_HAVE_HDF5], [1], [Define to 1 to write snapshots in HDF5.])
    AS_IF([test $gs_hdf5_parallel = yes], [
      AC_DEFINE([GS_HAVE_HDF5_PARALLEL], [1], [Define to 1 when HDF5 is parallel (collective writes).])
      gs_hdf5_summary="yes: HDF5 $gs_hdf5_version, parallel (collective writes), from $gs_hdf5_from"
    ], [
      gs_hdf5_summary="yes: HDF5 $gs_hdf5_version, serial (rank 0 writes), from $gs_hdf5_from"
    ])
  ], [
    HDF5_CPPFLAGS=
    HDF5_LIBS=
    AS_IF([test "x$with_hdf5" = xno],
      [gs_hdf5_summary="no (--without-hdf5): snapshots are raw binary + JSON"],
      [gs_hdf5_summary="no HDF5 found: snapshots are raw binary + JSON (Debian: libhdf5-openmpi-dev)"
       AC_MSG_NOTICE([no HDF5 found: snapshots will be written as raw binary + JSON])])
  ])
  AC_SUBST([HDF5_CPPFLAGS])
  AC_SUBST([HDF5_LIBS])
  AM_CONDITIONAL([GS_HAVE_HDF5], [test $gs_have_hdf5 = yes])
])
