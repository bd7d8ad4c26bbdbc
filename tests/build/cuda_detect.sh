#!/bin/sh
# cuda_detect.sh: configure's CUDA detection (m4/gs_cuda.m4) against fake CUDA installs: shell
# stubs named nvcc (they log their arguments and answer --version and --list-gpu-arch) with a
# stand-in cudart, in the layouts of a toolkit, CUDA_HOME/CUDA_PATH, --with-cuda=PATH, nvcc in
# PATH with targets/<cpu>-linux/lib, Debian (/usr/bin/nvcc, headers and cudart in the system
# directories) and the NVIDIA HPC SDK. Checked: which one wins, the flags the build gets, -ccbin
# with the C compiler behind mpicc, and a CUDA found but unusable (older than 12.0, our CUB calls
# do not compile, cudart does not link) being an error with --with-cuda and a loud warning
# without it. configure runs in a copy of what it needs (the source tree may itself be
# configured), from one cache of the non-CUDA checks, so each run takes a few seconds.
. "$GS_TEST_LIB"
src=$(cd "$(dirname "$GS_TEST_LIB")/.." && pwd)
[ -x "$src/configure" ] || gs_skip "no configure in $src (run ./autogen.sh)"
cc_real=$(command -v cc || command -v gcc) || gs_skip "no C compiler to build the stand-in cudart"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tree=$tmp/tree
mkdir -p "$tree"
(cd "$src" && cp -R configure Makefile.in config.h.in build-aux src cuda "$tree/") || gs_hard "cannot copy the configure tree"
chmod -R u+w "$tree" # a distcheck source tree is read-only
# PATH without any real nvcc, so only the fakes are found.
path=
save_ifs=$IFS
IFS=:
for d in $PATH; do [ -n "$d" ] && [ ! -x "$d/nvcc" ] && path=$path${path:+:}$d; done
IFS=$save_ifs
unset CUDA_HOME CUDA_PATH NVHPC_ROOT NVCC NVCCFLAGS CPATH LIBRARY_PATH

# fake DIR RELEASE [LAYOUT]: nvcc in DIR/bin reporting RELEASE; the header and cudart in
# DIR/include and DIR/LAYOUT (lib64 by default; "none": no header or library beside nvcc).
fake() {
  mkdir -p "$1/bin"
  echo "$2" >"$1/bin/release"
  cat >"$1/bin/nvcc" <<'EOF'
#!/bin/sh
here=$(cd "$(dirname "$0")" && pwd)
echo "$*" >>"$here/nvcc.log"
case " $* " in
*" --version "*) echo "Cuda compilation tools, release $(cat "$here/release"), V0.0.0"; exit 0 ;;
*" --list-gpu-arch "*) printf 'compute_75\ncompute_80\ncompute_89\ncompute_90\n'; exit 0 ;;
esac
out= cu=
while [ $# -gt 0 ]; do
  case $1 in -o) out=$2; shift ;; *.cu) cu=$1 ;; esac
  shift
done
[ -f "$cu" ] && [ -n "$out" ] || { echo "fake nvcc: no source or no -o" >&2; exit 1; }
if grep -q 'cub/cub.cuh' "$cu" && [ -f "$here/cub_fails" ]; then echo "$cu: error: fake CUB" >&2; exit 1; fi
: >"$out"
EOF
  chmod +x "$1/bin/nvcc"
  lib=${3:-lib64}
  [ "$lib" = none ] && return 0
  mkdir -p "$1/include" "$1/$lib"
  echo 'int cudaGetDeviceCount(int *n);' >"$1/include/cuda_runtime_api.h"
  echo 'int cudaGetDeviceCount(int *n) { *n = 0; return 0; }' >"$tmp/cudart.c"
  "$cc_real" -c "$tmp/cudart.c" -o "$tmp/cudart.o" && ar rc "$1/$lib/libcudart.a" "$tmp/cudart.o" ||
    gs_hard "cannot build the stand-in cudart"
}

# One cache of everything but CUDA (precious variables dropped, since the runs change them).
(cd "$tree" && PATH=$path ./configure --without-cuda --disable-dependency-tracking -C >"$tmp/base.out" 2>&1) ||
  { cat "$tmp/base.out"; gs_fail "configure --without-cuda failed"; }
grep -v '^ac_cv_env_' "$tree/config.cache" >"$tmp/base.cache"

# conf NAME ARGS...: configure with ARGS (and the environment given by the caller) into
# $tmp/NAME.out; rc is its exit status, cuda the summary's CUDA line, flags the build's.
conf() {
  name=$1
  shift
  cp "$tmp/base.cache" "$tree/config.cache"
  (cd "$tree" && ./configure -C --disable-dependency-tracking "$@" >"$tmp/$name.out" 2>&1)
  rc=$?
  cuda=$(sed -n 's/^  CUDA \.* //p' "$tmp/$name.out")
  flags=$(sed -n 's/^\(CUDA_CPPFLAGS\|CUDA_LIBS\|GS_NVCC_HOSTFLAGS\) = /\1=/p' "$tree/Makefile" 2>/dev/null | tr '\n' ' ')
  echo "$name: rc=$rc CUDA: $cuda"
}
# expect NAME WHAT PATTERN: the summary line matches PATTERN (grep -E).
expect() {
  [ $rc = 0 ] || { cat "$tmp/$1.out"; gs_fail "$1: configure exit $rc"; }
  echo "$cuda" | grep -qE "$3" || { cat "$tmp/$1.out"; gs_fail "$1: $2: CUDA line '$cuda'"; }
}
has_flag() { echo " $flags " | grep -qF " $2" || gs_fail "$1: the build's flags lack '$2': $flags"; }

fake "$tmp/home" 12.0
# A stand-in cuBLAS beside the first only (m4/gs_cuda.m4's GS_CUBLAS: the header compiles and
# -lcublas links from C).
echo 'typedef void *cublasHandle_t; int cublasCreate(cublasHandle_t *h);' >"$tmp/home/include/cublas_v2.h"
echo 'int cublasCreate(void **h) { *h = 0; return 0; }' >"$tmp/cublas.c"
"$cc_real" -c "$tmp/cublas.c" -o "$tmp/cublas.o" && ar rc "$tmp/home/lib64/libcublas.a" "$tmp/cublas.o" ||
  gs_hard "cannot build the stand-in cuBLAS"
fake "$tmp/cpath" 12.4
fake "$tmp/with" 13.0
fake "$tmp/onpath" 12.8 targets/x86_64-linux/lib
fake "$tmp/deb" 12.2 none
fake "$tmp/hpc/Linux_x86_64/24.5/cuda" 12.6
fake "$tmp/old" 11.8
fake "$tmp/nocub" 12.1
touch "$tmp/nocub/bin/cub_fails"
fake "$tmp/nolib" 12.3
echo 'int cudaSomethingElse(void) { return 0; }' >"$tmp/other.c"
"$cc_real" -c "$tmp/other.c" -o "$tmp/other.o" && rm "$tmp/nolib/lib64/libcudart.a" &&
  ar rc "$tmp/nolib/lib64/libcudart.a" "$tmp/other.o" || gs_hard "cannot build a broken cudart"

# CUDA_HOME beats CUDA_PATH and nvcc in PATH; -ccbin is the compiler behind mpicc; configure
# compiled our CUB source with -std=c++17 and the same host compiler.
PATH=$tmp/onpath/bin:$path CUDA_HOME=$tmp/home CUDA_PATH=$tmp/cpath conf home
expect home "CUDA_HOME" "^yes: $tmp/home \(CUDA 12\.0\)"
has_flag home "CUDA_CPPFLAGS=-I$tmp/home/include"
has_flag home "CUDA_LIBS=-L$tmp/home/lib64"
host=$(mpicc --showme:command 2>/dev/null || mpicc -show 2>/dev/null | sed 's/ .*//')
host=$(command -v "${host%% *}")
[ -n "$host" ] || gs_hard "cannot tell the compiler behind mpicc"
has_flag home "GS_NVCC_HOSTFLAGS=-ccbin $host"
sed -n 's/^  cuBLAS \.* //p' "$tmp/home.out" | grep -q '^yes' || { cat "$tmp/home.out"; gs_fail "home: cuBLAS beside CUDA not used"; }
has_flag home "-lcudart -lstdc++ -lm -lcublas"
grep -q -- "-std=c++17 .*-ccbin $host .*gs_reduce_cub\.cu" "$tmp/home/bin/nvcc.log" ||
  { cat "$tmp/home/bin/nvcc.log"; gs_fail "home: no CUB probe with -std=c++17 -ccbin $host"; }
# CUDA_PATH when CUDA_HOME is not set; --with-cuda=PATH beats both.
PATH=$tmp/onpath/bin:$path CUDA_PATH=$tmp/cpath conf cpath
expect cpath "CUDA_PATH" "^yes: $tmp/cpath \(CUDA 12\.4\)"
# No cuBLAS there: CUDA without it, said so (unless the compiler finds a real one on its own, as
# where the toolkit is linked into /usr/local); --without-cublas leaves a found one out.
printf '#include <cublas_v2.h>\nint main(void) { cublasHandle_t h; return (int)cublasCreate(&h); }\n' >"$tmp/cb.c"
if "$cc_real" "$tmp/cb.c" -o "$tmp/cb" -lcublas >/dev/null 2>&1; then
  echo "(cpath: no-cuBLAS case not checked: the compiler finds a real cuBLAS by itself)"
else
  sed -n 's/^  cuBLAS \.* //p' "$tmp/cpath.out" | grep -q '^NO' || { cat "$tmp/cpath.out"; gs_fail "cpath: no 'NO' cuBLAS line"; }
  echo " $flags " | grep -q -- "-lcublas" && gs_fail "cpath: -lcublas without cuBLAS: $flags"
fi
PATH=$tmp/onpath/bin:$path CUDA_HOME=$tmp/home conf nocublas --without-cublas
sed -n 's/^  cuBLAS \.* //p' "$tmp/nocublas.out" | grep -q -- '--without-cublas' || { cat "$tmp/nocublas.out"; gs_fail "nocublas: cuBLAS used"; }
PATH=$tmp/onpath/bin:$path CUDA_HOME=$tmp/home CUDA_PATH=$tmp/cpath conf with --with-cuda="$tmp/with"
expect with "--with-cuda=PATH" "^yes: $tmp/with \(CUDA 13\.0\)"
# nvcc in PATH, cudart in targets/x86_64-linux/lib.
PATH=$tmp/onpath/bin:$path conf onpath
expect onpath "nvcc in PATH" "^yes: $tmp/onpath \(CUDA 12\.8\)"
has_flag onpath "CUDA_LIBS=-L$tmp/onpath/targets/x86_64-linux/lib"
# Debian: nothing beside nvcc, the compiler finds the header and cudart itself: no -I, no -L.
mkdir -p "$tmp/sys"
fake "$tmp/sys" 12.2
PATH=$tmp/deb/bin:$path CPATH=$tmp/sys/include LIBRARY_PATH=$tmp/sys/lib64 conf deb
expect deb "Debian layout" "^yes: $tmp/deb \(CUDA 12\.2\)"
echo "$flags" | grep -q 'CUDA_CPPFLAGS= ' || gs_fail "deb: CUDA_CPPFLAGS should be empty: $flags"
echo "$flags" | grep -q 'CUDA_LIBS=-lcudart' || gs_fail "deb: CUDA_LIBS should have no -L: $flags"
# The NVIDIA HPC SDK, through NVHPC_ROOT (what its module sets).
PATH=$path NVHPC_ROOT=$tmp/hpc/Linux_x86_64/24.5 conf hpc
expect hpc "HPC SDK" "^yes: $tmp/hpc/Linux_x86_64/24\.5/cuda \(CUDA 12\.6\)"

# Found but unusable: CPU-only with a warning naming the reason (in the summary's last lines),
# or, with --with-cuda, an error.
for bad in old:"older than 12.0" nocub:"cannot compile cuda/gs_reduce_cub.cu" nolib:"do not link with cudart"; do
  b=${bad%%:*} why=${bad#*:}
  PATH=$path CUDA_HOME=$tmp/$b conf $b
  expect $b "unusable CUDA" "^NO, although CUDA was found at $tmp/$b"
  tail -3 "$tmp/$b.out" | grep -q "WARNING: CUDA at $tmp/$b is NOT used: .*$why" ||
    { cat "$tmp/$b.out"; gs_fail "$b: no closing warning saying '$why'"; }
  PATH=$path conf $b-with --with-cuda="$tmp/$b"
  [ $rc != 0 ] && grep -q "error: --with-cuda was given but no working CUDA.*$why" "$tmp/$b-with.out" ||
    { cat "$tmp/$b-with.out"; gs_fail "$b: --with-cuda did not fail saying '$why'"; }
done
# Nothing found: a quiet CPU-only build (unless this machine has a real /usr/local/cuda, which
# configure rightly finds: not run then, as it would compile the real CUB source).
if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "PASS (no-CUDA case not run: /usr/local/cuda/bin/nvcc exists here)"
  exit 0
fi
PATH=$path conf none
expect none "no CUDA" "^no: CPU-only build"
grep -q "WARNING: CUDA" "$tmp/none.out" && gs_fail "none: a warning without any CUDA"
echo "PASS"
