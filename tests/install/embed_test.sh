#!/bin/sh
# embed_test.sh HOW PREFIX WORK CXX LAUNCHER LIBDIR: builds the out-of-tree
# program embed/ in WORK against the accelcheck installed at PREFIX, through
# its CMake package (HOW find_package) or its pkg-config file (HOW
# pkg_config), then runs it. LAUNCHER (ccache, or empty) wraps the compiler.
set -eu
how=$1 prefix=$2 work=$3 cxx=$4 launcher=$5 libdir=$6
source=$(dirname "$0")/embed
rm -rf "$work" && mkdir -p "$work"
case "$how" in
  find_package)
    cmake -S "$source" -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" >/dev/null
    cmake --build "$work" >/dev/null
    ;;
  pkg_config)
    flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs accelcheck)
    echo "pkg-config: $flags"
    case "$flags" in *"-I$prefix/"*"-laccelcheck_api"*) ;; *) exit 1 ;; esac
    # shellcheck disable=SC2086 # the launcher and the flags are lists of words
    $launcher "$cxx" -std=c++20 -o "$work/embed" "$source/embed.cc" $flags
    ;;
  *) echo "embed_test.sh: unknown way $how" >&2; exit 2 ;;
esac
"$work/embed"
