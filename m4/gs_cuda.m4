# gs_cuda.m4: our own CUDA detection (autoconf-archive has none): nvcc, cudart, arch list, the
# host compiler, and the CUDA floor (12.0: CUB 2.0).
#
#   --with-cuda[=PATH]     use CUDA (default: auto), optionally from PATH (PATH/bin/nvcc)
#   --without-cuda         CPU-only build
#   --with-cuda-arch=LIST  comma list of compute capabilities, e.g. 80,90; or "native"
#   NVCC, NVCCFLAGS        the compiler and extra flags (an explicit NVCC wins over the search)
#
# Where nvcc is looked for, first found wins: --with-cuda=PATH, $CUDA_HOME, $CUDA_PATH, nvcc in
# PATH (Debian's nvidia-cuda-toolkit is /usr/bin/nvcc with the headers and cudart in the system
# directories), the NVIDIA HPC SDK of $NVHPC_ROOT (its module's variable), /usr/local/cuda, then
# the HPC SDK's default place (/opt/nvidia/hpc_sdk/Linux_<cpu>/<ver>/cuda/bin/nvcc). The headers and cudart are looked for beside that nvcc
# (include/, lib64/, lib/, targets/<cpu>-linux/); none there means the compiler's own
# directories, as on Debian.
#
# nvcc compiles host code with the C compiler behind the MPI wrapper (-ccbin), so the .cu objects
# come from the same compiler as the rest; an explicit -ccbin in NVCCFLAGS is kept.
#
# Default arch list: 80,90 -> sm_80 and sm_90 machine code plus compute_90 PTX, so one binary runs
# on Ampere (A100) and Hopper (H100/H200) and JIT-compiles on anything newer (Blackwell). CUDA 13
# dropped sm_50..sm_72, so nothing older is in the default.
#
# A CUDA that is found but fails a check (older than 12.0, cudart does not link from C, nvcc
# cannot build the chosen archs or our CUB calls) is an error with --with-cuda; without it the
# build goes on CPU-only and says why, loudly (a warning here and in the summary's last lines).
#
# Results: GS_HAVE_CUDA (AM_CONDITIONAL and AC_DEFINE), CUDA_CPPFLAGS, CUDA_LIBS, NVCC,
# GS_NVCC_ARCHFLAGS, GS_NVCC_SM90A_ARCHFLAGS (the same with 90 as 90a, for the wgmma file; then
# GS_HAVE_SM90A is defined), GS_NVCC_HOSTFLAGS, gs_cuda_path, gs_cuda_version, gs_cuda_archs,
# gs_cuda_failed (why a found CUDA is not used; empty otherwise).
AC_DEFUN([GS_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=PATH@:>@], [build the CUDA backend, CUDA 12.0 or later (default: auto-detect)])],
    [], [with_cuda=auto])
  AC_ARG_WITH([cuda-arch],
    [AS_HELP_STRING([--with-cuda-arch=LIST], [compute capabilities to build for, comma separated, or "native" (default: 80,90)])],
    [], [with_cuda_arch=80,90])
  AC_ARG_VAR([NVCC], [CUDA compiler])
  AC_ARG_VAR([NVCCFLAGS], [extra flags for NVCC])
  AC_ARG_VAR([CUDA_HOME], [CUDA installation searched for bin/nvcc (also CUDA_PATH)])

  gs_have_cuda=no
  gs_cuda_path=
  gs_cuda_version=
  gs_cuda_archs=
  gs_cuda_failed=
  gs_sm90a=no
  AS_IF([test "$with_cuda" != no && test -z "$NVCC"], [GS_CUDA_FIND_NVCC])
  AS_IF([test "$with_cuda" != no && test -n "$NVCC"], [GS_CUDA_CHECK])

  AS_IF([test "$with_cuda" != no && test "$with_cuda" != auto && test $gs_have_cuda = no],
        [AC_MSG_ERROR([--with-cuda was given but no working CUDA was found (NVCC=${NVCC:-none}${gs_cuda_failed:+: $gs_cuda_failed}); see config.log])])
  AS_IF([test -n "$gs_cuda_failed"],
        [AC_MSG_WARN([CUDA at $gs_cuda_path was found but is NOT used: $gs_cuda_failed. This is a CPU-only build; see config.log, or pass --with-cuda=PATH to make it an error, --without-cuda to silence this.])])
  AS_IF([test $gs_have_cuda = yes],
        [AC_DEFINE([GS_HAVE_CUDA], [1], [Define to 1 to build the CUDA backend.])],
        [CUDA_CPPFLAGS= ; CUDA_LIBS= ; GS_NVCC_ARCHFLAGS= ; GS_NVCC_SM90A_ARCHFLAGS= ; GS_NVCC_HOSTFLAGS= ])
  AS_IF([test $gs_have_cuda = yes && test "$gs_sm90a" = yes],
        [AC_DEFINE([GS_HAVE_SM90A], [1], [Define to 1 when the wgmma kernel is built for sm_90a.])])
  AC_SUBST([CUDA_CPPFLAGS])
  AC_SUBST([CUDA_LIBS])
  AC_SUBST([GS_NVCC_ARCHFLAGS])
  AC_SUBST([GS_NVCC_SM90A_ARCHFLAGS])
  AC_SUBST([GS_NVCC_HOSTFLAGS])
  AM_CONDITIONAL([GS_HAVE_CUDA], [test $gs_have_cuda = yes])
])

# GS_CUDA_FIND_NVCC: set NVCC from the places above, in that order (none found: NVCC stays empty).
AC_DEFUN([GS_CUDA_FIND_NVCC], [
  AC_MSG_CHECKING([for nvcc])
  gs_where=
  AS_CASE([$with_cuda],
    [yes|auto], [],
    [gs_where="$with_cuda/bin"])
  AS_IF([test -z "$gs_where"], [
    for gs_d in "$CUDA_HOME" "$CUDA_PATH"; do
      AS_IF([test -n "$gs_d" && test -x "$gs_d/bin/nvcc"], [gs_where="$gs_d/bin"; break])
    done
  ])
  AS_IF([test -z "$gs_where"], [
    gs_save_IFS=$IFS; IFS=$PATH_SEPARATOR
    for gs_d in $PATH; do
      AS_IF([test -n "$gs_d" && test -x "$gs_d/nvcc"], [gs_where=$gs_d; break])
    done
    IFS=$gs_save_IFS
  ])
  # The HPC SDK's module sets NVHPC_ROOT: that choice beats the default /usr/local/cuda; the
  # SDK's default prefix (newest version first) comes after it.
  AS_IF([test -z "$gs_where" && test -n "$NVHPC_ROOT" && test -x "$NVHPC_ROOT/cuda/bin/nvcc"],
        [gs_where="$NVHPC_ROOT/cuda/bin"])
  AS_IF([test -z "$gs_where" && test -x /usr/local/cuda/bin/nvcc], [gs_where=/usr/local/cuda/bin])
  AS_IF([test -z "$gs_where"], [
    for gs_d in `ls -d /opt/nvidia/hpc_sdk/Linux_*/*/ 2>/dev/null | sort -r -V`; do
      AS_IF([test -x "${gs_d}cuda/bin/nvcc"], [gs_where="${gs_d}cuda/bin"; break])
    done
  ])
  AS_IF([test -n "$gs_where" && test -x "$gs_where/nvcc"], [NVCC="$gs_where/nvcc"])
  AC_MSG_RESULT([${NVCC:-no}])
])

# GS_CUDA_CHECK: version, archs, host compiler, headers and cudart, then nvcc on our CUB calls.
AC_DEFUN([GS_CUDA_CHECK], [
  gs_cuda_path=`AS_DIRNAME(["$NVCC"])`
  gs_cuda_path=`cd "$gs_cuda_path/.." && pwd`
  AC_MSG_CHECKING([CUDA version])
  gs_cuda_version=`"$NVCC" --version 2>/dev/null | sed -n 's/.*release \([[0-9.]]*\).*/\1/p'`
  AC_MSG_RESULT([${gs_cuda_version:-unknown}])
  gs_cuda_major=`echo "$gs_cuda_version" | sed 's/\..*//'`
  AS_IF([test -z "$gs_cuda_major"],
          [gs_cuda_failed="$NVCC --version gives no release number"],
        [test "$gs_cuda_major" -lt 12],
          [gs_cuda_failed="CUDA $gs_cuda_version is older than 12.0, the oldest gpusim builds with"])

  # Check every requested arch against what this nvcc can build.
  AS_IF([test "$with_cuda_arch" = native], [
    GS_NVCC_ARCHFLAGS="-arch=native"
    GS_NVCC_SM90A_ARCHFLAGS="-arch=native"
    gs_cuda_archs=native
    gs_probe_arch="-arch=native"
  ], [
    gs_known=`"$NVCC" --list-gpu-arch 2>/dev/null | sed -n 's/^compute_\([[0-9]]*[[a-z]]*\)$/\1/p' | tr '\n' ' '`
    GS_NVCC_ARCHFLAGS=
    GS_NVCC_SM90A_ARCHFLAGS=
    gs_last=
    for gs_a in `echo "$with_cuda_arch" | tr ',' ' '`; do
      AS_CASE([$gs_a], [*[[!0-9a-z]]*|""], [AC_MSG_ERROR([--with-cuda-arch: '$gs_a' is not a compute capability like 90])])
      AS_IF([test -n "$gs_known"], [
        AS_CASE([" $gs_known "], [*" $gs_a "*], [],
          [AC_MSG_ERROR([--with-cuda-arch: $NVCC (CUDA $gs_cuda_version) cannot build for compute_$gs_a; it knows: $gs_known])])])
      GS_NVCC_ARCHFLAGS="$GS_NVCC_ARCHFLAGS -gencode=arch=compute_$gs_a,code=sm_$gs_a"
      # wgmma exists only in arch-specific sm_90a code (CUDA 12.0 on, which we require; nvcc's
      # --list-gpu-arch leaves the "a" archs out): the file that uses it is built for 90a where
      # the list has 90 (that code runs on compute capability 9.0 only, as 90 would).
      AS_IF([test "$gs_a" = 90],
            [GS_NVCC_SM90A_ARCHFLAGS="$GS_NVCC_SM90A_ARCHFLAGS -gencode=arch=compute_90a,code=sm_90a"
             gs_sm90a=yes],
            [GS_NVCC_SM90A_ARCHFLAGS="$GS_NVCC_SM90A_ARCHFLAGS -gencode=arch=compute_$gs_a,code=sm_$gs_a"])
      gs_last=$gs_a
    done
    AS_IF([test -z "$gs_last"], [AC_MSG_ERROR([--with-cuda-arch: empty list])])
    # PTX for the newest arch in the list, so newer GPUs JIT it.
    GS_NVCC_ARCHFLAGS="$GS_NVCC_ARCHFLAGS -gencode=arch=compute_$gs_last,code=compute_$gs_last"
    GS_NVCC_SM90A_ARCHFLAGS="$GS_NVCC_SM90A_ARCHFLAGS -gencode=arch=compute_$gs_last,code=compute_$gs_last"
    gs_cuda_archs="$with_cuda_arch (PTX for $gs_last)"
    gs_probe_arch="-gencode=arch=compute_$gs_last,code=compute_$gs_last"
  ])

  # The host compiler: the C compiler behind the MPI wrapper (Open MPI: --showme:command; MPICH
  # and Intel MPI: -show), or CC itself when it is not a wrapper.
  AC_MSG_CHECKING([host compiler for nvcc])
  GS_NVCC_HOSTFLAGS=
  AS_CASE([" $NVCCFLAGS "], [*" -ccbin"*|*" --compiler-bindir"*], [gs_host="(from NVCCFLAGS)"], [
    set dummy $CC; gs_cc_cmd=$[2]
    gs_host=`$gs_cc_cmd --showme:command 2>/dev/null | sed 's/ .*//'`
    AS_IF([test -z "$gs_host"], [gs_host=`$gs_cc_cmd -show 2>/dev/null | sed 's/ .*//'`])
    AS_IF([test -z "$gs_host"], [gs_host=$gs_cc_cmd])
    gs_host_path=`command -v "$gs_host" 2>/dev/null`
    AS_IF([test -n "$gs_host_path"], [gs_host=$gs_host_path])
    GS_NVCC_HOSTFLAGS="-ccbin $gs_host"
  ])
  AC_MSG_RESULT([$gs_host])

  # Headers and cudart beside nvcc; none there, or nvcc in /usr/bin: the compiler's own
  # directories (Debian), never -I/usr/include.
  CUDA_CPPFLAGS=
  CUDA_LIBS="-lcudart -lstdc++ -lm"
  gs_beside=
  AS_IF([test "$gs_cuda_path" != /usr], [gs_beside=$gs_cuda_path])
  for gs_d in ${gs_beside:+"$gs_beside/include" "$gs_beside"/targets/*-linux/include}; do
    AS_IF([test -f "$gs_d/cuda_runtime_api.h"], [CUDA_CPPFLAGS="-I$gs_d"; break])
  done
  for gs_d in ${gs_beside:+"$gs_beside/lib64" "$gs_beside/lib" "$gs_beside"/targets/*-linux/lib}; do
    AS_IF([ls "$gs_d"/libcudart.* >/dev/null 2>&1],
          [CUDA_LIBS="-L$gs_d -Wl,-rpath,$gs_d $CUDA_LIBS"; break])
  done

  # cudart must link from plain C: the CUDA backend is C calling the runtime API.
  AS_IF([test -z "$gs_cuda_failed"], [
    gs_save_CPPFLAGS=$CPPFLAGS
    gs_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
    LIBS="$CUDA_LIBS $LIBS"
    AC_MSG_CHECKING([whether C programs link with cudart])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cuda_runtime_api.h>]],
                                    [[int n = 0; return (int)cudaGetDeviceCount(&n);]])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); gs_cuda_failed="C programs do not link with cudart ($CUDA_CPPFLAGS $CUDA_LIBS)"])
    CPPFLAGS=$gs_save_CPPFLAGS
    LIBS=$gs_save_LIBS
  ])

  # nvcc must compile for the chosen archs with this host compiler, and our CUB calls (the real
  # cuda/gs_reduce_cub.cu, with the flags the build uses; PTX for one arch, to keep this short).
  gs_nvcc="$NVCC -std=c++17 -O3 $NVCCFLAGS $GS_NVCC_HOSTFLAGS"
  AS_IF([test -z "$gs_cuda_failed"], [
    AC_MSG_CHECKING([whether $NVCC compiles for the chosen archs])
    printf '__global__ void k(int *p) { *p = 1; }\n' > conftest.cu
    AS_IF([$gs_nvcc $GS_NVCC_ARCHFLAGS -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); gs_cuda_failed="$NVCC cannot compile for $gs_cuda_archs with $GS_NVCC_HOSTFLAGS $NVCCFLAGS"])
    rm -f conftest.cu conftest.$OBJEXT
  ])
  AS_IF([test -z "$gs_cuda_failed"], [
    AC_MSG_CHECKING([whether $NVCC compiles our CUB calls (CUDA 12.0 or later)])
    AS_IF([$gs_nvcc $gs_probe_arch -I$srcdir/src -I$srcdir/cuda -c "$srcdir/cuda/gs_reduce_cub.cu" -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([yes]); gs_have_cuda=yes],
      [AC_MSG_RESULT([no]); gs_cuda_failed="$NVCC (CUDA $gs_cuda_version) cannot compile cuda/gs_reduce_cub.cu (cub/cub.cuh with -std=c++17)"])
    rm -f conftest.$OBJEXT
  ])
])

# GS_CUBLAS: cuBLAS for gpusim matmul's baseline rows (after GS_CUDA). Found when cublas_v2.h
# compiles and -lcublas links from C with CUDA_CPPFLAGS and CUDA_LIBS (beside cudart: the
# toolkit's lib64, or the system directories on Debian).
#   --without-cublas   build without it (the matmul kernel lists have no cuBLAS rows)
#   --with-cublas      an error when it is not found (default: use it when found)
# Results: GS_HAVE_CUBLAS (AM_CONDITIONAL and AC_DEFINE), -lcublas in CUDA_LIBS, gs_cublas_summary.
AC_DEFUN([GS_CUBLAS], [
  AC_ARG_WITH([cublas],
    [AS_HELP_STRING([--without-cublas], [build the CUDA backend without cuBLAS (no cuBLAS baseline in matmul)])],
    [], [with_cublas=auto])
  gs_have_cublas=no
  AS_IF([test $gs_have_cuda != yes], [gs_cublas_summary="no (no CUDA)"],
        [test "$with_cublas" = no], [gs_cublas_summary="no (--without-cublas)"], [
    gs_save_CPPFLAGS=$CPPFLAGS
    gs_save_LIBS=$LIBS
    gs_cublas_libs="$CUDA_LIBS -lcublas"
    CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
    LIBS="$gs_cublas_libs $LIBS"
    AC_MSG_CHECKING([whether C programs link with cuBLAS])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cublas_v2.h>]],
                                    [[cublasHandle_t h; return (int)cublasCreate(&h);]])],
      [AC_MSG_RESULT([yes]); gs_have_cublas=yes; CUDA_LIBS=$gs_cublas_libs],
      [AC_MSG_RESULT([no])])
    CPPFLAGS=$gs_save_CPPFLAGS
    LIBS=$gs_save_LIBS
    AS_IF([test $gs_have_cublas = yes], [gs_cublas_summary="yes: matmul has cuBLAS baseline rows"],
          [test "$with_cublas" = yes], [AC_MSG_ERROR([--with-cublas was given but cublas_v2.h / -lcublas do not work with $CUDA_CPPFLAGS $CUDA_LIBS; see config.log])],
          [gs_cublas_summary="NO: cublas_v2.h or -lcublas not found beside CUDA (matmul has no cuBLAS baseline rows)"])
  ])
  AS_IF([test $gs_have_cublas = yes], [AC_DEFINE([GS_HAVE_CUBLAS], [1], [Define to 1 to build the cuBLAS matmul baseline.])])
  AM_CONDITIONAL([GS_HAVE_CUBLAS], [test $gs_have_cublas = yes])
])

# GS_NCCL: NCCL for gpusim's device collectives (--exchange nccl, reduce's device combine), after
# GS_CUDA. Found when nccl.h compiles and -lnccl links from C beside CUDA_CPPFLAGS and CUDA_LIBS:
# the toolkit's include and lib64 (or lib), the system's (/usr/local, /usr), or --with-nccl=PATH.
#   --without-nccl     build without it (--exchange nccl is then a usage error)
#   --with-nccl[=PATH] an error when it is not found (default: use it when found)
# Results: GS_HAVE_NCCL (AM_CONDITIONAL and AC_DEFINE), -lnccl in CUDA_LIBS, gs_nccl_summary.
AC_DEFUN([GS_NCCL], [
  AC_ARG_WITH([nccl],
    [AS_HELP_STRING([--with-nccl@<:@=PATH@:>@], [NCCL for device-to-device exchange (default: use it when found beside CUDA or in the system)])],
    [], [with_nccl=auto])
  gs_have_nccl=no
  AS_IF([test $gs_have_cuda != yes], [gs_nccl_summary="no (no CUDA)"],
        [test "$with_nccl" = no], [gs_nccl_summary="no (--without-nccl)"], [
    gs_nccl_dirs=
    # Searching (yes, auto): a directory counts only with nccl.h in it; --with-nccl=PATH: that one.
    gs_nccl_search=yes
    AS_CASE([$with_nccl], [yes|auto], [gs_nccl_dirs="$gs_cuda_path /usr/local system"],
            [gs_nccl_dirs=$with_nccl; gs_nccl_search=no])
    gs_save_CPPFLAGS=$CPPFLAGS
    gs_save_LIBS=$LIBS
    for gs_nd in $gs_nccl_dirs; do
      AS_IF([test "$gs_nd" = system], [gs_nd=],
            [test ! -f "$gs_nd/include/nccl.h" && test $gs_nccl_search = yes], [continue])
      gs_nccl_cpp=
      gs_nccl_libs="$CUDA_LIBS -lnccl"
      AS_IF([test -n "$gs_nd" && test -f "$gs_nd/include/nccl.h"], [gs_nccl_cpp="-I$gs_nd/include"])
      for gs_d in ${gs_nd:+"$gs_nd/lib64" "$gs_nd/lib"}; do
        AS_IF([ls "$gs_d"/libnccl.* >/dev/null 2>&1], [
          AS_CASE([" $CUDA_LIBS "], [*" -L$gs_d "*], [], [gs_nccl_libs="$CUDA_LIBS -L$gs_d -Wl,-rpath,$gs_d -lnccl"])
          break])
      done
      CPPFLAGS="$gs_save_CPPFLAGS $CUDA_CPPFLAGS $gs_nccl_cpp"
      LIBS="$gs_nccl_libs $gs_save_LIBS"
      AC_MSG_CHECKING([whether C programs link with NCCL${gs_nd:+ in $gs_nd}])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <nccl.h>]],
                                      [[ncclUniqueId id; int v = 0; ncclGetVersion(&v); return (int)ncclGetUniqueId(&id);]])],
        [AC_MSG_RESULT([yes]); gs_have_nccl=yes],
        [AC_MSG_RESULT([no])])
      AS_IF([test $gs_have_nccl = yes], [break])
    done
    CPPFLAGS=$gs_save_CPPFLAGS
    LIBS=$gs_save_LIBS
    AS_IF([test $gs_have_nccl = yes],
          [CUDA_LIBS=$gs_nccl_libs
           AS_IF([test -n "$gs_nccl_cpp"], [CUDA_CPPFLAGS="$CUDA_CPPFLAGS $gs_nccl_cpp"])
           gs_nccl_summary="yes: ${gs_nd:-the compiler's directories} (--exchange nccl, reduce's device combine)"],
          [test "$with_nccl" != auto],
          [AC_MSG_ERROR([--with-nccl was given but nccl.h / -lnccl do not work (looked in: $gs_nccl_dirs); see config.log])],
          [gs_nccl_summary="NO: nccl.h or -lnccl not found (--exchange nccl unavailable)"])
  ])
  AS_IF([test $gs_have_nccl = yes], [AC_DEFINE([GS_HAVE_NCCL], [1], [Define to 1 to build the NCCL device collectives.])])
  AM_CONDITIONAL([GS_HAVE_NCCL], [test $gs_have_nccl = yes])
])
