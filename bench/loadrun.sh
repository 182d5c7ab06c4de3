#!/usr/bin/env bash
# Load run (docs/DESIGN.md §8): podwait-exporter on one core against podwait-sim serving 100,000 pods in
# 1,000 TiDB clusters (with events, TidbClusters and a PD API per cluster) and a steady churn.
#
#   bench/loadrun.sh [--build-dir DIR] [--clusters N] [--pods-per-cluster M] [--shape v1|v2]
#                    [--churn R] [--duration S] [--scrapes K] [--cpu C] [--sim-cpu C] [--out FILE]
#                    [--ready-samples K] [--fresh-pd-samples K] [--pd-tls] [--watch-namespaces N]
#                    [--namespaced] [--h2] [--v1-only] [--exporter-arg ARG]... [--sim-arg ARG]...
#
# Defaults: build-release (made with scripts/build.sh --release), 1000 clusters x 100 pods in the
# v1 shape (--shape v2: as tidb-operator v2 makes them, podwait-sim --generate-shape), churn
# 500 pod updates/s for 60 s, 50 scrapes, exporter on CPU 0 and simulator on CPU 1. Everything
# listens on 127.0.0.1 only. The run stops by itself: every wait has a deadline, and both
# processes are stopped (by their pid) on exit.
#
# Each cluster's PD is its own host, {cluster}-{namespace}.pd.localhost (libcurl resolves names
# under .localhost to loopback itself), so connections to different PDs are different connections,
# as in a real fleet. --pd-tls serves the PD API over HTTPS with client certificates (RSA 2048, as
# tidb-operator's TLS guide issues them; made here with openssl, valid one day) through
# bench/pd_tls_proxy.py on the simulator's core. --watch-namespaces N passes the first N clusters'
# namespaces as --namespaces; --namespaced makes them all the account may read (the simulator's
# --rbac-namespaces: a namespaced install's Roles, no ClusterRole, so every cluster-wide request
# is 403 and SelfSubjectAccessReviews say so). --h2 puts nghttpx (scripts/setup.sh test) before the
# simulator's Kubernetes API, as an API server's front: TLS with ALPN h2, so the exporter's lists
# and watches multiplex over HTTP/2 (without it they are HTTP/1.1, a connection each).
# --v1-only: the API server serves no tidb-operator v2 CRD (a cluster with v1 only; by default the
# simulator serves them all, empty). --exporter-arg adds a flag to the exporter's command line,
# --sim-arg one to the simulator's
# (--sim-arg --watch-list=off: a server without the watch-list, so the sync is the paged list).
#
# Reports, as key=value lines (and into --out when given):
#   sync_s              exporter start -> /readyz 200 (every reflector listed once)
#   pods_list_ms        the pod reflector's own "listed" time (from its log line)
#   peak_rss_mib        VmHWM right after the initial sync (peak during the initial list)
#   steady_rss_mib      VmRSS after the churn phase and the scrapes
#   events_per_s        rate of podwait_watch_events_total{resource="pods"} during the churn
#   cpu_ms_per_1k_events  process_cpu_seconds_total per 1,000 pod events during the churn (all of
#                       the exporter's work in that time: watch, evaluation loop, PD probes)
#   cpu_cores           process CPU seconds per wall second during the churn
#   metrics_p50_ms / metrics_p99_ms   /metrics latency (uncompressed) over --scrapes scrapes
#   metrics_bytes, waiting_pods       response size and number of waiting pods in it
#   scrape_mean_server_ms             podwait_scrape_duration_seconds: mean render time, server side
#   probe_round_s       podwait_probe_round_seconds: the last full PD probe round
#   probes_per_s        cluster probes per second during the churn (podwait_probe_duration_seconds
#                       of /health, which every probe asks first)
#   cpu_us_per_probe    process CPU per cluster probe during the churn (all of the process's CPU:
#                       meaningful as a probe's cost with --churn 0, when probing is all it does)
#   threads / fds       the exporter's threads and open descriptors after the churn
#   kube_connections    the exporter's TCP connections to the Kubernetes API (or its h2 front)
#   bare_list_s         a bare client paging the same pod list from the same simulator (reads
#                       every page, parses nothing; bench/loadrun_probe.py), before the exporter
#   sync_over_bare      sync_s / bare_list_s
#   ready_gone_p50_ms / ready_gone_p99_ms / ready_gone_max_ms   a waiting pod turned Ready through
#                       the simulator -> gone from /api/v1/pods (--ready-samples, v1 shape only)
#   fresh_pd_p50_ms / fresh_pd_p99_ms / fresh_pd_max_ms   a pod of a healthy cluster nobody waited
#                       on starts waiting while its PD loses its leader -> its class uses the
#                       fresh PD answer (reason no_pd_leader in /api/v1/pods; --fresh-pd-samples,
#                       v1 shape only; default 0)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build-release
clusters=1000
per_cluster=100
shape=v1
churn=500
duration=60
scrapes=50
cpu=0
sim_cpu=1
out=
ready_samples=50
fresh_pd_samples=0
pd_tls=0
watch_namespaces=0
namespaced=0
h2=0
v1_only=0
exporter_args=()
sim_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift ;;
    --clusters) clusters=$2; shift ;;
    --pods-per-cluster) per_cluster=$2; shift ;;
    --shape) shape=$2; shift ;;
    --churn) churn=$2; shift ;;
    --duration) duration=$2; shift ;;
    --scrapes) scrapes=$2; shift ;;
    --cpu) cpu=$2; shift ;;
    --sim-cpu) sim_cpu=$2; shift ;;
    --out) out=$2; shift ;;
    --ready-samples) ready_samples=$2; shift ;;
    --fresh-pd-samples) fresh_pd_samples=$2; shift ;;
    --pd-tls) pd_tls=1 ;;
    --watch-namespaces) watch_namespaces=$2; shift ;;
    --namespaced) namespaced=1 ;;
    --h2) h2=1 ;;
    --v1-only) v1_only=1 ;;
    --exporter-arg) exporter_args+=("$2"); shift ;;
    --sim-arg) sim_args+=("$2"); shift ;;
    -h|--help) sed -n '2,58p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

exporter=$build_dir/podwait-exporter
sim=$build_dir/podwait-sim
for b in "$exporter" "$sim"; do
  if [ ! -x "$b" ]; then
    echo "missing $b: scripts/build.sh --release podwait-exporter podwait-sim" >&2
    exit 2
  fi
done
for tool in curl taskset awk; do
  command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 2; }
done

work=$(mktemp -d)
sim_pid=
exp_pid=
proxy_pid=
h2_pid=
cleanup() {
  for pid in $exp_pid $proxy_pid $h2_pid $sim_pid; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in $exp_pid $proxy_pid $h2_pid $sim_pid; do
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ -n "${LOADRUN_KEEP_LOGS:-}" ]; then cp "$work"/*.err "$LOADRUN_KEEP_LOGS"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ms() { date +%s%3N; }
# wait_until DEADLINE_S COMMAND...: polls every 50 ms; fails after the deadline.
wait_until() {
  local deadline=$(( $(now_ms) + $1 * 1000 ))
  shift
  until "$@"; do
    if [ "$(now_ms)" -gt "$deadline" ]; then return 1; fi
    sleep 0.05
  done
}
status_kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
scrape() { curl -sf --max-time 10 "http://127.0.0.1:$exp_port/metrics"; }
# Sum of the samples of a metric whose labels contain $2 (may be empty) in the text on stdin;
# $3 (default "nan") when there is no such sample.
metric_sum() {
  awk -v name="$1" -v want="$2" -v none="${3:-nan}" '
    index($0, name) == 1 && (substr($0, length(name) + 1, 1) == "{" ||
                             substr($0, length(name) + 1, 1) == " ") &&
    (want == "" || index($0, want) > 0) { s += $NF; n++ }
    END { if (n) printf "%.6f\n", s; else print none }'
}

results=()
report() {
  results+=("$1=$2")
  echo "$1=$2"
}

# --- simulator ------------------------------------------------------------------------------
case "$shape" in v1|v2) ;; *) echo "--shape must be v1 or v2" >&2; exit 2 ;; esac
ns_list=
if [ "$watch_namespaces" -gt 0 ]; then
  ns_list=$(awk -v n="$watch_namespaces" 'BEGIN { for (i = 0; i < n; i++) printf "%sload-%04d", (i ? "," : ""), i }')
fi
if [ "$v1_only" = 1 ]; then
  echo '{"crds":{"v2":false}}' >"$work/v1-only.json"
  sim_args+=("--scenario=$work/v1-only.json")
fi
if [ "$namespaced" = 1 ]; then
  [ -n "$ns_list" ] || { echo "--namespaced needs --watch-namespaces" >&2; exit 2; }
  # kube-system: deploy/base's Role for the cluster-autoscaler status ConfigMap.
  sim_args+=("--rbac-namespaces=$ns_list,kube-system")
  # As deploy/overlays/namespaced: no PersistentVolumes without a ClusterRole.
  exporter_args+=("--volumes.enabled=false")
fi
echo "# generating $((clusters * per_cluster)) $shape pods in $clusters clusters (churn $churn/s)" >&2
taskset -c "$sim_cpu" "$sim" --listen 127.0.0.1:0 --port-file "$work/sim.port" --log-level warn \
  --generate-clusters "$clusters" --pods-per-cluster "$per_cluster" --generate-shape "$shape" \
  --churn-per-second "$churn" \
  --bookmark-interval 10s ${sim_args[@]+"${sim_args[@]}"} >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!
if ! wait_until 300 test -s "$work/sim.port"; then
  echo "simulator did not start" >&2
  cat "$work/sim.err" >&2
  exit 1
fi
sim_port=$(cat "$work/sim.port")

# --- a bare client paging the same list from the same server ----------------------------------
# (A namespaced account may not list all pods: then there is no bare figure.)
if [ "$namespaced" = 1 ]; then
  bare_s=nan
  bare_bytes=0
else
  read -r bare_s bare_bytes < <(taskset -c "$cpu" python3 bench/loadrun_probe.py bare-list "$sim_port" 500)
fi

# --- PD over TLS ------------------------------------------------------------------------------
pd_base="http://{cluster}-{namespace}.pd.localhost:$sim_port"
pd_flags=()
if [ "$pd_tls" = 1 ]; then
  command -v openssl >/dev/null || { echo "missing openssl" >&2; exit 2; }
  tls=$work/tls
  mkdir -p "$tls"
  req() { openssl req -newkey rsa:2048 -nodes "$@" >/dev/null 2>&1; }
  req -x509 -days 1 -keyout "$tls/ca.key" -out "$tls/ca.crt" -subj /CN=loadrun-pd-ca
  sign() {  # sign NAME CN SAN
    req -keyout "$tls/$1.key" -out "$tls/$1.csr" -subj "/CN=$2"
    printf 'subjectAltName=%s\n' "$3" >"$tls/$1.ext"
    openssl x509 -req -in "$tls/$1.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial \
      -days 1 -extfile "$tls/$1.ext" -out "$tls/$1.crt" >/dev/null 2>&1
  }
  sign server pd 'DNS:*.pd.localhost'
  sign client podwait 'DNS:podwait'
  taskset -c "$sim_cpu" python3 bench/pd_tls_proxy.py "$work/proxy.port" "$sim_port" \
    "$tls/ca.crt" "$tls/server.crt" "$tls/server.key" 2>"$work/proxy.err" &
  proxy_pid=$!
  if ! wait_until 30 test -s "$work/proxy.port"; then
    echo "TLS proxy did not start" >&2
    cat "$work/proxy.err" >&2
    exit 1
  fi
  pd_base="https://{cluster}-{namespace}.pd.localhost:$(cat "$work/proxy.port")"
  pd_flags=("--pd.tls.ca-file=$tls/ca.crt" "--pd.tls.cert-file=$tls/client.crt"
            "--pd.tls.key-file=$tls/client.key")
fi
ns_flags=()
if [ -n "$ns_list" ]; then
  ns_flags=("--namespaces=$ns_list")
fi

# --- the Kubernetes API over HTTP/2 -----------------------------------------------------------
kube_url="http://127.0.0.1:$sim_port"
kube_port=$sim_port
kube_flags=()
if [ "$h2" = 1 ]; then
  command -v nghttpx >/dev/null || { echo "missing nghttpx (scripts/setup.sh test)" >&2; exit 2; }
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -keyout "$work/h2.key" -out "$work/h2.crt" -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
  kube_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  taskset -c "$sim_cpu" nghttpx "--frontend=127.0.0.1,$kube_port" "--backend=127.0.0.1,$sim_port" \
    --workers=1 --frontend-http2-max-concurrent-streams=1000 --frontend-http2-read-timeout=1h \
    --frontend-read-timeout=1h --stream-read-timeout=0 --stream-write-timeout=0 \
    --backend-read-timeout=1h --backend-write-timeout=1h --no-ocsp --no-via --conf=/dev/null \
    --log-level=WARN "$work/h2.key" "$work/h2.crt" 2>"$work/h2.err" &
  h2_pid=$!
  wait_until 30 sh -c "curl -sk --max-time 1 -o /dev/null https://127.0.0.1:$kube_port/version" ||
    { echo "nghttpx did not start" >&2; cat "$work/h2.err" >&2; exit 1; }
  kube_url="https://127.0.0.1:$kube_port"
  kube_flags=("--kube.ca-file=$work/h2.crt")
fi

# --- exporter, pinned to one core ------------------------------------------------------------
exp_port_file=$work/exp.port
python3 - >"$exp_port_file" <<'EOF'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
EOF
exp_port=$(cat "$exp_port_file")
start_ms=$(now_ms)
taskset -c "$cpu" "$exporter" \
  --web.listen-address="127.0.0.1:$exp_port" \
  --kube.api-url="$kube_url" ${kube_flags[@]+"${kube_flags[@]}"} \
  "--pd.url-template=$pd_base/pd/{namespace}/{cluster}" \
  ${pd_flags[@]+"${pd_flags[@]}"} ${ns_flags[@]+"${ns_flags[@]}"} \
  ${exporter_args[@]+"${exporter_args[@]}"} \
  >"$work/exp.out" 2>"$work/exp.err" &
exp_pid=$!
ready() { curl -sf --max-time 1 -o /dev/null "http://127.0.0.1:$exp_port/readyz"; }
if ! wait_until 120 ready; then
  echo "exporter did not become ready within 120 s" >&2
  tail -20 "$work/exp.err" >&2
  exit 1
fi
sync_ms=$(( $(now_ms) - start_ms ))
peak_kib=$(status_kib "$exp_pid" VmHWM)
sync_rss_kib=$(status_kib "$exp_pid" VmRSS)
list_ms=$(awk '/msg=listed/ && / resource=pods / { for (i = 1; i <= NF; i++) if ($i ~ /^ms=/) { sub("ms=", "", $i); print $i } }' "$work/exp.err" | tail -1)
report pods "$((clusters * per_cluster))"
report pd_tls "$pd_tls"
report watch_namespaces "$watch_namespaces"
report namespaced "$namespaced"
report h2 "$h2"
report v1_only "$v1_only"
report shape "$shape"
report sync_s "$(awk -v m="$sync_ms" 'BEGIN { printf "%.2f", m / 1000 }')"
report bare_list_s "$bare_s"
report list_mib "$(awk -v b="$bare_bytes" 'BEGIN { printf "%.0f", b / 1048576 }')"
report sync_over_bare "$(awk -v m="$sync_ms" -v b="$bare_s" 'BEGIN { printf "%.2f", m / 1000 / b }')"
report pods_list_ms "${list_ms:-nan}"
report peak_rss_mib "$(mib "$peak_kib")"
report rss_after_sync_mib "$(mib "$sync_rss_kib")"

# --- steady churn -------------------------------------------------------------------------------
# The simulator churns from its start (the list is taken under churn, as in a live cluster). Let
# the exporter settle first: one full PD probe round.
if ! wait_until 120 sh -c "curl -sf --max-time 5 http://127.0.0.1:$exp_port/metrics | grep -q '^podwait_probe_round_seconds '"; then
  echo "# no PD probe round finished within 120 s" >&2
fi
m0=$(scrape)
t0=$(now_ms)
sleep "$duration"
m1=$(scrape)
t1=$(now_ms)
ev0=$(metric_sum podwait_watch_events_total 'resource="pods"' <<<"$m0")
ev1=$(metric_sum podwait_watch_events_total 'resource="pods"' <<<"$m1")
cpu0=$(metric_sum process_cpu_seconds_total "" <<<"$m0")
cpu1=$(metric_sum process_cpu_seconds_total "" <<<"$m1")
read -r rate cpu_per_1k cores < <(awk -v e0="$ev0" -v e1="$ev1" -v c0="$cpu0" -v c1="$cpu1" \
  -v t0="$t0" -v t1="$t1" 'BEGIN {
    s = (t1 - t0) / 1000; de = e1 - e0; dc = c1 - c0
    printf "%.1f %s %.3f\n", de / s, (de > 0 ? sprintf("%.2f", dc * 1000 * 1000 / de) : "nan"), dc / s }')
report churn_per_s "$churn"
report events_per_s "$rate"
report cpu_ms_per_1k_events "$cpu_per_1k"
report cpu_cores "$cores"
report probe_round_s "$(metric_sum podwait_probe_round_seconds "" <<<"$m1")"
pr0=$(metric_sum podwait_probe_duration_seconds_count 'endpoint="health"' 0 <<<"$m0")
pr1=$(metric_sum podwait_probe_duration_seconds_count 'endpoint="health"' 0 <<<"$m1")
read -r probes_rate cpu_per_probe < <(awk -v p0="$pr0" -v p1="$pr1" -v c0="$cpu0" -v c1="$cpu1" \
  -v t0="$t0" -v t1="$t1" 'BEGIN {
    s = (t1 - t0) / 1000; dp = p1 - p0; dc = c1 - c0
    printf "%.1f %s\n", dp / s, (dp > 0 ? sprintf("%.0f", dc * 1e6 / dp) : "nan") }')
report probes_per_s "$probes_rate"
report cpu_us_per_probe "$cpu_per_probe"

# --- /metrics latency -------------------------------------------------------------------------
times=$work/scrapes
: >"$times"
for _ in $(seq "$scrapes"); do
  curl -sf --max-time 10 -o "$work/metrics.txt" -w '%{time_total}\n' \
    "http://127.0.0.1:$exp_port/metrics" >>"$times"
done
read -r p50 p99 < <(sort -g "$times" | awk '{ v[NR] = $1 } END {
    i50 = int((NR - 1) * 0.50) + 1; i99 = int((NR - 1) * 0.99) + 1
    printf "%.1f %.1f\n", v[i50] * 1000, v[i99] * 1000 }')
report metrics_p50_ms "$p50"
report metrics_p99_ms "$p99"
report metrics_bytes "$(wc -c <"$work/metrics.txt")"
report waiting_pods "$(grep -c '^podwait_pod_waiting_seconds{' "$work/metrics.txt" || true)"
report scrape_mean_server_ms "$(awk '/^podwait_scrape_duration_seconds_sum/ { s = $2 } /^podwait_scrape_duration_seconds_count/ { n = $2 } END { if (n) printf "%.1f", s * 1000 / n; else print "nan" }' "$work/metrics.txt")"

# --- a waiting pod turned Ready -> gone from the JSON view ------------------------------------
if [ "$shape" = v1 ] && [ "$ready_samples" -gt 0 ]; then
  read -r r50 r99 rmax rn < <(python3 bench/loadrun_probe.py ready-latency "$sim_port" "$exp_port" \
    "$ready_samples" "$clusters")
  report ready_gone_p50_ms "$r50"
  report ready_gone_p99_ms "$r99"
  report ready_gone_max_ms "$rmax"
  report ready_samples "$rn"
fi

# --- a pod starts waiting -> its class uses a fresh PD answer -----------------------------------
if [ "$shape" = v1 ] && [ "$fresh_pd_samples" -gt 0 ]; then
  read -r f50 f99 fmax fn < <(python3 bench/loadrun_probe.py fresh-pd-latency "$sim_port" \
    "$exp_port" "$fresh_pd_samples" "$clusters")
  report fresh_pd_p50_ms "$f50"
  report fresh_pd_p99_ms "$f99"
  report fresh_pd_max_ms "$fmax"
  report fresh_pd_samples "$fn"
fi

# --- memory after the churn -------------------------------------------------------------------
report steady_rss_mib "$(mib "$(status_kib "$exp_pid" VmRSS)")"
report threads "$(status_kib "$exp_pid" Threads)"
report fds "$(find "/proc/$exp_pid/fd" -mindepth 1 -maxdepth 1 | wc -l)"
kube_hex=$(printf '%04X' "$kube_port")
report kube_connections "$(awk -v p=":$kube_hex" 'NR > 1 && $4 == "01" && substr($3, length($3) - 4) == p' \
  "/proc/$exp_pid/net/tcp" | wc -l)"
report peak_rss_end_mib "$(mib "$(status_kib "$exp_pid" VmHWM)")"
report parse_errors "$(metric_sum podwait_parse_errors_total "" 0 <"$work/metrics.txt")"
report watch_restarts "$(metric_sum podwait_watch_restarts_total "" 0 <"$work/metrics.txt")"

if [ -n "$out" ]; then
  printf '%s\n' "${results[@]}" >"$out"
fi
