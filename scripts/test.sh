#!/usr/bin/env bash
# Builds and runs every test of podwait: unit tests, integration and end-to-end tests (the real
# exporter, simulator, promtool, Prometheus and Alertmanager on loopback), the rules, dashboard
# and deploy checks; then every fuzz target for a bounded time (libFuzzer, ASan+UBSan,
# scripts/fuzz.sh); then the C++ unit and integration tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer, and under ThreadSanitizer.
#
#   scripts/test.sh [--quick] [--no-tsan] [--no-fuzz]
#     --quick    skip the fuzz run and both sanitizer passes
#     --no-tsan  skip the ThreadSanitizer pass
#     --no-fuzz  skip the fuzz run ($PODWAIT_FUZZ_SECONDS per target, default 12)
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
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done

scripts/setup.sh test
jobs=${PODWAIT_JOBS:-$(nproc)}
export PODWAIT_ARTIFACTS=${PODWAIT_ARTIFACTS:-$PWD/build/artifacts}
mkdir -p "$PODWAIT_ARTIFACTS"

echo "== build"
scripts/build.sh
echo "== tests"
(cd build && ctest -j "$jobs" --output-on-failure --timeout 600)

if [ $quick -eq 0 ] && [ $fuzz -eq 1 ]; then
  echo "== fuzz (libFuzzer, ASan+UBSan)"
  scripts/fuzz.sh --seconds "${PODWAIT_FUZZ_SECONDS:-12}"
fi
if [ $quick -eq 0 ]; then
  echo "== build (ASan+UBSan)"
  scripts/build.sh --asan
  echo "== tests (ASan+UBSan)"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest -j "$jobs" --output-on-failure --timeout 600 -L 'unit|integration')
fi
if [ $quick -eq 0 ] && [ $tsan -eq 1 ]; then
  echo "== build (TSan)"
  scripts/build.sh --tsan
  echo "== tests (TSan)"
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest -j "$jobs" --output-on-failure --timeout 600 -L 'unit|integration')
fi
