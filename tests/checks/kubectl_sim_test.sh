#!/usr/bin/env bash
# The real kubectl against the simulator (tests/sim/README.md, "What kubectl needs"): a kubeconfig
# on loopback, the demo scenario stepped by hand, and kubectl's own output asserted — version,
# api-resources, get pods/events -A, describe pod, get pods -w while steps run, the printer
# columns of tidbclusters and tikvs, and an Event created with kubectl create -f showing in
# describe pod.
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

"$sim" --listen 127.0.0.1:0 --port-file "$tmp/port" --manual \
  --scenario tests/scenarios/demo.json >"$tmp/sim.out" 2>"$tmp/sim.err" &
sim_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
base=http://127.0.0.1:$port

cat >"$tmp/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: sim
  cluster:
    server: $base
contexts:
- name: sim
  context:
    cluster: sim
    user: sim
current-context: sim
users:
- name: sim
  user: {}
EOF
export KUBECONFIG=$tmp/kubeconfig
k() { timeout 30 kubectl --cache-dir "$tmp/cache" "$@"; }

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
run() {  # run NAME ARGS...: kubectl ARGS into $tmp/NAME.out (stderr too); a failure is reported
  local name=$1
  shift
  if ! k "$@" >"$tmp/$name.out" 2>&1; then
    bad "kubectl $*: exit status $?"
    sed 's/^/     /' "$tmp/$name.out" | head -20
  fi
}

run version version
expect "kubectl version shows the simulator's server version" "$tmp/version.out" \
  '^Server Version: v1\.[0-9]+\.[0-9]+-sim$'

run api-resources api-resources
expect "kubectl api-resources lists core, events.k8s.io and the tidb-operator resources" \
  "$tmp/api-resources.out" \
  '^pods +po +v1 +true +Pod$' '^events +ev +v1 +true +Event$' \
  '^events +ev +events\.k8s\.io/v1 +true +Event$' \
  '^tidbclusters +tc +pingcap\.com/v1alpha1 +true +TidbCluster$' \
  '^tikvs +core\.pingcap\.com/v1alpha1 +true +TiKV$'

run pods get pods -A
expect "kubectl get pods -A shows kubectl's columns and the pods' states" "$tmp/pods.out" \
  '^NAMESPACE +NAME +READY +STATUS +RESTARTS +AGE$' \
  '^demo +demo-tikv-0 +0/1 +Pending +0 +[0-9]' \
  '^demo +demo-tidb-0 +0/1 +Init:0/1 +0 +[0-9]' \
  '^demo +demo-pd-0 +0/1 +Running +0 +[0-9]' \
  '^shop +shop-tikv-0 +1/1 +Running +0 +[0-9]' \
  '^tidb-v2 +tikv-tikv-[a-z0-9]+ +0/1 +CrashLoopBackOff +[0-9]+ \([0-9]+s ago\)'

run events get events -A
expect "kubectl get events -A shows the scheduler's and the autoscaler's events" "$tmp/events.out" \
  '^NAMESPACE +LAST SEEN +TYPE +REASON +OBJECT +MESSAGE$' \
  '^demo +.* Warning +FailedScheduling +pod/demo-tikv-0 +0/3 nodes are available: 3 Insufficient cpu' \
  '^demo +.* Normal +TriggeredScaleUp +pod/demo-tikv-0 +pod triggered scale-up' \
  '^shop +.* Normal +NotTriggerScaleUp +pod/shop-tikv-2 '

run describe describe pod -n demo demo-tikv-0
expect "kubectl describe pod shows the pod and its events" "$tmp/describe.out" \
  '^Name: +demo-tikv-0$' '^Namespace: +demo$' '^Status: +Pending$' \
  '^ +PodScheduled +False' \
  '^ +Warning +FailedScheduling +.* default-scheduler +0/3 nodes are available' \
  '^ +Normal +TriggeredScaleUp +.* cluster-autoscaler +pod triggered scale-up'

run tidbclusters get tidbclusters -A
expect "kubectl get tidbclusters shows tidb-operator's printer columns" "$tmp/tidbclusters.out" \
  '^NAMESPACE +NAME +READY +PD +STORAGE +READY +DESIRE +TIKV +STORAGE +READY +DESIRE +TIDB +READY +DESIRE +AGE$' \
  '^demo +demo +pingcap/pd:v[0-9.]+ +3 +pingcap/tikv:v[0-9.]+ +3 +pingcap/tidb:v[0-9.]+ +5 +[0-9]'
run tikvs get tikvs -n tidb-v2
expect "kubectl get tikvs shows the v2 TiKV printer columns" "$tmp/tikvs.out" \
  '^NAME +CLUSTER +STOREID +STORESTATE +SYNCED +READY +AGE$' \
  '^tikv-[a-z0-9]+ +basic +.*False'
run tidb-wide get tc -n demo -o wide
expect "kubectl get tc -o wide adds the priority-1 Status column" "$tmp/tidb-wide.out" \
  ' STATUS +AGE$'

# get pods -w: the watch shows the changes of the steps run meanwhile.
timeout 20 kubectl --cache-dir "$tmp/cache" get pods -n demo -w >"$tmp/watch.out" 2>&1 &
watch_pid=$!
for _ in $(seq 1 100); do
  grep -q '^demo-tikv-2 ' "$tmp/watch.out" 2>/dev/null &&
    curl -fsS "$base/_sim/state?resource=pods" | grep -q '"openWatches":[1-9]' && break
  sleep 0.1
done
curl -fsS -X POST "$base/_sim/advance?to=pd-ready" >/dev/null
curl -fsS -X POST "$base/_sim/advance?to=node-arrives" >/dev/null
for _ in $(seq 1 100); do
  grep -q '^demo-tikv-0 .*ContainerCreating' "$tmp/watch.out" && break
  sleep 0.1
done
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
expect "kubectl get pods -w shows the listed pods, then each change" "$tmp/watch.out" \
  '^demo-pd-0 +0/1 +Running ' '^demo-pd-0 +1/1 +Running ' \
  '^demo-tikv-1 +1/1 +Running ' '^demo-tikv-0 +0/1 +ContainerCreating '
if [ "$(grep -c '^NAME ' "$tmp/watch.out")" = 1 ]; then
  ok "kubectl get pods -w prints its header once"
else
  bad "kubectl get pods -w printed $(grep -c '^NAME ' "$tmp/watch.out") headers"
fi

# An Event as podwait will write it (core v1), created with kubectl, shows in describe pod.
uid=$(k get pod -n demo demo-tidb-0 -o 'jsonpath={.metadata.uid}')
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cat >"$tmp/event.yaml" <<EOF
apiVersion: v1
kind: Event
metadata:
  name: demo-tidb-0.podwait-check
  namespace: demo
involvedObject:
  apiVersion: v1
  kind: Pod
  name: demo-tidb-0
  namespace: demo
  uid: $uid
type: Normal
reason: WaitingForDependency
message: "dependency (expected): waits for PD demo to have a leader"
source:
  component: podwait
firstTimestamp: "$now"
lastTimestamp: "$now"
count: 1
reportingComponent: podwait
reportingInstance: podwait-exporter-0
EOF
run create create -f "$tmp/event.yaml"
expect "kubectl create -f creates the Event" "$tmp/create.out" \
  '^event/demo-tidb-0\.podwait-check created$'
run describe-event describe pod -n demo demo-tidb-0
expect "kubectl describe pod shows the created Event" "$tmp/describe-event.out" \
  '^ +Normal +WaitingForDependency +[0-9]+s +podwait +dependency \(expected\): waits for PD demo to have a leader$'
run events-ns get events -n demo --field-selector reason=WaitingForDependency
expect "kubectl get events --field-selector finds it" "$tmp/events-ns.out" \
  'Normal +WaitingForDependency +pod/demo-tidb-0 '

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
