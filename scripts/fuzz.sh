#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) in the clang ASan+UBSan tree, build-asan/ (the tree
# `scripts/build.sh --asan` makes and scripts/test.sh tests in: one build for both), and runs each
# for a bounded time, starting from its seed corpus and regression inputs, $PODWAIT_JOBS targets
# at a time. Any crash fails the run; the input is left in build-asan/fuzz-artifacts/<target>/
# (keep it as tests/fuzz/regressions/<target>/<name> so the replay test guards the fix).
#
#   scripts/fuzz.sh [--seconds N] [--build-only] [TARGET...]
#     --seconds N   run time per target (default: $PODWAIT_FUZZ_SECONDS or 20)
#     --build-only  build, do not run
#   Targets: the names in tests/fuzz/CMakeLists.txt (pod, event, ...); default all.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${PODWAIT_FUZZ_SECONDS:-20}
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift ;;
    --build-only) build_only=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(sed -n 's/^ *\([a-z_0-9]*\):podwait_[a-z]*)\{0,1\}$/\1/p' tests/fuzz/CMakeLists.txt)
fi

command -v clang++ >/dev/null || { echo "fuzz: libFuzzer needs clang (scripts/setup.sh test)" >&2; exit 1; }
dir=build-asan
jobs=${PODWAIT_JOBS:-$(nproc)}
bins=()
for t in "${targets[@]}"; do bins+=("${t}_fuzz"); done
scripts/build.sh --asan "${bins[@]}"
[ $build_only -eq 1 ] && exit 0

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Runs one target; its one-line summary goes to $dir/fuzz/<target>.summary.
run_one() {
  local t=$1 rc=0
  local work=$dir/fuzz-corpus/$t artifacts=$dir/fuzz-artifacts/$t log=$dir/fuzz/$t.log
  mkdir -p "$work" "$artifacts"
  local inputs=("$work" "tests/fuzz/corpus/$t")
  [ -d "tests/fuzz/regressions/$t" ] && inputs+=("tests/fuzz/regressions/$t")
  "$dir/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=32768 -print_final_stats=1 -artifact_prefix="$artifacts/" "${inputs[@]}" \
    >"$log" 2>&1 || rc=$?
  local done_line execs cov ft
  done_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
  if [ $rc -ne 0 ]; then
    {
      echo "fuzz $t FAILED (rc $rc); input in $artifacts/, log $log:"
      grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -20 || true
    } >&2
  fi
  printf '%-16s %-6s execs=%-10s cov=%-6s ft=%s\n' "$t" "$([ $rc -eq 0 ] && echo ok || echo FAIL)" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" >"$dir/fuzz/$t.summary"
  return $rc
}

echo "== fuzz ${targets[*]} (${seconds}s each, $jobs at a time)"
failed=0
running=0
for t in "${targets[@]}"; do
  if [ $running -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
while [ $running -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
echo "== fuzz summary (${seconds}s per target)"
for t in "${targets[@]}"; do cat "$dir/fuzz/$t.summary"; done
exit $failed
