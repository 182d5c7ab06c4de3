#!/usr/bin/env bash
# Live check of the Grafana dashboards: on the end-to-end stack (tests/e2e/stack.py: simulator on
# the demo scenario, exporter, Prometheus with rules/podwait.rules.yml), every panel and variable
# query of dashboards/*.json, variables substituted with the demo's values, must return data.
# See tests/dashboards/live_e2e.py. Bounded: the whole run is killed after 8 minutes, and the
# stack stops every process it started on exit or on SIGTERM.
# Run from the source root with PODWAIT_BUILD_DIR set (ctest does).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

build=${PODWAIT_BUILD_DIR:-build}
for bin in podwait-exporter podwait-sim; do
  if [ ! -x "$build/$bin" ]; then
    echo "FAIL $build/$bin not found: build it first (scripts/build.sh $bin)"
    echo "0 passed, 1 failed"
    exit 1
  fi
done
timeout -k 15 480 python3 tests/dashboards/live_e2e.py --build-dir "$build"
