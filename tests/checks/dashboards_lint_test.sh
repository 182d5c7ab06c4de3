#!/usr/bin/env bash
# Static checks of the Grafana dashboards (dashboards/*.json):
#  - the committed JSON is what the mixin renders (mixin/build.sh --check);
#  - dashboards/tools/check_dashboards.py lint passes on both dashboards (promtool, the metric
#    contract and rules/podwait.rules.yml's record names);
#  - what the issues ask of each dashboard (uids, tags, variables, panels, links; the pods that
#    need attention with links to the status page and the runbook, podwait's alert list) is there;
#  - the checker rejects every deliberately broken fixture in dashboards/tests/, each for the rule
#    its file name names, and accepts the good fixture they are made from.
# Run from the source root (ctest does).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

checker=dashboards/tools/check_dashboards.py
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

if mixin/build.sh --check >/dev/null; then
  ok "dashboards are up to date with the mixin"
else
  fail "dashboards are out of date"
fi

if out=$(python3 "$checker" lint --rules rules/podwait.rules.yml \
  dashboards/podwait-overview.json dashboards/podwait-cluster.json 2>&1); then
  ok "lint: podwait-overview.json, podwait-cluster.json"
else
  fail "lint of the dashboards:"
  echo "$out"
fi

# What the issue asks for, beyond the generic lint rules.
if out=$(python3 - <<'EOF' 2>&1
import json, re

def load(name):
    with open(f"dashboards/{name}") as f:
        return json.load(f)

def panels(d):
    for p in d["panels"]:
        yield p
        yield from p.get("panels", [])

def var(d, name):
    return next(v for v in d["templating"]["list"] if v["name"] == name)

errors = []
def want(cond, msg):
    if not cond:
        errors.append(msg)

ov, cl = load("podwait-overview.json"), load("podwait-cluster.json")
for d, uid in ((ov, "podwait-overview"), (cl, "podwait-cluster")):
    want(d["uid"] == uid, f"uid {d['uid']} != {uid}")
    want({"podwait", "tidb"} <= set(d["tags"]), f"{uid}: tags {d['tags']}")
    want(36 <= d["schemaVersion"] <= 39, f"{uid}: schemaVersion {d['schemaVersion']}")
    ids = [p["id"] for p in panels(d)]
    want(len(ids) == len(set(ids)), f"{uid}: duplicate panel ids")
    for p in panels(d):
        g = p["gridPos"]
        want(g["x"] + g["w"] <= 24, f"{uid}: panel {p['title']} overflows the grid")

tc = var(ov, "tidb_cluster")
want(tc["multi"] and tc["includeAll"] and tc["allValue"] == ".+" and tc["refresh"] == 2,
     "overview: tidb_cluster must be multi, includeAll, allValue .+, refresh 2")
want("tidb_cluster" in tc["query"] and "$namespace" in tc["query"],
     "overview: tidb_cluster must list tidb_cluster values of the selected namespaces")
want(var(ov, "namespace")["refresh"] == 2, "overview: namespace refresh")
ctc = var(cl, "tidb_cluster")
want(not ctc["multi"] and not ctc.get("includeAll"), "drill-down: tidb_cluster single-select")

by_title = {p["title"]: p for p in panels(ov)}
for title, kind in {
    "Waiting pods by class": "timeseries",
    "Oldest wait by class": "timeseries",
    "PD and TiKV readiness": "state-timeline",
    "Waiting pods": "table",
    "Time to schedule by class": "timeseries",
    "Time in init by class": "timeseries",
    "TiKV stores by state": "timeseries",
    "Failover during dependency waits": "timeseries",
    "Watch sync by resource": "state-timeline",
    "PD API probe success": "state-timeline",
    "Parse errors and watch events": "timeseries",
}.items():
    want(by_title.get(title, {}).get("type") == kind, f"overview: no {kind} panel {title!r}")

stacked = by_title["Waiting pods by class"]
want(stacked["fieldConfig"]["defaults"]["custom"]["stacking"]["mode"] == "normal",
     "waiting pods by class must be stacked")
colors = {o["matcher"]["options"]: o["properties"][0]["value"]["fixedColor"]
          for o in stacked["fieldConfig"]["overrides"]}
calm = {"blue", "light-blue", "dark-blue", "green", "light-green", "#8F8F8F"}
# The classes and whether each is expected, from the contract (mixin/contract.json).
contract_classes = json.load(open("mixin/contract.json"))["classes"]
for c in (x["name"] for x in contract_classes if x["expected"]):
    want(colors.get(c) in calm, f"expected class {c} must be calm, is {colors.get(c)}")
for c in (x["name"] for x in contract_classes if not x["expected"]):
    want(re.search("red|orange", colors.get(c, "")), f"shortfall class {c} must be loud")

table = by_title["Waiting pods"]
t = table["targets"][0]
want(t["instant"] and t.get("format") == "table", "table: instant query, format table")
want("podwait_pod_waiting_seconds" in t["expr"], "table reads podwait_pod_waiting_seconds")
org = next(x for x in table["transformations"] if x["id"] == "organize")["options"]
for col in ("pod", "component", "stage", "class", "reason"):
    want(col in org["indexByName"], f"table: no column {col}")
want(org["renameByName"].get("Value") == "waiting for", "table: Value shown as 'waiting for'")
want(table["fieldConfig"]["defaults"]["unit"] == "s", "table: unit s")

for title in ("Time to schedule by class", "Time in init by class"):
    for tgt in by_title[title]["targets"]:
        want("histogram_quantile" in tgt["expr"] and "by (class, le)" in tgt["expr"],
             f"{title}: quantiles split by class")

text = json.dumps(ov)
want("/d/podwait-cluster/" in text and "var-tidb_cluster=${__data.fields.tidb_cluster}" in text,
     "overview: table links to the drill-down with the row's tidb_cluster")
want(any(l.get("url", "").startswith("/d/podwait-cluster/") and l["includeVars"]
         for l in ov["links"]), "overview: dashboard link to the drill-down with includeVars")
want(any(l.get("url", "").startswith("/d/podwait-overview/") for l in cl["links"]),
     "drill-down: link back to the overview")

# The why and the next hop (issue 37): the pods that need attention with their class, reason and
# waiting time, links from a row to the status page filtered to the pod and to the runbook
# section of its class, and podwait's alerts, on both dashboards.
import yaml
alerts = {r["alert"] for g in yaml.safe_load(open("rules/podwait.rules.yml"))["groups"]
          for r in g["rules"] if "alert" in r}
expected_classes = {x["name"] for x in contract_classes if x["expected"]}
for d, uid in ((ov, "overview"), (cl, "drill-down")):
    titled = {p["title"]: p for p in panels(d)}
    need = titled.get("Pods that need attention", {})
    want(need.get("type") == "table", f"{uid}: no table 'Pods that need attention'")
    expr = need.get("targets", [{}])[0].get("expr", "")
    m = re.search(r'class!~"([^"]+)"', expr)
    want(m and set(m.group(1).split("|")) == expected_classes,
         f"{uid}: the attention table leaves out exactly the expected classes: {expr}")
    org = next(x for x in need.get("transformations", []) if x["id"] == "organize")["options"]
    for col in ("pod", "class", "reason", "Value"):
        want(col in org["indexByName"], f"{uid}: attention table has no column {col}")
    for title in ("Pods that need attention", "Waiting pods"):
        links = {o["matcher"]["options"]: o["properties"][0]["value"]
                 for o in titled[title]["fieldConfig"]["overrides"]
                 if o["properties"][0]["id"] == "links"}
        pod = [l["url"] for l in links.get("pod", [])]
        want(pod and pod[0].startswith("http") and
             pod[0].endswith("/?namespace=${__data.fields.namespace:percentencode}"
                             "&pod=${__data.fields.pod:percentencode}"),
             f"{uid}: {title}: the pod links the status page filtered to it: {pod}")
        book = [l["url"] for l in links.get("reason", [])]
        want(book and book[0].startswith("http") and book[0].endswith("/runbook#class-${__data.fields.class}"),
             f"{uid}: {title}: the reason links the runbook section of its class: {book}")
    al = titled.get("podwait alerts", {})
    want(al.get("type") == "alertlist", f"{uid}: no alert list 'podwait alerts'")
    f = al.get("options", {}).get("alertInstanceLabelFilter", "")
    m = re.search(r'alertname=~"([^"]+)"', f)
    want(m and set(m.group(1).split("|")) == alerts,
         f"{uid}: the alert list shows every podwait alert and only those: {f}")
    want(al.get("options", {}).get("stateFilter", {}).get("firing") and
         al["options"]["stateFilter"].get("pending"), f"{uid}: the alert list shows firing and pending")

for e in errors:
    print(e)
raise SystemExit(1 if errors else 0)
EOF
); then
  ok "overview and drill-down have the panels, variables and links of the issue"
else
  fail "dashboard structure:"
  echo "$out"
fi

# The checker must be able to fail: each broken fixture violates exactly the rule in its name.
if out=$(python3 "$checker" lint --rules rules/podwait.rules.yml dashboards/tests/good.json 2>&1)
then
  ok "good fixture passes"
else
  fail "good fixture rejected:"
  echo "$out"
fi
count=0
for f in dashboards/tests/broken-*.json; do
  count=$((count + 1))
  rule=$(basename "$f" .json)
  rule=${rule#broken-}
  out=$(python3 "$checker" lint --rules rules/podwait.rules.yml "$f" 2>&1)
  rc=$?
  if [ $rc -eq 1 ] && grep -q "\[$rule\]" <<<"$out"; then
    ok "rejects $(basename "$f") [$rule]"
  else
    fail "$(basename "$f"): want exit 1 and [$rule], got exit $rc:"
    echo "$out"
  fi
done
if [ "$count" -ge 10 ]; then
  ok "$count broken fixtures"
else
  fail "only $count broken fixtures in dashboards/tests/"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
