#!/usr/bin/env bash
# Static checks of rules/: promtool check (with lint) and the promtool unit tests of every alert and
# recording rule, amtool check-config on the example Alertmanager configuration and on the
# inhibition snippet alone, and rules/tests/lint_rules.py (annotations, runbook links, the cluster
# label, test coverage). Run from anywhere; needs promtool, amtool and python3 with PyYAML.
set -euo pipefail
cd "$(dirname "$0")/../.."

py=python3
if ! "$py" -c 'import yaml' 2>/dev/null; then py=/usr/bin/python3; fi

echo "== promtool check rules"
promtool check rules --lint=all --lint-fatal rules/podwait.rules.yml

echo "== promtool test rules"
promtool test rules rules/tests/*.yml

echo "== amtool check-config"
amtool check-config rules/examples/alertmanager.yml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  printf 'route:\n  receiver: "null"\nreceivers:\n  - name: "null"\n'
  grep -v '^#' rules/alertmanager-inhibit.yml
} > "$tmp/alertmanager.yml"
amtool check-config "$tmp/alertmanager.yml"

echo "== lint"
"$py" rules/tests/lint_rules.py
