#!/usr/bin/env bash
# The main job: builds podwait and runs the exporter.
#
#   scripts/run.sh [EXPORTER FLAGS...]
#
# With --kube.api-url, --kubeconfig or --kube.context (or inside a pod, where
# KUBERNETES_SERVICE_HOST is set) the exporter watches that cluster: `scripts/run.sh --kube.context
# prod` uses $KUBECONFIG or ~/.kube/config as kubectl does. Without any of them (even when a
# kubeconfig exists), it starts the bundled simulator with the demo scenario
# (tests/scenarios/demo.json: a TiDB cluster whose pods wait for PD and for a new node, and a
# second one with a true capacity shortfall) and points the exporter at it.
#
# Environment: PODWAIT_PORT (default 9877), PODWAIT_SIM_PORT (default 9878).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh build
scripts/build.sh podwait-exporter podwait-sim >/dev/null
exporter=build/podwait-exporter
port=${PODWAIT_PORT:-9877}

real_cluster=0
for a in "$@"; do
  case "$a" in --kube.api-url* | --kubeconfig* | --kube.context*) real_cluster=1 ;; esac
done
[ -n "${KUBERNETES_SERVICE_HOST:-}" ] && real_cluster=1
if [ $real_cluster -eq 1 ]; then
  exec "$exporter" --web.listen-address=":$port" "$@"
fi

sim_port=${PODWAIT_SIM_PORT:-9878}
workdir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$workdir"
}
trap cleanup EXIT INT TERM

# --loop: the story replays every 100 s (the scenario's "cycle"), so the waits keep coming back.
build/podwait-sim --listen "127.0.0.1:$sim_port" --scenario tests/scenarios/demo.json --loop \
  >"$workdir/sim.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do
  curl -fsS "http://127.0.0.1:$sim_port/api/v1/pods?limit=1" >/dev/null 2>&1 && break
  sleep 0.1
done

"$exporter" --web.listen-address="127.0.0.1:$port" \
  --kube.api-url="http://127.0.0.1:$sim_port" \
  --pd.url-template="http://127.0.0.1:$sim_port/pd/{namespace}/{cluster}" \
  --pd.interval=5s "$@" &
pids+=($!)

cat <<MSG

podwait demo: the exporter watches the bundled simulator (scenario tests/scenarios/demo.json).
  status page   http://127.0.0.1:$port/
  metrics       http://127.0.0.1:$port/metrics
  waiting pods  http://127.0.0.1:$port/api/v1/pods
  explain       curl -s http://127.0.0.1:$sim_port/api/v1/pods | $exporter explain -f -
  kubectl       kubectl --server http://127.0.0.1:$sim_port get pods -A
Within a minute PD turns ready and the new node arrives; watch the classes change. The story
replays every 100 s.
Press Ctrl-C to stop.

MSG
wait -n "${pids[@]}"
