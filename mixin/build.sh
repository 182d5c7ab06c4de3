#!/usr/bin/env bash
# Renders the mixin into the files the repository ships, so that mixin/ is their one source:
#
#   rules/podwait.rules.yml          prometheusRules + prometheusAlerts (a Prometheus rule file)
#   rules/alertmanager-inhibit.yml   alertmanagerInhibitRules
#   dashboards/podwait-*.json        grafanaDashboards
#   deploy/monitoring/*.yaml         the PrometheusRule and dashboard ConfigMaps made of the above
#                                    (by deploy/tools/generate_monitoring.py)
#
#   mixin/build.sh                   rewrite them
#   mixin/build.sh --check           exit 1 when any of them differs from what the mixin renders
#   mixin/build.sh --out DIR [--mixin FILE]
#                                    render rules/ and dashboards/ into DIR only; FILE (default
#                                    mixin/mixin.libsonnet) may be a file that imports the mixin
#                                    and overrides its _config
#
# Needs Debian's jsonnet (scripts/setup.sh test) and Python 3 with PyYAML (python3-yaml).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="write"
out=
mixin=mixin/mixin.libsonnet
while [ $# -gt 0 ]; do
  case "$1" in
    --check) mode=check ;;
    --out) out=$2; shift ;;
    --mixin) mixin=$2; shift ;;
    *) echo "usage: $0 [--check | --out DIR [--mixin FILE]]" >&2; exit 2 ;;
  esac
  shift
done
if ! command -v jsonnet >/dev/null; then
  echo "mixin/build.sh: jsonnet is not installed (scripts/setup.sh test installs it)" >&2
  exit 2
fi

# render DIR: rules/ and dashboards/ from the mixin into DIR.
render() {
  local dir=$1 json
  mkdir -p "$dir/rules" "$dir/dashboards"
  json=$(mktemp)
  jsonnet -J mixin -J "$(dirname "$mixin")" -o "$json" -e "
    local m = import '$(basename "$mixin")';
    {
      rules: { groups: m.prometheusRules.groups + m.prometheusAlerts.groups },
      inhibit: m.alertmanagerInhibitRules,
      dashboards: m.grafanaDashboards,
    }"
  python3 - "$dir" "$json" <<'PY'

import json, pathlib, sys, yaml

out = pathlib.Path(sys.argv[1])
m = json.loads(pathlib.Path(sys.argv[2]).read_text())

# Keys in the order people read them (Jsonnet sorts them), then the rest.
ORDER = ["name", "rules", "record", "alert", "expr", "for", "keep_firing_for", "labels",
         "annotations", "summary", "description", "runbook_url",
         "source_matchers", "target_matchers", "equal"]

def ordered(x):
    if isinstance(x, dict):
        keys = sorted(x, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER), k))
        return {k: ordered(x[k]) for k in keys}
    if isinstance(x, list):
        return [ordered(v) for v in x]
    return x

class Dumper(yaml.SafeDumper):
    # "- " indented under its key, as the rest of the repository's YAML.
    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)

def text(dumper, s):
    if "\n" in s:  # PromQL: a literal block, as written in the mixin
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|")
    if len(s) > 100:  # annotations: folded, as written by hand before
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=">")
    return dumper.represent_scalar("tag:yaml.org,2002:str", s)

Dumper.add_representer(str, text)
# Lists of short strings (equal: [...]) on one line, everything else in block style.
def seq(dumper, v):
    flow = bool(v) and all(isinstance(i, str) and len(i) < 20 and "=" not in i for i in v)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=flow)
Dumper.add_representer(list, seq)

def dump(value):
    return yaml.dump(ordered(value), Dumper=Dumper, sort_keys=False, width=100,
                     allow_unicode=True, indent=2)

HEAD = """# Generated from mixin/ by mixin/build.sh: edit the mixin (thresholds and selectors are in
# mixin/config.libsonnet) and run the script again; a test fails when this file drifts.
"""
(out / "rules" / "podwait.rules.yml").write_text(
    HEAD + "#\n# podwait's Prometheus recording and alerting rules; rules/README.md shows how to load\n"
    "# them; every alert links to its section of rules/RUNBOOK.md as the exporter serves it (/runbook).\n" + dump(m["rules"]))
(out / "rules" / "alertmanager-inhibit.yml").write_text(
    HEAD + "#\n# Alertmanager inhibition rules: merge the list into the `inhibit_rules:` of your\n"
    "# Alertmanager configuration (rules/README.md; rules/examples/alertmanager.yml includes them).\n"
    + dump(m["inhibit"]))
for name, dashboard in sorted(m["dashboards"].items()):
    (out / "dashboards" / name).write_text(json.dumps(dashboard, indent=2, ensure_ascii=False) + "\n")
PY
  rm -f "$json"
}

if [ -n "$out" ]; then
  render "$out"
  exit 0
fi

files=(rules/podwait.rules.yml rules/alertmanager-inhibit.yml)
for f in $(jsonnet -J mixin -e "std.objectFields((import 'mixin.libsonnet').grafanaDashboards)" |
  python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)))'); do
  files+=("dashboards/$f")
done

if [ "$mode" = write ]; then
  render .
  python3 deploy/tools/generate_monitoring.py
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
render "$tmp"
stale=()
for f in "${files[@]}"; do
  if ! cmp -s "$f" "$tmp/$f"; then
    stale+=("$f")
    diff -u "$f" "$tmp/$f" | head -20 >&2 || true
  fi
done
if ! python3 deploy/tools/generate_monitoring.py --check >/dev/null 2>&1; then
  stale+=(deploy/monitoring)
fi
if [ ${#stale[@]} -gt 0 ]; then
  echo "out of date (run mixin/build.sh): ${stale[*]}" >&2
  exit 1
fi
echo "rules/, dashboards/ and deploy/monitoring are what the mixin renders"
