#!/usr/bin/env python3
"""Measurements of bench/loadrun.sh that need more than curl.

  loadrun_probe.py bare-list SIM_PORT PAGE_SIZE
      A bare client paging the pod list from the simulator as the exporter's reflector does
      (limit=PAGE_SIZE, continue tokens): it reads every page and takes the token from the page's
      leading metadata, parsing nothing else. Prints the seconds it took and the bytes read.

  loadrun_probe.py ready-latency SIM_PORT EXP_PORT SAMPLES CLUSTERS
      Turns SAMPLES waiting TiKV pods of clusters that wait on PD Ready through the simulator
      (/_sim/apply), one at a time, and times each from the simulator's answer to the pod's
      absence from the exporter's /api/v1/pods (polled every 10 ms, 30 s deadline each). Prints
      p50, p99 and max in milliseconds.

  loadrun_probe.py fresh-pd-latency SIM_PORT EXP_PORT SAMPLES CLUSTERS
      In SAMPLES healthy clusters that no pod waits on (probed at the slow cadence: one /health a
      --pd.idle-interval), one at a time, makes PD lose its leader and the TiDB pod tidb-0 start
      waiting on wait-for-pd in the same simulator request, and times from the simulator's answer
      until the exporter's /api/v1/pods shows the pod with reason no_pd_leader: only a PD answer
      fresher than the pod's wait says so (the last one said healthy; nothing but the pod changed
      in the Kubernetes API). Polled every 10 ms, 30 s deadline each. Prints p50, p99 and max in
      milliseconds and the number of samples.
"""
import http.client
import json
import re
import sys
import time
import urllib.parse

TOKEN = re.compile(rb'"continue"\s*:\s*"([^"]*)"')


def get(conn, path):
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    if resp.status != 200:
        raise SystemExit(f"GET {path}: HTTP {resp.status}")
    return body


def bare_list(sim_port, page_size):
    conn = http.client.HTTPConnection("127.0.0.1", sim_port, timeout=60)
    start = time.monotonic()
    token, total = "", 0
    while True:
        path = f"/api/v1/pods?limit={page_size}"
        if token:
            path += "&continue=" + urllib.parse.quote(token, safe="")
        body = get(conn, path)
        total += len(body)
        m = TOKEN.search(body, 0, 4096)
        token = m.group(1).decode() if m else ""
        if not token:
            break
    print(f"{time.monotonic() - start:.3f} {total}")


def waiting_pods(conn, ns):
    doc = json.loads(get(conn, f"/api/v1/pods?namespace={ns}"))
    return [p for p in doc["pods"] if p["component"] == "tikv"]


def ready_latency(sim_port, exp_port, samples, clusters):
    sim = http.client.HTTPConnection("127.0.0.1", sim_port, timeout=30)
    exp = http.client.HTTPConnection("127.0.0.1", exp_port, timeout=30)
    latencies = []
    cluster = 0
    while len(latencies) < samples and cluster < clusters:
        ns, tc = f"load-{cluster:04d}", f"tc-{cluster:04d}"
        cluster += 10  # every tenth cluster waits on PD (podwait-sim --generate-clusters)
        for pod in waiting_pods(exp, ns)[: max(1, samples // 50)]:
            op = {"pod": {"namespace": ns, "name": pod["pod"], "cluster": tc,
                          "component": "tikv", "created": "-30m", "full": True}}
            sim.request("POST", "/_sim/apply", json.dumps(op), {"Content-Type": "application/json"})
            resp = sim.getresponse()
            resp.read()
            if resp.status != 200:
                raise SystemExit(f"/_sim/apply: HTTP {resp.status}")
            start = time.monotonic()
            deadline = start + 30
            while any(p["pod"] == pod["pod"] for p in waiting_pods(exp, ns)):
                if time.monotonic() > deadline:
                    raise SystemExit(f"{ns}/{pod['pod']} still waiting after 30 s")
                time.sleep(0.01)
            latencies.append((time.monotonic() - start) * 1000)
    if not latencies:
        raise SystemExit("no waiting TiKV pod found in the clusters that wait on PD")
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int((len(latencies) - 1) * q + 0.5))]
    print(f"{pick(0.5):.0f} {pick(0.99):.0f} {latencies[-1]:.0f} {len(latencies)}")


def post(conn, path, body):
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    resp.read()
    if resp.status != 200:
        raise SystemExit(f"POST {path}: HTTP {resp.status}")


def fresh_pd_latency(sim_port, exp_port, samples, clusters):
    sim = http.client.HTTPConnection("127.0.0.1", sim_port, timeout=30)
    exp = http.client.HTTPConnection("127.0.0.1", exp_port, timeout=30)
    latencies = []
    # Patterns 3-9 of the generated clusters are healthy (podwait-sim --generate-clusters).
    for cluster in [c for c in range(clusters) if c % 10 >= 3][:samples]:
        ns, tc = f"load-{cluster:04d}", f"tc-{cluster:04d}"
        pod = f"{tc}-tidb-0"
        post(sim, "/_sim/apply", [
            {"pd": {"namespace": ns, "cluster": tc, "state": "no_leader"}},
            {"pod": {"namespace": ns, "name": pod, "cluster": tc, "component": "tidb",
                     "stage": "init", "waitForPd": True, "full": True}}])
        start = time.monotonic()
        deadline = start + 30
        while True:
            doc = json.loads(get(exp, f"/api/v1/pods?namespace={ns}"))
            if any(p["pod"] == pod and p["reason"] == "no_pd_leader" for p in doc["pods"]):
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"{ns}/{pod} not no_pd_leader after 30 s: {doc['pods']}")
            time.sleep(0.01)
        latencies.append((time.monotonic() - start) * 1000)
    if not latencies:
        raise SystemExit("no healthy cluster")
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int((len(latencies) - 1) * q + 0.5))]
    print(f"{pick(0.5):.0f} {pick(0.99):.0f} {latencies[-1]:.0f} {len(latencies)}")


if __name__ == "__main__":
    if sys.argv[1] == "bare-list":
        bare_list(int(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1] == "ready-latency":
        ready_latency(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1] == "fresh-pd-latency":
        fresh_pd_latency(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        raise SystemExit(__doc__)
