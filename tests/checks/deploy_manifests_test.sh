#!/usr/bin/env bash
# The Kubernetes manifests of deploy/: every overlay renders with `kubectl kustomize`; every
# rendered object validates against the Kubernetes and Prometheus Operator OpenAPI schemas,
# and, for unknown or misspelt fields, their TypeScript models (tests/deploy/validate.mjs, npm
# packages pinned in tests/deploy/package-lock.json); the sidecar
# merges into tidb-operator's controller-manager Deployment; and tests/deploy/check_manifests.py
# finds the RBAC exactly least-privilege, the container's flags accepted by the built
# podwait-exporter, and the security settings in place. Then it breaks the rendered manifests on
# purpose and expects each check to notice.
#
# Run from the source root; PODWAIT_BUILD_DIR is the build tree (default: build).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${PODWAIT_BUILD_DIR:-build}
exporter=$build/podwait-exporter
passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

for tool in kubectl node npm python3; do
  command -v "$tool" >/dev/null || { echo "FAIL $tool not found (scripts/setup.sh test installs it)"; exit 1; }
done
[ -x "$exporter" ] || { echo "FAIL $exporter is not built"; exit 1; }

# `resources:` with directories and `patches:` need kustomize v4 or later (kubectl >= 1.21).
kustomize_major=$(kubectl version --client 2>/dev/null | sed -n 's/^Kustomize Version: v\{0,1\}\([0-9]*\)\..*/\1/p')
if [ -z "$kustomize_major" ] || [ "$kustomize_major" -lt 4 ]; then
  echo "FAIL kubectl's kustomize is older than v4 (kubectl >= 1.21 is needed):"
  kubectl version --client 2>&1 | sed 's/^/     /'
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/rendered"

# --- render ---------------------------------------------------------------------------------------
render() {  # render NAME DIR
  if kubectl kustomize "$2" >"$tmp/rendered/$1.yaml" 2>"$tmp/$1.err" && [ ! -s "$tmp/$1.err" ]; then
    ok "kubectl kustomize $2 ($(grep -c '^kind:' "$tmp/rendered/$1.yaml") objects, no warnings)"
  else
    bad "kubectl kustomize $2"
    sed 's/^/     /' "$tmp/$1.err"
  fi
}
for mode in standalone namespaced sidecar; do
  render "$mode" "deploy/overlays/$mode"
done
render monitoring deploy/monitoring
# The optional components (PodDisruptionBudget, NetworkPolicy) on the overlays they are for: a
# kustomization outside the tree that lists the overlay and the components, as a user's would.
for mode in standalone namespaced; do
  mkdir -p "$tmp/with-components/$mode"
  deploy_rel=$(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' \
    "$PWD/deploy" "$tmp/with-components/$mode")
  {
    echo "apiVersion: kustomize.config.k8s.io/v1beta1"
    echo "kind: Kustomization"
    echo "resources: [$deploy_rel/overlays/$mode]"
    echo "components:"
    for c in deploy/components/*/; do echo "  - $deploy_rel/components/$(basename "$c")"; done
  } >"$tmp/with-components/$mode/kustomization.yaml"
  render "$mode-components" "$tmp/with-components/$mode"
done
# Every overlay and kustomization under deploy/ is one of the above (or the base they build on).
while IFS= read -r k; do
  dir=$(dirname "$k")
  case "$dir" in
    deploy/base | deploy/monitoring | deploy/overlays/standalone | deploy/overlays/namespaced | \
      deploy/overlays/sidecar) ;;
    deploy/examples/*) ;;  # examples are rendered by their own tests
    deploy/components/*) ;;  # rendered with the standalone and namespaced overlays above
    *) bad "$dir has a kustomization that no test renders" ;;
  esac
done < <(find deploy -name kustomization.yaml | sort)

# --- schemas --------------------------------------------------------------------------------------
if (cd tests/deploy && npm ci --no-audit --no-fund --loglevel=error >"$tmp/npm.log" 2>&1); then
  ok "npm ci (tests/deploy)"
else
  bad "npm ci (tests/deploy)"
  sed 's/^/     /' "$tmp/npm.log"
  finish
fi
if node tests/deploy/validate.mjs "$tmp"/rendered/*.yaml >"$tmp/validate.log" 2>&1; then
  ok "OpenAPI schemas: $(tail -n 1 "$tmp/validate.log")"
else
  bad "OpenAPI schemas"
  grep -v '^ok ' "$tmp/validate.log" | sed 's/^/     /'
fi
# The validator itself rejects what it should.
cat >"$tmp/invalid.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: broken
spec:
  replicas: two
---
apiVersion: example.com/v1
kind: Unknown
metadata:
  name: unknown
EOF
if node tests/deploy/validate.mjs "$tmp/invalid.yaml" >"$tmp/invalid.log" 2>&1; then
  bad "the schema validator accepted an invalid Deployment and an unknown kind"
elif [ "$(grep -c '^FAIL' "$tmp/invalid.log")" -eq 2 ]; then
  ok "the schema validator rejects an invalid Deployment and an unknown kind"
else
  bad "the schema validator: unexpected output"
  sed 's/^/     /' "$tmp/invalid.log"
fi

# A misspelt field passes the JSON schemas (they allow unknown fields); the typed pass must fail it.
sed -e 's/readinessProbe:/readinesProbe:/' "$tmp/rendered/standalone.yaml" >"$tmp/misspelt.yaml"
if node tests/deploy/validate.mjs "$tmp/misspelt.yaml" >"$tmp/misspelt.log" 2>&1; then
  bad "the validator accepted a misspelt field (readinesProbe)"
elif grep -q "unknown or mistyped field: .*readinesProbe" "$tmp/misspelt.log"; then
  ok "the validator rejects a misspelt field (readinesProbe)"
else
  bad "the validator failed on a misspelt field for another reason"
  sed 's/^/     /' "$tmp/misspelt.log"
fi

# --- the sidecar merged into tidb-operator's Deployment ---------------------------------------------
python3 - "$tmp/rendered/sidecar.yaml" >"$tmp/sidecar-patch.json" <<'EOF'
import json, sys, yaml
[d] = [o for o in yaml.safe_load_all(open(sys.argv[1])) if o and o["kind"] == "Deployment"]
json.dump(d, sys.stdout)
EOF
if kubectl patch --local -f tests/deploy/fixtures/tidb-controller-manager.yaml --type strategic \
  -p "$(cat "$tmp/sidecar-patch.json")" -o yaml >"$tmp/merged.yaml" 2>"$tmp/merged.err" &&
  node tests/deploy/validate.mjs "$tmp/merged.yaml" >"$tmp/merged.log" 2>&1; then
  ok "the sidecar merges into tidb-controller-manager and validates"
else
  bad "the sidecar merge into tidb-controller-manager"
  cat "$tmp/merged.err" "$tmp/merged.log" 2>/dev/null | sed 's/^/     /'
fi
# The README's way back: remove-podwait.yaml leaves the operator's Deployment as the chart made it.
kubectl patch --local -f "$tmp/merged.yaml" -p "$(cat deploy/overlays/sidecar/remove-podwait.yaml)" \
  -o json >"$tmp/removed.json" 2>"$tmp/removed.err" || true
kubectl patch --local -f tests/deploy/fixtures/tidb-controller-manager.yaml -p '{}' -o json \
  >"$tmp/original.json" 2>>"$tmp/removed.err" || true
if python3 - "$tmp/removed.json" "$tmp/original.json" <<'EOF'; then
import json, sys
removed, original = (json.load(open(p))["spec"]["template"] for p in sys.argv[1:3])
sys.exit(0 if removed == original else 1)
EOF
  ok "remove-podwait.yaml restores the controller-manager's pod template"
else
  bad "remove-podwait.yaml does not restore the controller-manager's pod template"
  sed 's/^/     /' "$tmp/removed.err"
fi

# --- RBAC, flags, security -------------------------------------------------------------------------
version=$(sed -n 's/^project(podwait VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
check() {  # check DIR -> runs check_manifests.py on the rendered files in DIR
  python3 tests/deploy/check_manifests.py --rendered "$1" --exporter "$exporter" \
    --version "$version" --merged-sidecar "$tmp/merged.yaml"
}
if check "$tmp/rendered" >"$tmp/check.log" 2>&1; then
  ok "RBAC is exactly list/watch pods, events, tidbclusters + the contract's v2 kinds and autoscaler resources (+ create/patch events.k8s.io events with events-write); flags accepted; security settings; version labels; the optional components"
else
  bad "check_manifests.py"
  sed 's/^/     /' "$tmp/check.log"
fi

# Break one thing at a time; check_manifests.py must name it.
mutate() {  # mutate DESCRIPTION FILE OLD NEW EXPECTED-MESSAGE
  rm -rf "$tmp/mutated"
  cp -r "$tmp/rendered" "$tmp/mutated"
  if ! python3 - "$tmp/mutated/$2" "$3" "$4" <<'EOF'; then
import sys
path, old, new = sys.argv[1:4]
text = open(path).read()
if old not in text:
    sys.exit("mutation target not found: %r" % old)
open(path, "w").write(text.replace(old, new, 1))
EOF
    bad "mutation '$1' could not be applied"
    return
  fi
  if check "$tmp/mutated" >"$tmp/mutated.log" 2>&1; then
    bad "check_manifests.py missed: $1"
  elif grep -q -- "$5" "$tmp/mutated.log"; then
    ok "check_manifests.py catches: $1"
  else
    bad "check_manifests.py failed on '$1' for another reason"
    sed 's/^/     /' "$tmp/mutated.log"
  fi
}
mutate "a ClusterRole that may also get secrets" standalone.yaml \
  $'  - pods\n  - events\n  verbs:\n' $'  - pods\n  - events\n  - secrets\n  verbs:\n' "grants more than it needs"
mutate "a ClusterRole without events" standalone.yaml $'  - pods\n  - events\n' $'  - pods\n' \
  "lacks a grant"
# The v2 kinds and the autoscaler resources come from `podwait-exporter contract`.
mutate "a ClusterRole without a v2 kind of the contract" standalone.yaml $'  - schedulergroups\n' '' \
  "lacks a grant the exporter needs: ('cluster', 'core.pingcap.com', 'schedulergroups'"
mutate "a Role without the CA status ConfigMap of the contract" namespaced.yaml \
  $'  - cluster-autoscaler-status\n' $'  - cluster-autoscaler-state\n' \
  "lacks a grant the exporter needs: ('kube-system', '', 'configmaps', 'cluster-autoscaler-status'"
mutate "a misspelt flag" standalone.yaml "--log.format=json" "--log.fromat=json" "not a flag of"
mutate "a flag value the exporter rejects" namespaced.yaml "--log.format=json" "--log.format=xml" \
  "exited 2"
mutate "a writable root filesystem" standalone.yaml "readOnlyRootFilesystem: true" \
  "readOnlyRootFilesystem: false" "readOnlyRootFilesystem is not true"
mutate "a binding to another service account" sidecar.yaml "name: tidb-controller-manager
  namespace: tidb-admin" "name: default
  namespace: tidb-admin" "expected only"
mutate "a watched namespace without a Role" namespaced.yaml "--namespaces=tidb-cluster" \
  "--namespaces=tidb-cluster,other" "watched namespaces"
mutate "a sidecar that differs from the standalone container" sidecar.yaml "cpu: 100m" "cpu: 60m" \
  "differs from the standalone"
mutate "an object without the version label" standalone.yaml \
  $'    app.kubernetes.io/version: '"$version"$'\n  name: podwait-exporter\n  namespace: podwait\n' \
  $'  name: podwait-exporter\n  namespace: podwait\n' "not the project version"
mutate "a PodDisruptionBudget that blocks drains" standalone-components.yaml "maxUnavailable: 1" \
  "minAvailable: 1" "would block every drain"
mutate "a NetworkPolicy that blocks PD" namespaced-components.yaml "port: 2379" "port: 2380" \
  "egress to port 2379"
# events-write: --events.write with exactly create and patch on events.k8s.io events.
mutate "events-write without its rule" standalone-components.yaml $'  - events.k8s.io\n' \
  $'  - example.com\n' "lacks a grant the exporter needs: ('cluster', 'events.k8s.io', 'events'"
mutate "events-write granting delete" namespaced-components.yaml $'  - create\n  - patch\n' \
  $'  - create\n  - delete\n  - patch\n' \
  "grants more than it needs: ('tidb-cluster', 'events.k8s.io', 'events', '\*', 'delete')"
mutate "events-write without the flag" namespaced-components.yaml "- --events.write" "" \
  "--events.write is missing"

# --- the README's "Install on Kubernetes" ------------------------------------------------------------
section=$(sed -n '/^## Install on Kubernetes/,/^## /p' README.md)
if [ -z "$section" ]; then
  bad "README.md has no 'Install on Kubernetes' section"
else
  # Every kustomization and file the section's commands name exists.
  while read -r path; do
    if [ -e "$path" ]; then
      ok "README names $path, which exists"
    else
      bad "README names $path, which does not exist"
    fi
  done < <(grep -oE '(-k|cat) deploy/[A-Za-z0-9_./-]+' <<<"$section" | awk '{print $2}' | sort -u)
  # Its image retargeting, run on a copy of deploy/, makes every overlay use the pushed image.
  sed_line=$(grep -E '^sed -i .*newName' <<<"$section" || true)
  if [ -z "$sed_line" ]; then
    bad "README's sed line that points the overlays at the registry is missing"
  else
    mkdir -p "$tmp/readme"
    cp -r deploy "$tmp/readme/"
    retargeted=0
    if (cd "$tmp/readme" && export REGISTRY=registry.example.com/team && eval "$sed_line"); then
      retargeted=1
      for mode in standalone namespaced sidecar; do
        kubectl kustomize "$tmp/readme/deploy/overlays/$mode" |
          grep -q "image: registry.example.com/team/podwait-exporter:$version" || retargeted=0
      done
    fi
    if [ "$retargeted" -eq 1 ]; then
      ok "README's sed points every overlay at \$REGISTRY/podwait-exporter:$version"
    else
      bad "README's sed does not retarget every overlay's image"
    fi
  fi
  for mode in standalone sidecar; do
    if grep -q "apply.* -k deploy/overlays/$mode" <<<"$section"; then
      ok "README shows how to apply the $mode mode"
    else
      bad "README does not show how to apply the $mode mode"
    fi
  done
fi

finish
