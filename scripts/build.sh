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

if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" "${args[@]}" >/dev/null
fi
jobs=${PODWAIT_JOBS:-$(nproc)}
if [ ${#targets[@]} -gt 0 ]; then
  cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
else
  cmake --build "$dir" -j "$jobs"
fi
