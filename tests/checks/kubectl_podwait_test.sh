#!/usr/bin/env bash
# `kubectl podwait`: the real kubectl finds the plugin on PATH (the release archive that
# scripts/krew-package.sh builds, unpacked) and runs it against the simulator: its table and exit
# code per namespace, -A, kubectl's global options (--server/-s without a kubeconfig, --context,
# --cluster, --user over one), -w until SIGINT, a refused API server failing fast, --help in
# kubectl's style, a bad flag; the krew manifest names that archive and its sha256.
#
# Run from the source root; PODWAIT_BUILD_DIR is the build tree (default: build).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${PODWAIT_BUILD_DIR:-build}
sim=$build/podwait-sim
passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

command -v kubectl >/dev/null || { echo "FAIL kubectl not found (scripts/setup.sh test installs it)"; exit 1; }
[ -x "$sim" ] || { echo "FAIL $sim is not built"; exit 1; }

tmp=$(mktemp -d)
sim_pid=
cleanup() {
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# The plugin as krew would install it: the release archive, unpacked into a directory on PATH.
scripts/krew-package.sh 0.0.0-check "file://$tmp/release" "$tmp/release" "$build/podwait-exporter" >/dev/null
mkdir "$tmp/plugins"
tar -C "$tmp/plugins" -xzf "$tmp/release/kubectl-podwait_0.0.0-check_linux_amd64.tar.gz"
if python3 - "$tmp/release" <<'PY'
import hashlib, sys, yaml
d = sys.argv[1]
m = yaml.safe_load(open(d + "/podwait.yaml"))
assert m["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2", m["apiVersion"]
assert m["kind"] == "Plugin" and m["metadata"]["name"] == "podwait"
spec = m["spec"]
assert spec["version"] == "v0.0.0-check" and spec["shortDescription"]
p = spec["platforms"][0]
archive = "kubectl-podwait_0.0.0-check_linux_amd64.tar.gz"
assert p["uri"].endswith("/" + archive), p["uri"]
assert p["sha256"] == hashlib.sha256(open(d + "/" + archive, "rb").read()).hexdigest()
assert p["bin"] == "kubectl-podwait"
assert p["selector"]["matchLabels"] == {"os": "linux", "arch": "amd64"}
PY
then ok "the krew manifest names the archive, its sha256 and the kubectl-podwait binary"
else bad "the krew manifest"
fi

# shellcheck source=tests/checks/lib/kubectl_sim.sh
. tests/checks/lib/kubectl_sim.sh
start_sim tests/scenarios/demo.json
write_kubeconfig "$tmp/kubeconfig" demo
export KUBECONFIG=$tmp/kubeconfig
export PATH=$tmp/plugins:$PATH
unset NO_COLOR
# The simulator serves PD under its own address (the default template names in-cluster services).
pd="--pd.url-template=$base/pd/{namespace}/{cluster}"

# podwait NAME WANT_CODE ARGS...: kubectl podwait ARGS into $tmp/NAME.out; the exit code must be WANT_CODE.
podwait() {
  local name=$1 want=$2 code=0
  shift 2
  timeout 60 kubectl podwait "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || code=$?
  if [ "$code" -eq "$want" ]; then
    ok "kubectl podwait $*: exit $code"
  else
    bad "kubectl podwait $*: exit $code, want $want"
    sed 's/^/     /' "$tmp/$name.out" "$tmp/$name.err" | head -30
  fi
}
# expect NAME FILE PATTERN...: every extended regular expression matches a line of FILE.
expect() {
  local name=$1 file=$2 missing=""
  shift 2
  for pattern in "$@"; do
    grep -Eq -- "$pattern" "$file" || missing="$missing [$pattern]"
  done
  if [ -z "$missing" ]; then
    ok "$name"
  else
    bad "$name: no line matches$missing"
    sed 's/^/     /' "$file" | head -40
  fi
}

if kubectl plugin list 2>/dev/null | grep -q "$tmp/plugins/kubectl-podwait"; then
  ok "kubectl plugin list finds kubectl-podwait"
else
  bad "kubectl plugin list does not list $tmp/plugins/kubectl-podwait"
fi

podwait shop 1 -n shop "$pd"
expect "kubectl podwait -n shop: a pod short of capacity (not expected)" "$tmp/shop.out" \
  '^POD +EXPECTED +CLASS +REASON +WAITING +STAGE +COMPONENT +CLUSTER$' \
  '^shop-tikv-2 +no +capacity +max_node_group_size +[0-9hms]+ +unscheduled +tikv +shop$' \
  '^[0-9]+ pods in namespace shop, 1 waiting: 1 needs attention \(capacity 1\), 0 expected\.$'

# No -n: the context's namespace (demo), where everything waits as designed.
podwait demo 0 "$pd"
expect "kubectl podwait: the context's namespace, every wait expected" "$tmp/demo.out" \
  '^demo-tikv-0 +yes +scale_up +scale_up_in_progress ' \
  '^demo-tidb-0 +yes +dependency +no_pd_leader ' \
  'in namespace demo, [0-9]+ waiting: 0 need attention, '

podwait all 1 -A -o wide "$pd"
expect "kubectl podwait -A -o wide: every namespace, with evidence" "$tmp/all.out" \
  '^NAMESPACE +POD +EXPECTED +CLASS .* EVIDENCE$' \
  '^demo +demo-tikv-0 +yes +scale_up .*TriggeredScaleUp: pod triggered scale-up' \
  '^shop +shop-tikv-2 +no +capacity '

podwait names 1 -A -o name --no-headers "$pd"
expect "kubectl podwait -o name" "$tmp/names.out" '^pod/shop-tikv-2$' '^pod/demo-tidb-0$'

podwait selected 0 -A -l 'app.kubernetes.io/component in (tidb)' "$pd"
expect "kubectl podwait -l selects pods by label" "$tmp/selected.out" '^demo +demo-tidb-4 '
if grep -q tikv "$tmp/selected.out"; then bad "-l let a TiKV pod through"; else ok "-l leaves other pods out"; fi

podwait help 0 --help
expect "kubectl podwait --help, in kubectl's style" "$tmp/help.out" \
  '^Examples:$' '^Options:$' '^    -A, --all-namespaces=false:$' '^    -w, --watch=false:$' \
  '^Kubectl options:$' '^    -s, --server=.*:$' '^    --request-timeout=.*:$' \
  '^Usage:$' '^  kubectl podwait \[-n NAMESPACE \| -A\]' '^Exit codes: 0 '
if grep -q '(default: ' "$tmp/help.out"; then bad "--help shows (default: ...) noise"; else ok "--help has no (default: ...) noise"; fi

# kubectl's global options, with kubectl's precedence over the kubeconfig. --server/-s alone, with
# no kubeconfig at all (KUBECONFIG naming files that do not exist, which kubectl skips):
KUBECONFIG=$tmp/nowhere podwait server 1 --server "$base" -A "$pd"
expect "kubectl podwait --server URL -A, no kubeconfig" "$tmp/server.out" \
  '^demo +demo-tidb-0 +yes +dependency ' '^demo +demo-tikv-0 +yes +scale_up ' \
  '^shop +shop-tikv-2 +no +capacity '
KUBECONFIG=$tmp/nowhere podwait short 1 -s "$base" -n shop "$pd"
expect "kubectl podwait -s URL -n shop" "$tmp/short.out" '^shop-tikv-2 +no +capacity '
# A kubeconfig whose current context points at a port nobody listens on: --context, --cluster
# (with --user) and --server each lead to the simulator instead.
{
  printf 'apiVersion: v1\nkind: Config\ncurrent-context: down\nclusters:\n'
  printf -- '- name: down\n  cluster: {server: "http://127.0.0.1:1"}\n'
  printf -- '- name: sim\n  cluster: {server: "%s"}\n' "$base"
  printf 'contexts:\n- name: down\n  context: {cluster: down, user: nobody}\n'
  printf -- '- name: sim\n  context: {cluster: sim, user: sre, namespace: shop}\n'
  printf 'users:\n- name: sre\n  user: {}\n- name: nobody\n  user: {}\n'
} >"$tmp/two-contexts"
KUBECONFIG=$tmp/two-contexts podwait context 1 --context sim "$pd"
expect "kubectl podwait --context sim: that context's cluster and namespace" "$tmp/context.out" \
  '^shop-tikv-2 +no +capacity ' 'in namespace shop,'
KUBECONFIG=$tmp/two-contexts podwait cluster 1 --cluster sim --user sre -n shop "$pd"
expect "kubectl podwait --cluster sim --user sre" "$tmp/cluster.out" '^shop-tikv-2 +no +capacity '
KUBECONFIG=$tmp/two-contexts podwait server-over 1 -s "$base" -n shop "$pd"
expect "kubectl podwait -s over a kubeconfig" "$tmp/server-over.out" '^shop-tikv-2 +no +capacity '

# The current context's server refuses: exit 2 at once (kubectl's own behaviour), naming it.
start=$(date +%s%N)
KUBECONFIG=$tmp/two-contexts podwait refused 2 -A
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect "a refused API server is named" "$tmp/refused.err" \
  '^kubectl podwait: cannot reach the API server http://127.0.0.1:1 \(context "down" of '
if [ "$took_ms" -lt 20000 ]; then ok "a refused API server ends it in ${took_ms} ms, not at --timeout"
else bad "a refused API server took ${took_ms} ms"; fi

podwait bogus 2 --bogus
expect "a bad flag is a usage error naming it" "$tmp/bogus.err" \
  '^kubectl podwait: error: unknown flag --bogus'

# -w: the table, then each row again as its verdict changes (the simulator's PD gets its leader,
# then TiKV starts), until SIGINT: exit 0 although shop-tikv-2 needs attention.
kubectl podwait -A -w "$pd" >"$tmp/watch.out" 2>"$tmp/watch.err" &
watch_pid=$!
for _ in $(seq 1 100); do grep -q '^shop ' "$tmp/watch.out" 2>/dev/null && break; sleep 0.1; done
curl -fsS -X POST "$base/_sim/advance?to=tikv-1-2-start" >/dev/null
for _ in $(seq 1 100); do grep -q '^demo +demo-pd-0 +- +- +not waiting' "$tmp/watch.out" && break; sleep 0.1; done
kill -INT "$watch_pid"
watch_code=0
wait "$watch_pid" || watch_code=$?
if [ "$watch_code" -eq 0 ]; then ok "kubectl podwait -w: exit 0 on SIGINT"
else bad "kubectl podwait -w: exit $watch_code on SIGINT"; sed 's/^/     /' "$tmp/watch.err" | head; fi
expect "kubectl podwait -w prints the rows that change" "$tmp/watch.out" \
  '^NAMESPACE +POD +EXPECTED ' '^demo +demo-pd-0 +yes +starting +pd_bootstrap ' \
  '^demo +demo-pd-0 +- +- +not waiting ' '^shop +shop-tikv-2 +no +capacity '
if [ "$(grep -c '^NAMESPACE ' "$tmp/watch.out")" -eq 1 ] && ! grep -q 'waiting:' "$tmp/watch.out"; then
  ok "-w: one header, no summary line"
else
  bad "-w: headers or summary lines repeated"; sed 's/^/     /' "$tmp/watch.out" | head -40
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
