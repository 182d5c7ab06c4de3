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
  python3 -W ignore::DeprecationWarning - "$1" "$tmp/extracted" <<'PY'
import base64, crypt, os, pathlib, posixpath, sys, yaml

objs = [o for o in yaml.safe_load_all(open(sys.argv[1])) if o]
out = pathlib.Path(sys.argv[2])
out.mkdir(exist_ok=True)
problems = []
def want(cond, what):
    if not cond:
        problems.append(what)
def one(kind, name=None):
    found = [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    if len(found) != 1:
        problems.append(f"expected one {kind} {name or ''}, found {len(found)}")
        return None
    return found[0]
def secret_data(name):
    s = one("Secret", name)
    if s is None:
        return {}
    data = dict(s.get("stringData", {}))
    data.update({k: base64.b64decode(v).decode() for k, v in s.get("data", {}).items()})
    return data

dep = one("Deployment", "podwait-exporter")
svc = one("Service", "podwait-exporter")
sm = one("ServiceMonitor", "podwait-exporter")
if dep is None or svc is None or sm is None:
    print("\n".join(problems)); sys.exit(1)
pod = dep["spec"]["template"]["spec"]
[c] = [c for c in pod["containers"] if c["name"] == "podwait-exporter"]
flags = [a for a in c.get("args", []) if a.startswith("--web.config.file=")]
want(len(flags) == 1, "the container has no --web.config.file")
config_path = flags[0].split("=", 1)[1] if flags else ""

volumes = {v["name"]: v for v in pod.get("volumes", [])}
def secret_file(path):
    """The (Secret name, key) a path of the container reads, or None."""
    for m in c.get("volumeMounts", []):
        mount = m["mountPath"].rstrip("/") + "/"
        if path == m["mountPath"] or path.startswith(mount):
            want("subPath" not in m, f"{m['mountPath']} is a subPath mount: Secret updates never reach it")
            v = volumes.get(m["name"], {})
            if "secret" not in v:
                problems.append(f"{m['mountPath']} is not a Secret volume")
                return None
            key = m.get("subPath", "") if path == m["mountPath"] else path[len(mount):]
            return v["secret"]["secretName"], key
    problems.append(f"{path} is not on any volume of the container")
    return None

web = {}
loc = secret_file(config_path)
if loc:
    data = secret_data(loc[0])
    want(loc[1] in data, f"Secret {loc[0]} has no key {loc[1]}")
    web = yaml.safe_load(data.get(loc[1], "")) or {}
    (out / "web.yml").write_text(data.get(loc[1], ""))
tls = web.get("tls_server_config", {})
tls_secret = None
for field in ("cert_file", "key_file"):
    want(field in tls, f"the web config has no tls_server_config.{field}")
    l = secret_file(posixpath.join(posixpath.dirname(config_path), tls.get(field, "")))
    if l:
        tls_secret = l[0]
        want(l[1] in ("tls.crt", "tls.key"), f"{field} is key {l[1]}, not a kubernetes.io/tls key")
users = web.get("basic_auth_users", {})
want(users, "the web config has no basic_auth_users")
def verifies(user, password):
    h = users.get(user)
    return h is not None and crypt.crypt(password, h) == h

# Probes: HTTPS, with credentials of a user of the web config.
for probe in ("livenessProbe", "readinessProbe"):
    g = c.get(probe, {}).get("httpGet", {})
    want(g.get("scheme") == "HTTPS", f"{probe} is not HTTPS")
    auth = [h["value"] for h in g.get("httpHeaders", []) if h["name"].lower() == "authorization"]
    want(len(auth) == 1 and auth[0].startswith("Basic "), f"{probe} sends no basic auth")
    if auth:
        user, _, password = base64.b64decode(auth[0].split(" ", 1)[1]).decode().partition(":")
        want(verifies(user, password), f"{probe}'s credentials do not match the web config")
        (out / f"{probe}.auth").write_text(auth[0])
        (out / f"{probe}.path").write_text(g.get("path", ""))

# The ServiceMonitor: HTTPS, CA and server name of the exporter's certificate, the web config's
# credentials, in its own namespace.
ns = sm["metadata"].get("namespace")
eps = sm["spec"]["endpoints"]
want(len(eps) == 1, "expected one ServiceMonitor endpoint")
ep = eps[0]
want(ep.get("scheme") == "https", "the ServiceMonitor does not scrape over https")
want(ep.get("honorLabels") is True, "the ServiceMonitor lost honorLabels")
ca = ep.get("tlsConfig", {}).get("ca", {}).get("secret", {})
want(ca.get("name") == tls_secret and ca.get("key") == "ca.crt",
     f"tlsConfig.ca is {ca}, not ca.crt of the exporter's certificate Secret {tls_secret}")
want(ep.get("tlsConfig", {}).get("serverName") ==
     f"{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc",
     "tlsConfig.serverName is not the Service's DNS name")
want(ep.get("tlsConfig", {}).get("insecureSkipVerify") is not True, "the scrape skips verification")
ba = ep.get("basicAuth", {})
u, p = ba.get("username", {}), ba.get("password", {})
creds = secret_data(u.get("name")) if u.get("name") == p.get("name") else {}
want(u.get("key") in creds and p.get("key") in creds, "basicAuth names keys its Secret lacks")
for ref in (u, p):
    s = one("Secret", ref.get("name"))
    want(s is None or s["metadata"].get("namespace") == ns, "the basicAuth Secret is not in the ServiceMonitor's namespace")
if creds:
    want(verifies(creds.get(u.get("key")), creds.get(p.get("key"), "")),
         "the ServiceMonitor's credentials do not match the web config")
    (out / "scrape.auth").write_text("%s:%s" % (creds.get(u.get("key")), creds.get(p.get("key"))))
want(ep.get("port") in [pt["name"] for pt in svc["spec"]["ports"]], "the endpoint's port is not the Service's")
print("\n".join(problems) if problems else "fits")
sys.exit(1 if problems else 0)
PY
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
