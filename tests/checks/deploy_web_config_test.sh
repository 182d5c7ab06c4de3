#!/usr/bin/env bash
# deploy/examples/web-config: the standalone exporter and its ServiceMonitor behind
# --web.config.file. The example renders with `kubectl kustomize`, validates against the
# Kubernetes and Prometheus Operator schemas (tests/deploy/validate.mjs), and fits together: the
# web config and the certificate are whole Secret volumes (so renewals reach the files), the
# probes use HTTPS with the `probe` user's credentials, the ServiceMonitor scrapes over HTTPS
# with the CA, server name and credentials that the exporter's web config and Service match.
# Then the built exporter runs with the example's web config (certificates made here with openssl)
# and answers the probes as the kubelet sends them and the scrape as Prometheus sends it. Broken
# copies of the example must fail the checks.
#
# Run from the source root; PODWAIT_BUILD_DIR is the build tree (default: build).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

build=${PODWAIT_BUILD_DIR:-build}
exporter=$build/podwait-exporter
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
for tool in kubectl node npm python3 openssl curl; do
  command -v "$tool" >/dev/null || { echo "FAIL $tool not found (scripts/setup.sh test installs it)"; exit 1; }
done
[ -x "$exporter" ] || { echo "FAIL $exporter is not built"; exit 1; }
tmp=$(mktemp -d)
exporter_pid=
cleanup() {
  [ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

example=deploy/examples/web-config
if kubectl kustomize "$example" >"$tmp/rendered.yaml" 2>"$tmp/render.err" && [ ! -s "$tmp/render.err" ]; then
  ok "kubectl kustomize $example ($(grep -c '^kind:' "$tmp/rendered.yaml") objects, no warnings)"
else
  bad "kubectl kustomize $example"
  sed 's/^/     /' "$tmp/render.err"
  finish
  exit 1
fi

# The schema validator, in a copy of tests/deploy so that it does not share node_modules with
# deploy_manifests_test running beside it.
mkdir -p "$tmp/validator"
cp tests/deploy/package.json tests/deploy/package-lock.json tests/deploy/validate.mjs "$tmp/validator/"
if (cd "$tmp/validator" && npm ci --no-audit --no-fund --loglevel=error >"$tmp/npm.log" 2>&1); then
  if node "$tmp/validator/validate.mjs" "$tmp/rendered.yaml" >"$tmp/validate.log" 2>&1; then
    ok "OpenAPI schemas: $(tail -n 1 "$tmp/validate.log")"
  else
    bad "OpenAPI schemas"
    grep -v '^ok ' "$tmp/validate.log" | sed 's/^/     /'
  fi
else
  bad "npm ci (a copy of tests/deploy)"
  sed 's/^/     /' "$tmp/npm.log"
fi

# check RENDERED: how the pieces fit; prints the problems, exits 1 when there are any. Writes the
# web config and the credentials the probes and Prometheus use to $tmp/extracted/.
check() {
  python3 -W ignore::DeprecationWarning tests/deploy/check_web_config.py "$1" "$tmp/extracted"
}

if out=$(check "$tmp/rendered.yaml" 2>&1); then
  ok "web config, certificate Secret, probes and ServiceMonitor fit together"
else
  bad "the example does not fit together:"
  printf '     %s\n' "$out"
fi

# Broken copies must fail, each for its reason.
mutate() {  # mutate DESCRIPTION OLD NEW EXPECTED-MESSAGE
  python3 - "$tmp/rendered.yaml" "$tmp/mutated.yaml" "$2" "$3" <<'PY' || { bad "mutation '$1' could not be applied"; return; }
import sys
text = open(sys.argv[1]).read()
if sys.argv[3] not in text:
    sys.exit(1)
open(sys.argv[2], "w").write(text.replace(sys.argv[3], sys.argv[4], 1))
PY
  if out=$(check "$tmp/mutated.yaml" 2>&1); then
    bad "the checks missed: $1"
  elif grep -q -- "$4" <<<"$out"; then
    ok "the checks catch: $1"
  else
    bad "the checks failed on '$1' for another reason:"
    printf '     %s\n' "$out"
  fi
}
mutate "a probe over plain HTTP" "scheme: HTTPS" "scheme: HTTP" "is not HTTPS"
mutate "a wrong scrape password" "password: example-scrape-password" "password: other" \
  "credentials do not match"
mutate "a subPath mount of the web config" "mountPath: /etc/podwait/web" \
  $'mountPath: /etc/podwait/web/web.yml\n          subPath: web.yml' "subPath"
mutate "a ServiceMonitor without TLS" "scheme: https" "scheme: http" "does not scrape over https"

# The exporter with the example's web config: certificates made here, paths pointed at them.
check "$tmp/rendered.yaml" >/dev/null 2>&1
x=$tmp/extracted
if [ ! -s "$x/web.yml" ]; then
  bad "no web config to run the exporter with"
  finish
  exit 1
fi
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -keyout "$x/ca.key" -out "$x/ca.crt" -subj "/CN=podwait-test-ca" >/dev/null 2>&1
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -CA "$x/ca.crt" -CAkey "$x/ca.key" -keyout "$x/tls.key" -out "$x/tls.crt" \
  -subj "/CN=podwait-exporter.podwait.svc" \
  -addext "subjectAltName=DNS:podwait-exporter.podwait.svc,IP:127.0.0.1" >/dev/null 2>&1
sed -e "s|/etc/podwait/tls/|$x/|" "$x/web.yml" >"$x/web-local.yml"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$exporter" --web.listen-address="127.0.0.1:$port" --kube.api-url=http://127.0.0.1:1 \
  --web.config.file="$x/web-local.yml" >"$tmp/exporter.log" 2>&1 &
exporter_pid=$!
for _ in $(seq 1 100); do grep -q "msg=listening" "$tmp/exporter.log" && break; sleep 0.1; done
code() { curl -sS -o /dev/null -w '%{http_code}' --max-time 10 "$@" 2>/dev/null; }
# The kubelet: HTTPS without verifying the certificate, the probe's header. /readyz is 503 here
# (no API server to sync from), which still shows the request was authenticated.
live=$(code -k -H "Authorization: $(cat "$x/livenessProbe.auth")" "https://127.0.0.1:$port$(cat "$x/livenessProbe.path")")
ready=$(code -k -H "Authorization: $(cat "$x/readinessProbe.auth")" "https://127.0.0.1:$port$(cat "$x/readinessProbe.path")")
if [ "$live" = 200 ] && [ "$ready" = 503 ]; then
  ok "the kubelet's probes authenticate (liveness $live, readiness $ready before the watches sync)"
else
  bad "probes: liveness $live, readiness $ready"
  sed 's/^/     /' "$tmp/exporter.log"
fi
# Prometheus: verifies the certificate for the Service's name, sends the ServiceMonitor's credentials.
scrape=$(code --cacert "$x/ca.crt" --resolve "podwait-exporter.podwait.svc:$port:127.0.0.1" \
  -u "$(cat "$x/scrape.auth")" "https://podwait-exporter.podwait.svc:$port/metrics")
anonymous=$(code --cacert "$x/ca.crt" --resolve "podwait-exporter.podwait.svc:$port:127.0.0.1" \
  "https://podwait-exporter.podwait.svc:$port/metrics")
if [ "$scrape" = 200 ] && [ "$anonymous" = 401 ]; then
  ok "the ServiceMonitor's scrape is served ($scrape), one without credentials is not ($anonymous)"
else
  bad "scrape $scrape, without credentials $anonymous"
  sed 's/^/     /' "$tmp/exporter.log"
fi

finish
