#!/usr/bin/env bash
# ctest "package: install, find_package and pkg-config": installs the built Harmonic into a
# scratch prefix, builds and runs the consumer project beside this script against it
# (find_package(Harmonic)) and against the build tree itself (-DHarmonic_DIR=build), then compiles, links and runs a one-line program with
# `pkg-config --cflags --libs harmonic`.
# Usage: run.sh <harmonic source dir> <harmonic build dir> <scratch dir (wiped first)>
# The environment picks the generator, compiler and launcher (CMAKE_GENERATOR, CXX,
# CMAKE_CXX_COMPILER_LAUNCHER), as ctest sets them from the parent build; CXXFLAGS and LDFLAGS
# reach both consumers (.ci/sanitize builds them with the sanitizers).
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
echo "installed into $prefix: $(find "$prefix/include/harmonic" -name '*.h' | wc -l) headers, $(ls "$prefix/lib" | tr "\n" " ")"
[[ -f "$prefix/include/harmonic/harmonic.h" ]] || { echo "no include/harmonic/harmonic.h (the umbrella)"; exit 1; }

cmake -S "$src/tests/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
      -DHARMONIC_EXAMPLE_SOURCE="$src/tests/train/test_readme_example.cpp" >"$work/consumer-configure.log"
cmake --build "$work/consumer" >"$work/consumer-build.log" || { cat "$work/consumer-build.log"; exit 1; }
"$work/consumer/app"

# The same project against the build tree, uninstalled: find_package(Harmonic) via Harmonic_DIR.
cmake -S "$src/tests/install" -B "$work/consumer-tree" -DHarmonic_DIR="$build" -DHARMONIC_ALL_HEADERS=OFF \
      -DHARMONIC_EXAMPLE_SOURCE="$src/tests/train/test_readme_example.cpp" >"$work/consumer-tree-configure.log"
cmake --build "$work/consumer-tree" >"$work/consumer-tree-build.log" || { cat "$work/consumer-tree-build.log"; exit 1; }
"$work/consumer-tree/app"
echo "build-tree package (-DHarmonic_DIR=$build) ran"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs harmonic)
echo "pkg-config --cflags --libs harmonic: $flags"
printf '#include <harmonic/harmonic.h>\nint main() { return hm::ones({2, 3}).numel() == 6 ? 0 : 1; }\n' >"$work/one.cpp"
# shellcheck disable=SC2086  # the flags are meant to split
${CXX:-c++} ${CXXFLAGS:-} "$work/one.cpp" -o "$work/one" $flags ${LDFLAGS:-}
LD_LIBRARY_PATH=$prefix/lib "$work/one"
echo "pkg-config program ran"
