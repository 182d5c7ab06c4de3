#!/usr/bin/env bash
# End-to-end test of tidb-operator v2's planned waits and of the operator's own alert
# (tests/e2e/v2_alerts_e2e.py): the simulator's v2-planned scenario, the exporter, Prometheus with
# podwait's rules, test copies of kubernetes-mixin's pod alerts and a stand-in tidb-operator
# target, Alertmanager with podwait's inhibitions, and a webhook receiver, all on loopback. Every
# process is stopped on exit; the whole run is bounded to 3 minutes. Needs PODWAIT_BUILD_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."

export PODWAIT_BUILD_DIR=${PODWAIT_BUILD_DIR:-build}
py=python3
if ! "$py" -c 'import yaml' 2>/dev/null; then py=/usr/bin/python3; fi
exec timeout --kill-after=15 180 "$py" tests/e2e/v2_alerts_e2e.py
