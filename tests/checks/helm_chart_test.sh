#!/usr/bin/env bash
# The Helm chart charts/podwait with the real helm 4 (scripts/setup.sh test installs helm 4.1.4):
# - its version is the project's; it reads rules/, dashboards/ and mixin/contract.json through
#   links and holds no copy of them; every value of values.yaml has a comment;
# - `helm lint --strict` is clean for each mode and with every optional value;
# - rendered as release podwait in namespace podwait, it agrees with the kustomize overlays
#   (tests/deploy/check_chart.py compare: RBAC, container, pod, components, monitoring) and passes
#   their deploy checks (check_manifests.py: least privilege, flags the exporter accepts, the
#   locked-down container; validate.mjs: the Kubernetes and Prometheus Operator schemas); broken
#   renderings must fail the comparison;
# - each mode and optional value does what values.yaml says and the schema refuses wrong values,
#   naming them (check_chart.py values); the webConfig values fit the example's Secrets
#   (check_web_config.py);
# - a changed or new rule file and a changed dashboard reach the rendering without any step;
# - `helm package` stores the linked files, and the package renders what the directory renders;
# - the README's "Install with Helm" commands render.
#
# Run from the source root; PODWAIT_BUILD_DIR is the build tree (default: build).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${PODWAIT_BUILD_DIR:-build}
exporter=$build/podwait-exporter
chart=charts/podwait
passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

for tool in helm kubectl node npm python3 tar yamllint; do
  command -v "$tool" >/dev/null || { echo "FAIL $tool not found (scripts/setup.sh test installs it)"; exit 1; }
done
helm_version=$(helm version --template '{{.Version}}' 2>/dev/null || true)
case "$helm_version" in
  v4.*) ok "helm $helm_version ($(command -v helm))" ;;
  *) echo "FAIL helm 4 is needed, $(command -v helm) is ${helm_version:-unknown} (scripts/setup.sh test installs 4.1.4)"; exit 1 ;;
esac
[ -x "$exporter" ] || { echo "FAIL $exporter is not built"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/chart" "$tmp/kustomize"

# --- the chart's files ------------------------------------------------------------------------------
version=$(sed -n 's/^project(podwait VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
chart_version=$(sed -n 's/^version: *//p' "$chart/Chart.yaml")
app_version=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$chart/Chart.yaml")
if [ "$chart_version" = "$version" ] && [ "$app_version" = "$version" ]; then
  ok "Chart.yaml version and appVersion are the project's $version"
else
  bad "Chart.yaml version $chart_version, appVersion $app_version; the project is $version"
fi
for link in files/rules:rules files/dashboards:dashboards files/contract.json:mixin/contract.json; do
  path=$chart/${link%%:*}
  if [ -L "$path" ] && [ "$(readlink -f "$path")" = "$PWD/${link#*:}" ]; then
    ok "$path links to ${link#*:}"
  else
    bad "$path is not a link to ${link#*:}"
  fi
done
extra=$(find "$chart" -type f | sed "s|^$chart/||" |
  grep -Ev '^(Chart\.yaml|values\.yaml|values\.schema\.json|\.helmignore|templates/[a-z-]+\.yaml|templates/_helpers\.tpl|templates/NOTES\.txt)$' || true)
if [ -z "$extra" ]; then
  ok "the chart holds no copy of a rule, dashboard or contract file"
else
  bad "files in the chart besides its templates and values: $extra"
fi
if python3 - "$chart/values.yaml" <<'PY'; then
import re, sys
lines = open(sys.argv[1]).read().splitlines()
bare = []
for i, line in enumerate(lines):
    if not re.match(r"[A-Za-z]", line):
        continue
    j = i - 1
    while j >= 0 and re.match(r"[A-Za-z]", lines[j]):  # a run of keys under one comment
        j -= 1
    if j < 0 or not lines[j].startswith("#"):
        bare.append(line.split(":")[0])
if bare:
    sys.exit("values without a comment: %s" % ", ".join(bare))
PY
  ok "every top-level value in values.yaml has a comment"
else
  bad "values.yaml has values without a comment"
fi

# --- lint ---------------------------------------------------------------------------------------------
namespaced=(--set mode=namespaced --set 'watch.namespaces={tidb-cluster}')
components=(--set eventsWrite.enabled=true --set networkPolicy.enabled=true --set podDisruptionBudget.enabled=true)
monitoring=(--set serviceMonitor.enabled=true --set prometheusRule.enabled=true --set grafanaDashboards.enabled=true)
lint() {  # lint NAME ARGS...
  local name=$1
  shift
  if helm lint --strict "$@" >"$tmp/lint.log" 2>&1 && grep -q '0 chart(s) failed' "$tmp/lint.log" &&
    ! grep -Eq '^\[(WARNING|ERROR)\]' "$tmp/lint.log"; then
    ok "helm lint --strict $name"
  else
    bad "helm lint --strict $name"
    grep -v 'level=INFO' "$tmp/lint.log" | sed 's/^/     /'
  fi
}
lint "(defaults)" "$chart"
lint "(namespaced, every optional value)" "$chart" "${namespaced[@]}" "${components[@]}" "${monitoring[@]}"
if yamllint --strict -c .yamllint "$chart/Chart.yaml" "$chart/values.yaml" >"$tmp/yamllint.log" 2>&1; then
  ok "yamllint --strict Chart.yaml values.yaml"
else
  bad "yamllint --strict Chart.yaml values.yaml"
  sed 's/^/     /' "$tmp/yamllint.log"
fi

# --- NOTES.txt: how to open the status page and run kubectl podwait ------------------------------------
notes() {  # notes NAME ARGS... -- PATTERN...: every pattern is a line of the release notes
  local name=$1 args=() missing=""
  shift
  while [ "$1" != "--" ]; do args+=("$1"); shift; done
  shift
  helm install podwait "$chart" -n podwait --dry-run=client "${args[@]}" 2>/dev/null |
    sed -n '/^NOTES:/,$p' >"$tmp/notes.txt" || true
  for pattern in "$@"; do grep -Eq -- "$pattern" "$tmp/notes.txt" || missing="$missing [$pattern]"; done
  if [ -z "$missing" ]; then
    ok "NOTES.txt ($name)"
  else
    bad "NOTES.txt ($name): no line matches$missing"
    sed 's/^/     /' "$tmp/notes.txt"
  fi
}
notes standalone -- 'standalone mode, watching every namespace' \
  '^ +kubectl -n podwait port-forward service/podwait-exporter 9877:9877$' \
  '^ +then open http://127\.0\.0\.1:9877/$' '^ +kubectl podwait -A ' 'serviceMonitor\.enabled=true'
notes "namespaced, TLS, a route prefix" "${namespaced[@]}" --set webConfig.secretName=web \
  --set webConfig.tlsSecretName=tls --set externalURL=https://ops.example.com/podwait \
  --set serviceMonitor.enabled=true -- 'namespaced mode, watching tidb-cluster' \
  '^ +then open https://127\.0\.0\.1:9877/podwait/ \(or https://ops\.example\.com/podwait\)$'

# --- render the chart and the overlays -----------------------------------------------------------------
render() {  # render NAME ARGS...: helm template into $tmp/chart/NAME.yaml; nothing on stderr but
  local name=$1  # helm's note that it follows the links
  shift
  if helm template podwait "$chart" -n podwait "$@" >"$tmp/chart/$name.yaml" 2>"$tmp/$name.err" &&
    ! grep -v 'found symbolic link in path' "$tmp/$name.err" | grep -q .; then
    ok "helm template $name: $(grep -h '^kind: ' "$tmp/chart/$name.yaml" | sort -u | cut -d' ' -f2 | paste -sd, | sed 's/,/, /g')"
  else
    bad "helm template $name"
    sed 's/^/     /' "$tmp/$name.err"
  fi
}
render standalone
render namespaced "${namespaced[@]}"
render standalone-components "${components[@]}"
render namespaced-components "${namespaced[@]}" "${components[@]}"
render monitoring "${monitoring[@]}"

kustomize() {  # kustomize NAME DIR
  kubectl kustomize "$2" >"$tmp/kustomize/$1.yaml" 2>"$tmp/$1.kerr" || { bad "kubectl kustomize $2"; sed 's/^/     /' "$tmp/$1.kerr"; }
}
for mode in standalone namespaced; do
  kustomize "$mode" "deploy/overlays/$mode"
  mkdir -p "$tmp/with-components/$mode"
  rel=$(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$PWD/deploy" "$tmp/with-components/$mode")
  {
    echo "apiVersion: kustomize.config.k8s.io/v1beta1"
    echo "kind: Kustomization"
    echo "resources: [$rel/overlays/$mode]"
    echo "components:"
    for c in deploy/components/*/; do echo "  - $rel/components/$(basename "$c")"; done
  } >"$tmp/with-components/$mode/kustomization.yaml"
  kustomize "$mode-components" "$tmp/with-components/$mode"
done
kustomize monitoring deploy/monitoring

# --- the chart and the overlays agree ------------------------------------------------------------------
compare() { python3 tests/deploy/check_chart.py compare --chart "$1" --kustomize "$tmp/kustomize"; }
if compare "$tmp/chart" >"$tmp/compare.log" 2>&1; then
  ok "the chart renders what the overlays render: $(grep -c '^ok' "$tmp/compare.log") comparisons (RBAC group/resource/verb, args, probes, securityContext, components, rules, dashboards)"
else
  bad "the chart and the overlays differ"
  grep -v '^ok' "$tmp/compare.log" | sed 's/^/     /'
fi
mutate() {  # mutate DESCRIPTION FILE OLD NEW EXPECTED-MESSAGE: the comparison must fail, naming it
  rm -rf "$tmp/mutated"
  cp -r "$tmp/chart" "$tmp/mutated"
  if ! python3 - "$tmp/mutated/$2" "$3" "$4" <<'PY'; then
import sys
path, old, new = sys.argv[1:4]
text = open(path).read()
if old not in text:
    sys.exit("mutation target not found: %r" % old)
open(path, "w").write(text.replace(old, new, 1))
PY
    bad "mutation '$1' could not be applied"
    return
  fi
  if compare "$tmp/mutated" >"$tmp/mutated.log" 2>&1; then
    bad "the comparison missed: $1"
  elif grep -q -- "$5" "$tmp/mutated.log"; then
    ok "the comparison catches: $1"
  else
    bad "the comparison failed on '$1' for another reason"
    grep -v '^ok' "$tmp/mutated.log" | sed 's/^/     /'
  fi
}
mutate "a flag that differs" standalone.yaml "- --log.format=json" "- --log.format=logfmt" "container args"
mutate "a verb the overlay does not grant" namespaced.yaml $'    verbs:\n    - list\n    - watch\n' \
  $'    verbs:\n    - get\n    - list\n    - watch\n' "the chart grants ('tidb-cluster', '', 'pods', '\*', 'get')"
mutate "a missing v2 kind" standalone.yaml $'    - tikvs\n' '' "the overlay grants ('cluster', 'core.pingcap.com', 'tikvs'"
mutate "another readiness period" standalone.yaml "periodSeconds: 5" "periodSeconds: 7" "container readinessProbe"
mutate "a writable root filesystem" namespaced.yaml "readOnlyRootFilesystem: true" \
  "readOnlyRootFilesystem: false" "container securityContext"
mutate "a PodDisruptionBudget of minAvailable" standalone-components.yaml "maxUnavailable: 1" "minAvailable: 1" \
  "PodDisruptionBudget spec"
mutate "a changed alert" monitoring.yaml "for: 5m" "for: 6m" "PrometheusRule groups differ"

# --- the overlays' deploy checks on the chart ------------------------------------------------------------
if python3 tests/deploy/check_manifests.py --rendered "$tmp/chart" --exporter "$exporter" \
  --version "$version" --modes standalone,namespaced >"$tmp/manifests.log" 2>&1; then
  ok "check_manifests.py on the chart: least-privilege RBAC from the contract, flags accepted, locked-down container, version labels, components"
else
  bad "check_manifests.py on the chart"
  sed 's/^/     /' "$tmp/manifests.log"
fi

# --- every value -----------------------------------------------------------------------------------------
python3 tests/deploy/check_chart.py values --helm helm --chart "$chart" --exporter "$exporter" \
  --root . >"$tmp/values.log" 2>&1 || true
grep -v '^check_chart:' "$tmp/values.log" || true
passed=$((passed + $(grep -c '^ok ' "$tmp/values.log" || true)))
failed=$((failed + $(grep -c '^FAIL ' "$tmp/values.log" || true)))
grep -q '^check_chart: ' "$tmp/values.log" || bad "check_chart.py values did not finish"

# The webConfig values with the Secrets of deploy/examples/web-config: they fit together.
example=deploy/examples/web-config
render web-config --set webConfig.secretName=podwait-web-config --set webConfig.tlsSecretName=podwait-exporter-tls \
  --set serviceMonitor.enabled=true --set serviceMonitor.basicAuthSecretName=podwait-scrape-auth \
  --set "webConfig.probeAuthorization=$(sed -n 's/.*value: \(Basic [A-Za-z0-9+/=]*\).*/\1/p' "$example/exporter-patch.yaml" | head -n 1)"
python3 - "$example/web-config.yaml" "$example/scrape-auth.yaml" >"$tmp/secrets.yaml" <<'PY'
import sys, yaml
docs = []
for path in sys.argv[1:]:
    for d in yaml.safe_load_all(open(path)):
        d["metadata"]["namespace"] = "podwait"  # the example's kustomization sets it
        docs.append(d)
print(yaml.safe_dump_all(docs), end="")
PY
{ cat "$tmp/chart/web-config.yaml"; echo "---"; cat "$tmp/secrets.yaml"; } >"$tmp/web-config-all.yaml"
if out=$(python3 -W ignore::DeprecationWarning tests/deploy/check_web_config.py "$tmp/web-config-all.yaml" "$tmp/extracted" 2>&1); then
  ok "webConfig values with the example's Secrets: web config, certificate, HTTPS probes with credentials, ServiceMonitor fit together"
else
  bad "webConfig values and the example's Secrets do not fit:"
  printf '     %s\n' "$out"
fi

# --- schemas -----------------------------------------------------------------------------------------------
mkdir -p "$tmp/validator"
cp tests/deploy/package.json tests/deploy/package-lock.json tests/deploy/validate.mjs "$tmp/validator/"
if (cd "$tmp/validator" && npm ci --no-audit --no-fund --loglevel=error >"$tmp/npm.log" 2>&1); then
  if node "$tmp/validator/validate.mjs" "$tmp"/chart/*.yaml >"$tmp/validate.log" 2>&1; then
    ok "OpenAPI schemas of every rendering: $(tail -n 1 "$tmp/validate.log")"
  else
    bad "OpenAPI schemas"
    grep -v '^ok ' "$tmp/validate.log" | sed 's/^/     /'
  fi
else
  bad "npm ci (a copy of tests/deploy)"
  sed 's/^/     /' "$tmp/npm.log"
fi

# --- the sources, not copies: a change in rules/ or dashboards/ reaches the chart -------------------------
mkdir -p "$tmp/tree/mixin"
cp -a charts rules dashboards "$tmp/tree/"
cp mixin/contract.json "$tmp/tree/mixin/"
sed -i '0,/for: /s/for: [0-9a-z]*/for: 42m/' "$tmp/tree/rules/podwait.rules.yml"
printf 'groups:\n  - name: extra.rules\n    rules:\n      - record: extra:podwait_waiting_pods:sum\n        expr: sum(podwait_waiting_pods)\n' \
  >"$tmp/tree/rules/extra.yml"
python3 - "$tmp/tree/dashboards" <<'PY'
import json, pathlib, sys
path = sorted(pathlib.Path(sys.argv[1]).glob("*.json"))[0]
d = json.loads(path.read_text())
d["title"] = "Changed title"
path.write_text(json.dumps(d, indent=2) + "\n")
PY
if helm template podwait "$tmp/tree/charts/podwait" -n podwait "${monitoring[@]}" >"$tmp/tree.yaml" 2>/dev/null &&
  python3 - "$tmp/tree.yaml" <<'PY'; then
import json, sys, yaml
docs = [d for d in yaml.load_all(open(sys.argv[1]), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if d]
[rule] = [d for d in docs if d["kind"] == "PrometheusRule"]
groups = [g["name"] for g in rule["spec"]["groups"]]
assert groups[0] == "extra.rules", groups
fors = [r.get("for") for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r]
assert fors[0] == "42m", fors[:3]
titles = [json.loads(v)["title"] for d in docs if d["kind"] == "ConfigMap" for v in d["data"].values()]
assert "Changed title" in titles, titles
PY
  ok "a changed alert, a new rule file and a changed dashboard reach the rendering from rules/ and dashboards/"
else
  bad "a change in rules/ or dashboards/ does not reach the chart"
fi

# --- helm package ------------------------------------------------------------------------------------------
if helm package "$chart" -d "$tmp/package" >"$tmp/package.log" 2>&1; then
  ok "helm package: $(grep -o 'podwait-[0-9.]*\.tgz' "$tmp/package.log")"
else
  bad "helm package"
  sed 's/^/     /' "$tmp/package.log"
fi
tgz=$tmp/package/podwait-$version.tgz
if [ -f "$tgz" ]; then
  mkdir -p "$tmp/unpacked"
  tar -xzf "$tgz" -C "$tmp/unpacked"
  same=1
  for f in rules/podwait.rules.yml rules/alertmanager-inhibit.yml contract.json; do
    src=rules/${f#rules/}
    [ "$f" = contract.json ] && src=mixin/contract.json
    [ -f "$tmp/unpacked/podwait/files/$f" ] && [ ! -L "$tmp/unpacked/podwait/files/$f" ] &&
      cmp -s "$src" "$tmp/unpacked/podwait/files/$f" || same=0
  done
  for d in dashboards/*.json; do cmp -s "$d" "$tmp/unpacked/podwait/files/$d" || same=0; done
  if [ -e "$tmp/unpacked/podwait/files/rules/tests" ] || [ -e "$tmp/unpacked/podwait/files/dashboards/tools" ] ||
    [ -e "$tmp/unpacked/podwait/files/rules/RUNBOOK.md" ]; then
    same=0
  fi
  if [ "$same" -eq 1 ]; then
    ok "the package holds the rule files, the inhibitions, the dashboards and the contract as files, and no tests or tools"
  else
    bad "the package's files/ differ from rules/, dashboards/ and mixin/contract.json"
    tar -tzf "$tgz" | sed 's/^/     /'
  fi
  helm template podwait "$tgz" -n podwait "${namespaced[@]}" "${components[@]}" "${monitoring[@]}" >"$tmp/from-package.yaml" 2>/dev/null || true
  helm template podwait "$chart" -n podwait "${namespaced[@]}" "${components[@]}" "${monitoring[@]}" >"$tmp/from-dir.yaml" 2>/dev/null || true
  if [ -s "$tmp/from-package.yaml" ] && cmp -s "$tmp/from-package.yaml" "$tmp/from-dir.yaml"; then
    ok "the package renders what the chart directory renders"
  else
    bad "the package renders something else than the chart directory"
  fi
  lint "(the package)" "$tgz"
fi

# --- the README --------------------------------------------------------------------------------------------
section=$(sed -n '/^## Install with Helm/,/^## /p' README.md)
commands=$(grep -E '^helm (install|upgrade --install) ' <<<"$section" || true)
if [ -z "$commands" ]; then
  bad "README.md has no 'Install with Helm' section with helm install commands"
else
  while IFS= read -r line; do
    # The same command as helm template: install's flags, no cluster.
    cmd=$(sed -E -e 's/^helm (install|upgrade --install) /helm template /' -e 's/ --(create-namespace|wait|atomic)//g' <<<"$line")
    if (eval "$cmd") >"$tmp/readme.yaml" 2>"$tmp/readme.err" && grep -q '^kind: Deployment' "$tmp/readme.yaml"; then
      ok "README: $line"
    else
      bad "README: $line"
      grep -v 'symbolic link' "$tmp/readme.err" | sed 's/^/     /'
    fi
  done <<<"$commands"
fi

finish
