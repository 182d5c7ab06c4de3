#!/usr/bin/env bash
# Every class and metric of `podwait-exporter contract` is where people read about it: README's
# and RUNBOOK's class tables, docs/DESIGN.md's tables, the overview dashboard's legend; and
# mixin/contract.json is the binary's output. A class removed from a scratch copy of README fails it.
set -euo pipefail
build=${PODWAIT_BUILD_DIR:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/podwait-exporter" contract > "$tmp/contract.json"
python3 tests/checks/tools/contract_docs.py "$tmp/contract.json" .

mkdir -p "$tmp/src/docs" "$tmp/src/rules" "$tmp/src/dashboards" "$tmp/src/mixin"
cp docs/DESIGN.md "$tmp/src/docs/"
cp mixin/contract.json "$tmp/src/mixin/"
cp rules/RUNBOOK.md "$tmp/src/rules/"
cp dashboards/podwait-overview.json "$tmp/src/dashboards/"
row="| \`gated\` |"
grep -v -F "$row" README.md > "$tmp/src/README.md"
if python3 tests/checks/tools/contract_docs.py "$tmp/contract.json" "$tmp/src" > "$tmp/out"; then
  echo "the check did not notice README's class table without gated" >&2
  exit 1
fi
grep -q "README.md .*class gated is missing" "$tmp/out"
echo "contract docs: ok"
