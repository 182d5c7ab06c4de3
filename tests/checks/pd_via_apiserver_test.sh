#!/usr/bin/env bash
# PD through the Kubernetes API server, from the user's seat: a laptop reaches the API server
# (the simulator; with a bearer token it wants, except for kubectl itself, which sends no token
# over plain http) and no PD (PD's Service names do not resolve here,
# and no --pd.url-template is given). kubectl's own `get --raw` reaches PD through the service
# proxy; `kubectl podwait -A` and the exporter run with the kubeconfig give the seed's classes
# from PD's answers (the v2 TiDB pod's no_pd_leader is PD's word: its instances say pd_not_ready),
# also from pods and events alone (no TidbCluster), where --pd.via=direct cannot; a forbidden
# proxy is named (one log line, a line under the summary); `kubectl podwait --server URL --token T`
# without a kubeconfig does the same. Prints the requests per probe.
#
# Run from the source root; PODWAIT_BUILD_DIR is the build tree (default: build).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${PODWAIT_BUILD_DIR:-build}
sim=$build/podwait-sim
exporter=$build/podwait-exporter
passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

command -v kubectl >/dev/null || { echo "FAIL kubectl not found (scripts/setup.sh test installs it)"; exit 1; }
for binary in "$sim" "$exporter"; do
  [ -x "$binary" ] || { echo "FAIL $binary is not built"; exit 1; }
done

tmp=$(mktemp -d)
sim_pid=
exporter_pid=
# stop PID: ends a process this check started and waits for it.
stop() { if [ -n "$1" ]; then kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; fi; }
cleanup() {
  stop "$exporter_pid"
  stop "$sim_pid"
  rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=tests/checks/lib/kubectl_sim.sh
. tests/checks/lib/kubectl_sim.sh
printf 'sim-token-%s' "$$" >"$tmp/token"
# A kubeconfig whose user has the token the simulator wants.
kubeconfig() {
  write_kubeconfig "$tmp/kubeconfig" demo
  sed -i "s|  user: {}|  user:\n    token: $(cat "$tmp/token")|" "$tmp/kubeconfig"
}
start_sim tests/scenarios/demo.json
write_kubeconfig "$tmp/kubeconfig" demo
export KUBECONFIG=$tmp/kubeconfig
mkdir "$tmp/plugins"
ln -s "$(cd "$(dirname "$exporter")" && pwd)/$(basename "$exporter")" "$tmp/plugins/kubectl-podwait"
export PATH=$tmp/plugins:$PATH
unset NO_COLOR

# expect NAME FILE PATTERN...: every extended regular expression matches a line of FILE.
expect() {
  local name=$1 file=$2 missing=""
  shift 2
  for pattern in "$@"; do
    grep -Eq -- "$pattern" "$file" || missing="$missing [$pattern]"
  done
  if [ -z "$missing" ]; then ok "$name"; else
    bad "$name: no line matches$missing"
    sed 's/^/     /' "$file" | head -40
  fi
}
# podwait NAME WANT_CODE ARGS...: kubectl podwait ARGS into $tmp/NAME.{out,err}.
podwait() {
  local name=$1 want=$2 code=0 start end
  shift 2
  start=$(date +%s%N)
  timeout 60 kubectl podwait "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || code=$?
  end=$(date +%s%N)
  echo "     (kubectl podwait $*: $(((end - start) / 1000000)) ms)"
  if [ "$code" -eq "$want" ]; then ok "kubectl podwait $*: exit $code"; else
    bad "kubectl podwait $*: exit $code, want $want"
    sed 's/^/     /' "$tmp/$name.out" "$tmp/$name.err" | head -30
  fi
}

# kubectl's own request through the service proxy, with the kubeconfig's token.
kubectl get --raw /api/v1/namespaces/demo/services/demo-pd:2379/proxy/pd/api/v1/members >"$tmp/raw.out"
expect "kubectl get --raw .../services/demo-pd:2379/proxy/pd/api/v1/members" "$tmp/raw.out" '"name":"demo-pd-0"'
kubectl get --raw /api/v1/namespaces/tidb-v2/services/http:pd-pd:2379/proxy/pd/api/v1/health >"$tmp/raw2.out"
expect "the v2 Cluster's status.pd Service (pd-pd) through the proxy" "$tmp/raw2.out" '"name":"basic-pd-0"'

# From here the simulator wants the kubeconfig's token, which podwait sends with every request.
stop "$sim_pid"
sim_pid=
start_sim tests/scenarios/demo.json --token-file "$tmp/token"
kubeconfig

podwait all 1 -A -o wide
expect "kubectl podwait -A, PD through the API server: the seed's classes" "$tmp/all.out" \
  '^demo +demo-tidb-0 +yes +dependency +no_pd_leader ' \
  '^demo +demo-tikv-0 +yes +scale_up ' \
  '^shop +shop-tikv-2 +no +capacity ' \
  '^tidb-v2 +tidb-tidb-[a-z0-9]+ +yes +dependency +no_pd_leader '
if grep -q "not reachable from here" "$tmp/all.out" "$tmp/all.err"; then
  bad "a reachable proxy was reported as refused"
else ok "nothing said about PD being out of reach"; fi

# kubectl's own flags and no kubeconfig at all: the API server from --server, the token from --token.
KUBECONFIG=$tmp/no-kubeconfig podwait server 1 -A -o wide --server "$base" --token "$(cat "$tmp/token")"
expect "kubectl podwait --server URL -A, no kubeconfig: the seed's classes" "$tmp/server.out" \
  '^demo +demo-tidb-0 +yes +dependency +no_pd_leader ' \
  '^demo +demo-tikv-0 +yes +scale_up ' \
  '^shop +shop-tikv-2 +no +capacity ' \
  '^tidb-v2 +tidb-tidb-[a-z0-9]+ +yes +dependency +no_pd_leader '

# Pods and events only (no TidbCluster settles it, as in the seed's report), PD up with a leader
# and no TiKV yet: only PD's answer says TiDB waits for TiKV.
curl -fsS -X POST "$base/_sim/advance?to=pd-ready" >/dev/null
podwait seed 0 -n demo --tidbcluster.enabled=false
expect "pods and events only, through the API server: TiDB in Init waits for its dependency" \
  "$tmp/seed.out" '^demo-tidb-0 +yes +dependency +tikv_not_ready '
podwait direct 0 -n demo --tidbcluster.enabled=false --pd.via=direct
expect "the same with --pd.via=direct: PD unknown from here, TiDB only starting" \
  "$tmp/direct.out" '^demo-tidb-0 +yes +starting +dependency_unknown '

# The exporter run from the laptop with the same kubeconfig.
exporter_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$exporter" --kubeconfig "$KUBECONFIG" --web.listen-address="127.0.0.1:$exporter_port" \
  --tidbcluster.enabled=false >"$tmp/exporter.log" 2>&1 &
exporter_pid=$!
seen=
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$exporter_port/api/v1/pods" >"$tmp/pods.json" 2>/dev/null &&
    python3 - "$tmp/pods.json" <<'PY'
import json, sys
pods = {p["pod"]: (p["class"], p["reason"]) for p in json.load(open(sys.argv[1]))["pods"]}
want = {"demo-tidb-0": ("dependency", "tikv_not_ready"), "demo-tikv-0": ("scale_up", None),
        "shop-tikv-2": ("capacity", None)}
sys.exit(0 if all(p in pods and pods[p][0] == c and r in (None, pods[p][1])
                  for p, (c, r) in want.items()) else 1)
PY
  then seen=1; break; fi
  sleep 0.2
done
if [ -n "$seen" ]; then ok "the exporter from a laptop: the seed's classes through the API server"
else bad "the exporter from a laptop"; sed 's/^/     /' "$tmp/pods.json" "$tmp/exporter.log" | head -30; fi
# The classes may come before every cluster's first probe through the proxy has answered.
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$exporter_port/metrics" >"$tmp/metrics" || true
  grep -Eq '^podwait_pd_probe_success\{namespace="shop",tidb_cluster="shop-shop"\} 1$' "$tmp/metrics" && break
  sleep 0.2
done
expect "the exporter's PD probes through the proxy succeed" "$tmp/metrics" \
  '^podwait_pd_probe_success\{namespace="shop",tidb_cluster="shop-shop"\} 1$'
python3 - "$tmp/metrics" <<'PY'
import re, sys
counts = {m.group(1): float(m.group(2)) for m in re.finditer(
    r'^podwait_probe_duration_seconds_count\{endpoint="([a-z_]+)"\} (\S+)$', open(sys.argv[1]).read(), re.M)}
probes = counts.get("health", 0)
if probes:
    print("     requests through the API server per probe: %.2f (%d requests, %d probes: %s)" % (
        sum(counts.values()) / probes, sum(counts.values()), probes,
        ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
PY
stop "$exporter_pid"
exporter_pid=

# A user without get on services/proxy: named, and the verdicts come from the objects alone.
stop "$sim_pid"
sim_pid=
start_sim tests/scenarios/demo.json --token-file "$tmp/token" --forbid-service-proxy
kubeconfig
podwait forbidden 1 -A
expect "kubectl podwait -A, proxy forbidden: the classes from the objects, the refusal named" \
  "$tmp/forbidden.out" \
  '^demo +demo-tidb-0 +yes +dependency ' \
  '^shop +shop-tikv-2 +no +capacity ' \
  '^PD not reachable from here for 3 clusters \(demo/demo, shop/shop, tidb-v2/basic\): .*services/proxy.*Grant it in each namespace \(demo, shop, tidb-v2\): kubectl -n <namespace> create role pd-proxy --verb=get --resource=services/proxy'
lines=$(grep -c 'PD is not reachable from here' "$tmp/forbidden.err" || true)
# The line is about the first refusal, whichever cluster's probe that was.
if [ "$lines" -eq 1 ] &&
  grep -Eq 'grant="kubectl -n (demo|shop|tidb-v2) create role pd-proxy --verb=get --resource=services/proxy' "$tmp/forbidden.err"; then
  ok "one log line names the refusal and the RBAC to grant"
else bad "log lines about the refusal: $lines"; sed 's/^/     /' "$tmp/forbidden.err" | head; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
