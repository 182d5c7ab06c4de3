#!/usr/bin/env bash
# The generated Prometheus Operator objects of deploy/monitoring/ match their sources:
# prometheusrule.yaml is rules/*.yml wrapped into a PrometheusRule, grafana-dashboards.yaml holds
# dashboards/*.json in ConfigMaps. `generate_monitoring.py --check` must pass on the tree as
# committed, and must fail once a rule or a dashboard changes without regenerating.
#
# Run from the source root.
set -euo pipefail
cd "$(dirname "$0")/../.."

passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
gen=deploy/tools/generate_monitoring.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if python3 "$gen" --check >/dev/null 2>"$tmp/tree.err"; then
  ok "deploy/monitoring is up to date with rules/ and dashboards/"
else
  bad "deploy/monitoring is out of date: run python3 $gen"
  sed 's/^/     /' "$tmp/tree.err"
fi

# A copy of the sources and the generated files, to change without touching the tree.
fresh_copy() {
  rm -rf "$tmp/root"
  mkdir -p "$tmp/root/deploy"
  cp -r rules dashboards "$tmp/root/"
  cp -r deploy/monitoring "$tmp/root/deploy/"
}
expect_drift() {  # expect_drift DESCRIPTION: --check on $tmp/root must fail with exit 1
  local rc=0
  python3 "$gen" --root "$tmp/root" --check >/dev/null 2>"$tmp/check.err" || rc=$?
  if [ "$rc" -eq 1 ] && grep -q "out of date" "$tmp/check.err"; then
    ok "--check notices $1"
  else
    bad "--check did not notice $1 (exit $rc)"
    sed 's/^/     /' "$tmp/check.err"
  fi
}

fresh_copy
if python3 "$gen" --root "$tmp/root" --check >/dev/null 2>&1; then
  ok "--check passes on an unchanged copy"
else
  bad "--check fails on an unchanged copy"
fi

fresh_copy
sed -i '0,/for: /s/for: [0-9a-z]*/for: 42m/' "$tmp/root/rules/podwait.rules.yml"
expect_drift "a changed alert duration in rules/podwait.rules.yml"

fresh_copy
cp "$tmp/root/rules/podwait.rules.yml" "$tmp/root/rules/extra.yml"
sed -i 's/- name: podwait\./- name: extra./' "$tmp/root/rules/extra.yml"
expect_drift "a new rule file"

fresh_copy
python3 - "$tmp/root/dashboards" <<'PY'
import json, pathlib, sys
path = sorted(pathlib.Path(sys.argv[1]).glob("*.json"))[0]
d = json.loads(path.read_text())
d["title"] = d.get("title", "") + " (changed)"
path.write_text(json.dumps(d, indent=2) + "\n")
PY
expect_drift "a changed dashboard title"

fresh_copy
sed -i 's/^\(    \)/\1  /' "$tmp/root/deploy/monitoring/prometheusrule.yaml"
expect_drift "a hand edit of the generated PrometheusRule"

# Regenerating the changed copy makes --check pass again, and the generated files parse back to
# exactly their sources (the generator compares them itself; this runs that comparison).
fresh_copy
sed -i '0,/for: /s/for: [0-9a-z]*/for: 42m/' "$tmp/root/rules/podwait.rules.yml"
if python3 "$gen" --root "$tmp/root" >/dev/null && python3 "$gen" --root "$tmp/root" --check >/dev/null &&
  grep -q "for: 42m" "$tmp/root/deploy/monitoring/prometheusrule.yaml"; then
  ok "regenerating picks up the change"
else
  bad "regenerating did not pick up the change"
fi
python3 - deploy/monitoring/prometheusrule.yaml deploy/monitoring/grafana-dashboards.yaml <<'PY' >"$tmp/labels.log" 2>&1 || true
import sys, yaml
rule = yaml.safe_load(open(sys.argv[1]))
assert rule["kind"] == "PrometheusRule" and rule["spec"]["groups"], "no rule groups"
alerts = [r["alert"] for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r]
assert alerts, "no alerts in the PrometheusRule"
maps = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
assert maps, "no dashboard ConfigMaps"
for m in maps:
    assert m["metadata"]["labels"].get("grafana_dashboard") == "1", m["metadata"]["name"]
    assert len(m["data"]) == 1 and list(m["data"])[0].endswith(".json"), m["metadata"]["name"]
print("%d alerts, %d dashboards" % (len(alerts), len(maps)))
PY
if grep -q "alerts, .* dashboards" "$tmp/labels.log"; then
  ok "generated objects: $(cat "$tmp/labels.log"), each dashboard labelled grafana_dashboard=\"1\""
else
  bad "generated objects"
  sed 's/^/     /' "$tmp/labels.log"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
