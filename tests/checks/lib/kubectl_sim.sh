#!/usr/bin/env bash
# Shared by the checks that point the real kubectl at the simulator (kubectl_sim_test.sh,
# kubectl_podwait_test.sh). Source it from the source root after setting $sim (the simulator
# binary) and $tmp (the check's temporary directory).

# start_sim SCENARIO [FLAG...]: the simulator on a free loopback port, stepped by hand, with
# the simulator flags given. Sets sim_pid (the caller's cleanup stops it), port and base (its URL).
start_sim() {
  rm -f "$tmp/port"
  "$sim" --listen 127.0.0.1:0 --port-file "$tmp/port" --manual \
    --scenario "$1" "${@:2}" >"$tmp/sim.out" 2>"$tmp/sim.err" &
  sim_pid=$!
  for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
  [ -s "$tmp/port" ] || { echo "FAIL the simulator did not start:"; cat "$tmp/sim.err"; exit 1; }
  port=$(cat "$tmp/port")
  base=http://127.0.0.1:$port
}

# write_kubeconfig FILE [NAMESPACE]: a kubeconfig whose one context is the simulator at $base,
# with NAMESPACE as the context's default namespace when given.
write_kubeconfig() {
  {
    printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: %s\n' "$base"
    printf 'contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: sim\n'
    [ -z "${2:-}" ] || printf '    namespace: %s\n' "$2"
    printf 'current-context: sim\nusers:\n- name: sim\n  user: {}\n'
  } >"$1"
}
