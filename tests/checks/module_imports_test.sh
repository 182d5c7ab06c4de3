#!/usr/bin/env bash
# The module picture of docs/DESIGN.md holds: includes between exporter/ modules point down only,
# kube/ is a plain Kubernetes client (no metrics/, no config/), state/ and metrics/ never include
# sources/, metrics/ and http/ never include evaluate/ (they read model/waiting.h), explain/ never
# includes app/, and wait-for-pd links only pd, net and common.
set -euo pipefail
python3 tests/checks/tools/module_imports.py . "${PODWAIT_BUILD_DIR:-build}"
# The check itself catches a violation: a scratch tree with one bad include fails it.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r exporter wait-for-pd "$tmp/"
echo '#include "exporter/sources/pods.h"' >> "$tmp/exporter/state/pod_store.h"
if python3 tests/checks/tools/module_imports.py "$tmp" > "$tmp/out" 2>&1; then
  echo "the check did not catch state/ including sources/" >&2
  exit 1
fi
grep -q "state must not include exporter/sources/" "$tmp/out"
# ... and metrics/ including the evaluation (the waiting values are model/waiting.h).
cp exporter/state/pod_store.h "$tmp/exporter/state/pod_store.h"
echo '#include "exporter/evaluate/pipeline.h"' >> "$tmp/exporter/metrics/waiting_collector.h"
if python3 tests/checks/tools/module_imports.py "$tmp" > "$tmp/out" 2>&1; then
  echo "the check did not catch metrics/ including evaluate/" >&2
  exit 1
fi
grep -q "metrics must not include exporter/evaluate/" "$tmp/out"
echo "module imports: ok"
