#!/usr/bin/env bash
# The monitoring mixin (mixin/), rendered with Debian's jsonnet:
#  - rules/, dashboards/ and deploy/monitoring are exactly what mixin/build.sh renders; --check
#    notices a hand edit of a rendered file and a mixin change that was not rendered;
#  - _config changes show up in the rendered rules: another job selector, another cluster label and
#    another threshold (and the rendered rules still pass promtool);
#  - runbook links are absolute: externalURL sets them, a relative runbookURLPattern stops the build;
#  - the class vocabulary comes from mixin/contract.json: a class that turns unexpected leaves the
#    "waiting as designed" queries, and a new class without a colour stops the build.
# Run from the source root (ctest does).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if out=$(mixin/build.sh --check 2>&1); then
  ok "rules/, dashboards/ and deploy/monitoring match the mixin"
else
  bad "the rendered files drifted from the mixin:"
  printf '     %s\n' "$out"
fi

# A copy of the tree's monitoring files, to change without touching the tree.
fresh_copy() {
  rm -rf "$tmp/root"
  mkdir -p "$tmp/root/deploy"
  cp -r mixin rules dashboards "$tmp/root/"
  cp -r deploy/monitoring deploy/tools "$tmp/root/deploy/"
}
expect_drift() {  # expect_drift DESCRIPTION
  local rc=0
  "$tmp/root/mixin/build.sh" --check >/dev/null 2>"$tmp/check.err" || rc=$?
  if [ "$rc" -eq 1 ] && grep -q "out of date" "$tmp/check.err"; then
    ok "--check notices $1"
  else
    bad "--check did not notice $1 (exit $rc)"
    sed 's/^/     /' "$tmp/check.err"
  fi
}
fresh_copy
sed -i 's/for: 5m/for: 6m/' "$tmp/root/rules/podwait.rules.yml"
expect_drift "a hand edit of rules/podwait.rules.yml"
fresh_copy
sed -i 's/"refresh": "30s"/"refresh": "1m"/' "$tmp/root/dashboards/podwait-cluster.json"
expect_drift "a hand edit of a dashboard"
fresh_copy
sed -i 's/watchStaleSeconds: 1800/watchStaleSeconds: 3600/' "$tmp/root/mixin/config.libsonnet"
expect_drift "a _config change that was not rendered"
fresh_copy
sed -i 's/equal: \[namespace, pod, cluster\]/equal: [namespace, pod]/' \
  "$tmp/root/rules/alertmanager-inhibit.yml"
expect_drift "a hand edit of rules/alertmanager-inhibit.yml"

# _config overrides, the way a user imports the mixin.
cat >"$tmp/custom.jsonnet" <<'EOF'
(import 'mixin.libsonnet') + {
  _config+:: {
    podwaitSelector: 'job="monitoring/podwait"',
    clusterLabel: 'k8s_cluster',
    alerts+: { PodCapacityShortfall+: { 'for': '42m' } },
    watchStaleSeconds: 3600,
  },
}
EOF
if mixin/build.sh --out "$tmp/custom" --mixin "$tmp/custom.jsonnet" 2>"$tmp/custom.err"; then
  if out=$(python3 - "$tmp/custom" <<'PY' 2>&1
import json, pathlib, re, sys, yaml
root = pathlib.Path(sys.argv[1])
rules = yaml.safe_load((root / "rules/podwait.rules.yml").read_text())
inhibit = yaml.safe_load((root / "rules/alertmanager-inhibit.yml").read_text())
by_name = {r.get("alert") or r.get("record"): r for g in rules["groups"] for r in g["rules"]}
problems = []
def want(cond, what):
    if not cond:
        problems.append(what)
down = by_name["PodwaitExporterDown"]["expr"]
want('up{job="monitoring/podwait"} == 0' in down and 'absent(up{job="monitoring/podwait"})' in down,
     "PodwaitExporterDown does not use the job selector: " + down)
want(".*podwait.*" not in down, "the default job selector is still there")
want(by_name["PodCapacityShortfall"].get("for") == "42m", "PodCapacityShortfall for is not 42m")
want(by_name["PodScaleUpTooSlow"].get("for") == "10m", "an untouched alert lost its for")
stale = by_name["PodwaitWatchStale"]
want("> 3600" in stale["expr"] and "over 60 minutes" in stale["annotations"]["description"],
     "watchStaleSeconds is not in PodwaitWatchStale")
clauses = 0
for name, r in by_name.items():
    for m in re.finditer(r"\b(by|on) \(([^)]*)\)", r["expr"]):
        labels = [l.strip() for l in m.group(2).split(",")]
        if labels == ["class", "le"] or labels == ["pod"] or labels == [""]:
            continue
        clauses += 1
        want(labels[0] == "k8s_cluster" and "cluster" not in labels,
             f"{name}: {m.group(0)} does not start with the cluster label k8s_cluster")
want(clauses > 20, f"only {clauses} by/on clauses checked")
tdnr = by_name["TiDBDependencyNotReady"]["annotations"]["description"]
want("k8s_cluster=%q" in tdnr and "$labels.k8s_cluster" in tdnr, "the description query keeps cluster")
for rule in inhibit["inhibit_rules"]:
    want("k8s_cluster" in rule["equal"] and "cluster" not in rule["equal"],
         f"inhibition equal {rule['equal']}")
for name in ("podwait-overview.json", "podwait-cluster.json"):
    text = (root / "dashboards" / name).read_text()
    want('k8s_cluster=~\\"$cluster\\"' in text, f"{name} does not select by k8s_cluster")
    want('cluster=~\\"$cluster\\"' not in text.replace('k8s_cluster=~\\"$cluster\\"', ""),
         f"{name} still selects by cluster")
print("\n".join(problems) if problems else "fine")
sys.exit(1 if problems else 0)
PY
  ); then
    ok "_config: job selector, cluster label (rules, inhibitions, dashboards) and thresholds render"
  else
    bad "_config overrides:"
    printf '     %s\n' "$out"
  fi
  if out=$(promtool check rules "$tmp/custom/rules/podwait.rules.yml" 2>&1); then
    ok "promtool accepts the rules rendered with the overrides"
  else
    bad "promtool check rules on the overridden rules:"
    printf '     %s\n' "$out"
  fi
else
  bad "rendering with _config overrides failed:"
  sed 's/^/     /' "$tmp/custom.err"
fi

# A relative runbook URL opens nothing in a notification: the build refuses it.
cat >"$tmp/relative.jsonnet" <<'EOF'
(import 'mixin.libsonnet') + { _config+:: { runbookURLPattern: 'rules/RUNBOOK.md#%s' } }
EOF
if mixin/build.sh --out "$tmp/relative" --mixin "$tmp/relative.jsonnet" 2>"$tmp/relative.err"; then
  bad "a relative runbookURLPattern rendered"
elif grep -q "runbookURLPattern must give an absolute" "$tmp/relative.err"; then
  ok "a relative runbookURLPattern stops the build"
else
  bad "a relative runbookURLPattern failed for another reason:"
  sed 's/^/     /' "$tmp/relative.err"
fi
cat >"$tmp/external.jsonnet" <<'EOF'
(import 'mixin.libsonnet') + { _config+:: { externalURL: 'https://ops.example.com/podwait' } }
EOF
if mixin/build.sh --out "$tmp/external" --mixin "$tmp/external.jsonnet" 2>"$tmp/external.err" &&
  grep -q "runbook_url: https://ops.example.com/podwait/runbook#podcapacityshortfall" \
    "$tmp/external/rules/podwait.rules.yml"; then
  ok "externalURL sets the runbook links"
else
  bad "externalURL did not set the runbook links"
  sed 's/^/     /' "$tmp/external.err"
fi

# The class vocabulary is contract.json's: gated turned unexpected moves to the shortfall queries.
cat >"$tmp/contract.jsonnet" <<'EOF'
(import 'mixin.libsonnet') + {
  _contract+:: {
    classes: [c + (if c.name == 'gated' then { expected: false } else {}) for c in super.classes],
  },
}
EOF
if mixin/build.sh --out "$tmp/contract" --mixin "$tmp/contract.jsonnet" 2>"$tmp/contract.err" &&
  grep -q 'class=~\\"dependency|scale_up|scheduling|starting|planned\\"' "$tmp/contract/dashboards/podwait-overview.json" &&
  ! grep -q 'dependency|scale_up|gated' "$tmp/contract/dashboards/podwait-overview.json"; then
  ok "the expected classes of the dashboards come from contract.json"
else
  bad "the dashboards did not follow contract.json's expected classes"
  sed 's/^/     /' "$tmp/contract.err"
fi
cat >"$tmp/newclass.jsonnet" <<'EOF'
(import 'mixin.libsonnet') + {
  _contract+:: { classes+: [{ name: 'quota', expected: false, stages: ['unscheduled'] }] },
}
EOF
if mixin/build.sh --out "$tmp/newclass" --mixin "$tmp/newclass.jsonnet" 2>"$tmp/newclass.err"; then
  bad "a class without a colour rendered"
elif grep -q "no colour for class(es) quota" "$tmp/newclass.err"; then
  ok "a new class in contract.json without a colour stops the build, naming it"
else
  bad "a new class without a colour failed for another reason:"
  sed 's/^/     /' "$tmp/newclass.err"
fi

# The mixin's own files are well-formed.
if python3 -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' \
  mixin/jsonnetfile.json mixin/contract.json 2>"$tmp/json.err"; then
  ok "jsonnetfile.json and contract.json parse"
else
  bad "mixin JSON files:"
  sed 's/^/     /' "$tmp/json.err"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
