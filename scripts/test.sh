#!/usr/bin/env bash
# Builds and runs every test of podwait: unit tests, integration and end-to-end tests (the real
# exporter, simulator, promtool, Prometheus and Alertmanager on loopback), the rules, dashboard
# and deploy checks; then, in one AddressSanitizer + UndefinedBehaviorSanitizer tree, every fuzz
# target for a bounded time (libFuzzer, scripts/fuzz.sh) and the C++ unit and integration tests
# again; then those tests under ThreadSanitizer.
#
#   scripts/test.sh [--quick] [--no-tsan] [--no-fuzz]
#     --quick    skip the fuzz run and both sanitizer passes
#     --no-tsan  skip the ThreadSanitizer pass
#     --no-fuzz  skip the fuzz run ($PODWAIT_FUZZ_SECONDS per target, default 12)
#   PODWAIT_JOBS: build jobs (default: the cores); PODWAIT_TEST_JOBS: tests at a time (twice that)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
tsan=1
fuzz=1
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    --no-tsan) tsan=0 ;;
    --no-fuzz) fuzz=0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done

# "== name (+elapsed)": where the suite's time goes, in the log of every run.
phase() { echo "== $1 (+${SECONDS}s)"; }

phase setup
scripts/setup.sh test
jobs=${PODWAIT_JOBS:-$(nproc)}
# Tests mostly wait (for processes to start, for a watch, a scrape, a deadline): at one test per
# core the three ctest runs keep only ~1 core busy, at two per core they take ~60% of the time.
test_jobs=${PODWAIT_TEST_JOBS:-$((jobs * 2))}
export PODWAIT_ARTIFACTS=${PODWAIT_ARTIFACTS:-$PWD/build/artifacts}
mkdir -p "$PODWAIT_ARTIFACTS"

phase build
scripts/build.sh
phase tests
(cd build && ctest -j "$test_jobs" --output-on-failure --timeout 600)

if [ $quick -eq 0 ]; then
  # One clang ASan+UBSan tree serves both the fuzz run and the sanitized tests.
  phase "build (ASan+UBSan)"
  scripts/build.sh --asan
  if [ $fuzz -eq 1 ]; then
    phase "fuzz (libFuzzer, ASan+UBSan)"
    scripts/fuzz.sh --seconds "${PODWAIT_FUZZ_SECONDS:-12}"
  fi
  phase "tests (ASan+UBSan)"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest -j "$test_jobs" --output-on-failure --timeout 600 -L 'unit|integration')
fi
if [ $quick -eq 0 ] && [ $tsan -eq 1 ]; then
  phase "build (TSan)"
  scripts/build.sh --tsan
  phase "tests (TSan)"
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest -j "$test_jobs" --output-on-failure --timeout 600 -L 'unit|integration')
fi
phase "all passed"
