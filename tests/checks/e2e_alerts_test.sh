#!/usr/bin/env bash
# End-to-end alert test (tests/e2e/alerts_e2e.py): the simulator's demo scenario, the exporter,
# Prometheus with podwait's rules and generic kubernetes-mixin-style alerts, Alertmanager with
# podwait's inhibitions, and a webhook receiver, all on loopback. Every process is stopped on exit;
# the whole run is bounded to 3 minutes. Needs PODWAIT_BUILD_DIR (podwait-sim, podwait-exporter).
set -euo pipefail
cd "$(dirname "$0")/../.."

export PODWAIT_BUILD_DIR=${PODWAIT_BUILD_DIR:-build}
py=python3
if ! "$py" -c 'import yaml' 2>/dev/null; then py=/usr/bin/python3; fi
exec timeout --kill-after=15 180 "$py" tests/e2e/alerts_e2e.py
