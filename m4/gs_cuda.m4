# gs_cuda.m4: our own CUDA detection (autoconf-archive has none): nvcc, cudart, arch list.
#
#   --with-cuda[=PATH]     use CUDA (default: auto, from nvcc in PATH or /usr/local/cuda)
#   --without-cuda         CPU-only build
#   --with-cuda-arch=LIST  comma list of compute capabilities, e.g. 80,90; or "native"
#   NVCC, NVCCFLAGS        the compiler and extra flags
#
# Default arch list: 80,90 -> sm_80 and sm_90 machine code plus compute_90 PTX, so one binary runs
# on Ampere (A100) and Hopper (H100/H200) and JIT-compiles on anything newer (Blackwell). CUDA 13
# dropped sm_50..sm_72, so nothing older is in the default.
#
# Results: GS_HAVE_CUDA (AM_CONDITIONAL and AC_DEFINE), CUDA_CPPFLAGS, CUDA_LIBS, NVCC,
# GS_NVCC_ARCHFLAGS, gs_cuda_path, gs_cuda_version, gs_cuda_archs.
AC_DEFUN([GS_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=PATH@:>@], [build the CUDA backend (default: auto-detect)])],
    [], [with_cuda=auto])
  AC_ARG_WITH([cuda-arch],
    [AS_HELP_STRING([--with-cuda-arch=LIST], [compute capabilities to build for, comma separated, or "native" (default: 80,90)])],
    [], [with_cuda_arch=80,90])
  AC_ARG_VAR([NVCC], [CUDA compiler])
  AC_ARG_VAR([NVCCFLAGS], [extra flags for NVCC])

  gs_have_cuda=no
  gs_cuda_path=
  gs_cuda_version=
  gs_cuda_archs=
  AS_CASE([$with_cuda],
    [no], [],
    [yes|auto], [AS_IF([test -z "$NVCC"], [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH:/usr/local/cuda/bin])])],
    [AS_IF([test -z "$NVCC"], [AC_PATH_PROG([NVCC], [nvcc], [], [$with_cuda/bin])])])

  AS_IF([test "$with_cuda" != no && test -n "$NVCC"], [
    gs_cuda_path=`AS_DIRNAME(["$NVCC"])`
    gs_cuda_path=`cd "$gs_cuda_path/.." && pwd`
    AC_MSG_CHECKING([CUDA version])
    gs_cuda_version=`"$NVCC" --version 2>/dev/null | sed -n 's/.*release \([[0-9.]]*\).*/\1/p'`
    AC_MSG_RESULT([${gs_cuda_version:-unknown}])

    # Check every requested arch against what this nvcc can build.
    AS_IF([test "$with_cuda_arch" = native], [
      GS_NVCC_ARCHFLAGS="-arch=native"
      gs_cuda_archs=native
    ], [
      gs_known=`"$NVCC" --list-gpu-arch 2>/dev/null | sed -n 's/^compute_\([[0-9]]*[[a-z]]*\)$/\1/p' | tr '\n' ' '`
      GS_NVCC_ARCHFLAGS=
      gs_last=
      for gs_a in `echo "$with_cuda_arch" | tr ',' ' '`; do
        AS_CASE([$gs_a], [*[[!0-9a-z]]*|""], [AC_MSG_ERROR([--with-cuda-arch: '$gs_a' is not a compute capability like 90])])
        AS_IF([test -n "$gs_known"], [
          AS_CASE([" $gs_known "], [*" $gs_a "*], [],
            [AC_MSG_ERROR([--with-cuda-arch: $NVCC (CUDA $gs_cuda_version) cannot build for compute_$gs_a; it knows: $gs_known])])])
        GS_NVCC_ARCHFLAGS="$GS_NVCC_ARCHFLAGS -gencode=arch=compute_$gs_a,code=sm_$gs_a"
        gs_last=$gs_a
      done
      AS_IF([test -z "$gs_last"], [AC_MSG_ERROR([--with-cuda-arch: empty list])])
      # PTX for the newest arch in the list, so newer GPUs JIT it.
      GS_NVCC_ARCHFLAGS="$GS_NVCC_ARCHFLAGS -gencode=arch=compute_$gs_last,code=compute_$gs_last"
      gs_cuda_archs="$with_cuda_arch (PTX for $gs_last)"
    ])

    CUDA_CPPFLAGS="-I$gs_cuda_path/include"
    gs_cuda_libdir=$gs_cuda_path/lib64
    AS_IF([test -d "$gs_cuda_libdir"], [], [gs_cuda_libdir=$gs_cuda_path/lib])
    CUDA_LIBS="-L$gs_cuda_libdir -Wl,-rpath,$gs_cuda_libdir -lcudart -lstdc++ -lm"

    # cudart must link from plain C: the CUDA backend is C calling the runtime API.
    gs_save_CPPFLAGS=$CPPFLAGS
    gs_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
    LIBS="$CUDA_LIBS $LIBS"
    AC_MSG_CHECKING([whether C programs link with cudart])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cuda_runtime_api.h>]],
                                    [[int n = 0; return (int)cudaGetDeviceCount(&n);]])],
      [AC_MSG_RESULT([yes]); gs_have_cuda=yes],
      [AC_MSG_RESULT([no])])
    CPPFLAGS=$gs_save_CPPFLAGS
    LIBS=$gs_save_LIBS

    # nvcc must compile for the chosen archs (catches a bad arch or host compiler).
    AS_IF([test $gs_have_cuda = yes], [
      AC_MSG_CHECKING([whether $NVCC compiles for the chosen archs])
      printf '__global__ void k(int *p) { *p = 1; }\n' > conftest.cu
      AS_IF([$NVCC $NVCCFLAGS $GS_NVCC_ARCHFLAGS -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
        [AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no]); gs_have_cuda=no])
      rm -f conftest.cu conftest.$OBJEXT
    ])
  ])

  AS_IF([test "$with_cuda" != no && test "$with_cuda" != auto && test $gs_have_cuda = no],
        [AC_MSG_ERROR([--with-cuda was given but no working CUDA was found (NVCC=$NVCC); see config.log])])
  AS_IF([test $gs_have_cuda = yes],
        [AC_DEFINE([GS_HAVE_CUDA], [1], [Define to 1 to build the CUDA backend.])],
        [CUDA_CPPFLAGS= ; CUDA_LIBS= ; GS_NVCC_ARCHFLAGS= ])
  AC_SUBST([CUDA_CPPFLAGS])
  AC_SUBST([CUDA_LIBS])
  AC_SUBST([GS_NVCC_ARCHFLAGS])
  AM_CONDITIONAL([GS_HAVE_CUDA], [test $gs_have_cuda = yes])
])
