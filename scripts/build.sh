#!/usr/bin/env bash
# Configures and builds podwait with CMake + Ninja.
#
#   scripts/build.sh [--asan|--tsan|--release] [--no-tests] [--dir DIR] [TARGET...]
#
# Default build directory: build/ (build-asan/, build-tsan/ for the sanitizer builds).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=default
tests=ON
dir=
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --asan) mode=asan ;;
    --tsan) mode=tsan ;;
    --release) mode=release ;;
    --no-tests) tests=OFF ;;
    --dir) dir=$2; shift ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) targets+=("$1") ;;
  esac
  shift
done

args=(-G Ninja "-DPODWAIT_TESTS=$tests" "-DPODWAIT_BENCH=$tests")
case "$mode" in
  default) dir=${dir:-build}; args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  release) dir=${dir:-build-release}; args+=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) dir=${dir:-build-asan}; args+=(-DCMAKE_BUILD_TYPE=Debug -DPODWAIT_ASAN=ON -DPODWAIT_BENCH=OFF) ;;
  tsan) dir=${dir:-build-tsan}; args+=(-DCMAKE_BUILD_TYPE=Debug -DPODWAIT_TSAN=ON -DPODWAIT_BENCH=OFF) ;;
esac

# The sanitizer builds use clang when it is there (scripts/setup.sh test installs it): it builds
# them in about 60% of GCC's time, and line tables are all a sanitizer's stack trace needs.
# The default and release builds use the system compiler (GCC), so both compilers' warnings
# are errors.
compiler=()
if [ "$mode" = asan ] || [ "$mode" = tsan ]; then
  if [ -z "${CXX:-}" ] && command -v clang++ >/dev/null; then
    compiler=(CC=clang CXX=clang++)
    args+=("-DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only")
    # lld links the ~120 sanitized test binaries in a third of the time GNU ld takes.
    if command -v ld.lld >/dev/null; then args+=("-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld"); fi
  else
    args+=("-DCMAKE_CXX_FLAGS_DEBUG=-g1")
  fi
fi

if [ ! -f "$dir/build.ninja" ]; then
  env "${compiler[@]}" cmake -S . -B "$dir" "${args[@]}" >/dev/null
fi
jobs=${PODWAIT_JOBS:-$(nproc)}
if [ ${#targets[@]} -gt 0 ]; then
  cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
else
  cmake --build "$dir" -j "$jobs"
fi
