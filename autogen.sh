#!/bin/sh
# autogen.sh: make ./configure from a git checkout. Needs autoconf and automake only: our m4/
# macros replace autoconf-archive, and gpusim uses no libtool.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf --force --install --verbose
echo "Now run ./configure (see README.md)."
