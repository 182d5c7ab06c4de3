#!/usr/bin/env bash
# The real kubectl against the simulator (tests/sim/README.md, "What kubectl needs"): a kubeconfig
# on loopback, the demo scenario stepped by hand, and kubectl's own output asserted — version,
# api-resources, get pods/events -A, describe pod, get pods -w while steps run, the printer
# columns of tidbclusters and tikvs, an Event created with kubectl create -f showing in describe
# pod, and the exporter run with --events.write: its verdicts as Events in describe pod and get
# events.
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
[ -x "$sim" ] || { echo "FAIL $sim is not built"; exit 1; }
[ -x "$exporter" ] || { echo "FAIL $exporter is not built"; exit 1; }

tmp=$(mktemp -d)
sim_pid=
exporter_pid=
cleanup() {
  [ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null && wait "$exporter_pid" 2>/dev/null
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=tests/checks/lib/kubectl_sim.sh
. tests/checks/lib/kubectl_sim.sh
start_sim tests/scenarios/demo.json
write_kubeconfig "$tmp/kubeconfig"
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

# The exporter, writing its verdicts as Events (--events.write), from the story's first step.
"$exporter" --web.listen-address=127.0.0.1:0 --kube.api-url="$base" \
  --pd.url-template="$base/pd/{namespace}/{cluster}" --pd.interval=1s --events.write \
  >"$tmp/exporter.log" 2>&1 &
exporter_pid=$!

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

# podwait's verdict (--events.write) next to the scheduler's and the autoscaler's.
for _ in $(seq 1 200); do
  k get events -n demo --field-selector involvedObject.name=demo-tikv-0 2>/dev/null |
    grep -q PodwaitScaleUp && break
  sleep 0.1
done
run describe describe pod -n demo demo-tikv-0
expect "kubectl describe pod shows the pod, its events and podwait's verdict" "$tmp/describe.out" \
  '^Name: +demo-tikv-0$' '^Namespace: +demo$' '^Status: +Pending$' \
  '^ +PodScheduled +False' \
  '^ +Warning +FailedScheduling +.* default-scheduler +0/3 nodes are available' \
  '^ +Normal +TriggeredScaleUp +.* cluster-autoscaler +pod triggered scale-up' \
  '^ +Normal +PodwaitScaleUp +[0-9]+s +podwait\.pingcap\.com/exporter +scale_up \(expected wait\), stage unscheduled, reason scale_up_in_progress: '
if [ -n "${PODWAIT_KUBECTL_DESCRIBE_OUT:-}" ]; then cp "$tmp/describe.out" "$PODWAIT_KUBECTL_DESCRIBE_OUT"; fi
run podwait-events get events -A --field-selector reportingComponent=podwait.pingcap.com/exporter
expect "kubectl get events lists podwait's Events (Normal: expected waits)" \
  "$tmp/podwait-events.out" \
  '^demo +.* Normal +PodwaitScaleUp +pod/demo-tikv-0 +scale_up \(expected wait\)' \
  '^demo +.* Normal +PodwaitDependency +pod/demo-tidb-0 +dependency \(expected wait\)' \
  '^shop +.* Warning +PodwaitCapacity +pod/shop-tikv-2 +capacity \(needs attention\)'
if grep -Ev '^NAMESPACE|podwait|Podwait' "$tmp/podwait-events.out" | grep -q .; then
  bad "the field selector let through Events that are not podwait's"
fi

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
    grep -q '"openWatches":[1-9]' <<<"$(curl -fsS "$base/_sim/state?resource=pods")" && break
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

# After the node arrived, demo-tikv-0 starts: a new class, a new Event beside the first.
for _ in $(seq 1 200); do
  k get events -n demo --field-selector involvedObject.name=demo-tikv-0 2>/dev/null |
    grep -q PodwaitStarting && break
  sleep 0.1
done
run describe-later describe pod -n demo demo-tikv-0
expect "kubectl describe pod shows each class change of the pod" "$tmp/describe-later.out" \
  '^ +Normal +PodwaitScaleUp +.* podwait\.pingcap\.com/exporter +scale_up ' \
  '^ +Normal +PodwaitStarting +.* podwait\.pingcap\.com/exporter +starting \(expected wait\)'
curl -fsS "$base/_sim/state" >/dev/null  # the simulator is still up
port_line=$(grep -o 'port=[0-9]*' "$tmp/exporter.log" | head -n 1)
# The scrape is kept whole first: grep -q would stop reading at its match, and under pipefail the
# curl still writing would make the pipeline fail.
curl -fsS "http://127.0.0.1:${port_line#port=}/metrics" >"$tmp/metrics.txt" || true
if grep -Eq '^podwait_events_written_total\{result="failed"\} 0$' "$tmp/metrics.txt"; then
  ok "the exporter wrote its Events without a failure"
else
  bad "the exporter's Event writes failed"
  grep -i event "$tmp/exporter.log" | head -10 | sed 's/^/     /'
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
