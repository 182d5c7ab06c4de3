#!/usr/bin/env bash
# rules/alertmanager-inhibit.yml against a real Alertmanager (Debian prometheus-alertmanager, gossip
# off, loopback): podwait's sources silence exactly the generic alerts of the same pod, StatefulSet
# or TiDB cluster, with and without the Kubernetes `cluster` label, and stop when the source resolves.
set -euo pipefail
cd "$(dirname "$0")/../.."

py=python3
if ! "$py" -c 'import yaml' 2>/dev/null; then py=/usr/bin/python3; fi
exec timeout --kill-after=10 120 "$py" tests/e2e/inhibit_check.py
