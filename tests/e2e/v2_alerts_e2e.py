#!/usr/bin/env python3
"""End-to-end test of tidb-operator v2's planned waits and of the operator's own alert:
podwait-sim (tests/scenarios/v2-planned.json, steps run by hand) + podwait-exporter + Prometheus
(1s scrape and evaluation, external label cluster="e2e", rules/podwait.rules.yml with for: capped,
test copies of kubernetes-mixin's pod alerts, and a stand-in tidb-operator target serving
tidb_operator_abnormal_instance as pkg/metrics/metrics.go of tidb-operator v2 writes it: labels
namespace, cluster (the TiDB cluster's name), component, group, instance, condition; scraped with
honor_labels false, so `instance` arrives as exported_instance) + Alertmanager with
rules/alertmanager-inhibit.yml + a webhook receiver.

Asserts, in order:
 1. The cluster is paused and a TiKV pod crash-loops meanwhile: podwait says planned/cluster_paused,
    PodWaitingAsPlanned fires, and kubernetes-mixin's KubeContainerWaiting and KubePodCrashLooping
    of that pod are in Alertmanager, inhibited by it, and never notified.
 2. The operator says both that TiKV and the TiDB (whose pod is Ready: podwait has nothing to say)
    are Ready=False: TiDBOperatorInstanceAbnormal reaches the webhook for the TiDB only, with
    cluster="e2e" (the external label, not the TiDB cluster's name "basic") and
    tidb_cluster="tidb-v2-basic"; the TiKV's stays quiet while podwait says planned.
 3. The cluster is resumed: the crash loop is the pod's own (crashloop), PodWaitingAsPlanned
    resolves, TiDBOperatorInstanceAbnormal for the TiKV reaches the webhook, and so does
    KubePodCrashLooping of its pod.

Usage: v2_alerts_e2e.py [--build-dir DIR] [--workdir DIR]
"""

import argparse
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, StackError, http, wait_for  # noqa: E402

EXTERNAL_CLUSTER = "e2e"
NS = "tidb-v2"
TIKV_POD = "tikv-tikv-q7w4mz"
TIKV_INSTANCE = "tikv-q7w4mz"
TIDB_INSTANCE = "tidb-h2k9sd"
GENERIC = ("KubePodNotReady", "KubeContainerWaiting", "KubePodCrashLooping")


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def log(t0, message):
    print(f"[{time.monotonic() - t0:6.1f}s] {message}", flush=True)


class Operator:
    """A stand-in for tidb-operator's /metrics: tidb_operator_abnormal_instance per instance and
    condition, 1 while the condition is False (pkg/metrics/abnormal_instance.go)."""

    def __init__(self):
        self.abnormal = {}  # (component, group, instance, condition) -> 0/1
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                with outer.lock:
                    lines = ["# HELP tidb_operator_abnormal_instance 1 when the named condition on "
                             "the instance is False, 0 otherwise.",
                             "# TYPE tidb_operator_abnormal_instance gauge"]
                    for (component, group, instance, condition), v in sorted(outer.abnormal.items()):
                        lines.append(
                            'tidb_operator_abnormal_instance{namespace="%s",cluster="basic",'
                            'component="%s",group="%s",instance="%s",condition="%s"} %d'
                            % (NS, component, group, instance, condition, v))
                body = ("\n".join(lines) + "\n").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def target(self):
        return "127.0.0.1:%d" % self.server.server_address[1]

    def set(self, component, group, instance, ready):
        with self.lock:
            self.abnormal[(component, group, instance, "Ready")] = 0 if ready else 1
            self.abnormal[(component, group, instance, "Synced")] = 0

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def exporter_has(stack, *needles):
    status, body = http("GET", stack.exporter_url + "/metrics")
    if status != 200:
        return False
    lines = [l for l in body.splitlines() if l.startswith("podwait_pod_waiting_seconds{")]
    return any(all(n in l for n in needles) for l in lines)


def notified(stack, **labels):
    return stack.notified_alerts(status="firing", **labels)


def leaked(stack):
    """Generic alerts of the planned pod that reached the webhook before the resume."""
    return [a["labels"] for a in notified(stack, namespace=NS, pod=TIKV_POD)
            if a["labels"].get("alertname") in GENERIC]


def run(stack, operator, t0):
    # 1. Paused, a TiKV crash-loops: planned; the generic pod alerts are inhibited.
    stack.sim_advance(to="pause")
    operator.set("tikv", "tikv", TIKV_INSTANCE, ready=False)
    operator.set("tidb", "tidb", TIDB_INSTANCE, ready=False)
    wait_for(lambda: exporter_has(stack, f'pod="{TIKV_POD}"', 'class="planned"',
                                  'reason="cluster_paused"', f'v2_instance="{TIKV_INSTANCE}"'),
             60, "the exporter to classify the TiKV pod planned/cluster_paused")
    log(t0, "paused: the crash-looping TiKV pod is planned/cluster_paused")
    box = {}

    def inhibited():
        alerts = stack.am_alerts(namespace=NS, pod=TIKV_POD)
        by_fp = {a["fingerprint"]: a["labels"] for a in stack.am_alerts()}
        box["state"] = {}
        for a in alerts:
            name = a["labels"].get("alertname")
            sources = [by_fp.get(fp, {}) for fp in a["status"].get("inhibitedBy") or []]
            box["state"][name] = (a["status"]["state"], sources)
        return all(box["state"].get(n, ("",))[0] == "suppressed"
                   for n in ("KubeContainerWaiting", "KubePodCrashLooping"))
    try:
        wait_for(inhibited, 60, "KubeContainerWaiting and KubePodCrashLooping of the planned pod "
                 "to be inhibited", interval=0.5)
    except StackError:
        raise Failure(f"not inhibited: {box.get('state')}") from None
    for name in ("KubeContainerWaiting", "KubePodCrashLooping"):
        _, sources = box["state"][name]
        check(any(s.get("alertname") == "PodWaitingAsPlanned" and s.get("pod") == TIKV_POD
                  and s.get("cluster") == EXTERNAL_CLUSTER for s in sources),
              f"{name} inhibited by {sources}, want PodWaitingAsPlanned of {TIKV_POD}")
    log(t0, "KubeContainerWaiting and KubePodCrashLooping of the planned pod are inhibited by "
            "PodWaitingAsPlanned")

    # 2. The operator's alert: the TiDB (pod Ready) reaches the webhook, the planned TiKV not.
    alert = wait_for(lambda: notified(stack, alertname="TiDBOperatorInstanceAbnormal",
                                      v2_instance=TIDB_INSTANCE), 60,
                     "TiDBOperatorInstanceAbnormal of the TiDB at the webhook")[0]
    lb = alert["labels"]
    expected = {"cluster": EXTERNAL_CLUSTER, "namespace": NS, "tidb_cluster": "tidb-v2-basic",
                "component": "tidb", "group": "tidb", "severity": "warning"}
    for k, v in expected.items():
        check(lb.get(k) == v, f"TiDBOperatorInstanceAbnormal label {k}={lb.get(k)!r}, want {v!r}: {lb}")
    # One alert per instance: which condition is False is in the description, not the identity.
    check("condition" not in lb and "Ready=False" in alert["annotations"].get("description", ""),
          f"TiDBOperatorInstanceAbnormal: condition in the labels or not in the description: {alert}")
    log(t0, f"TiDBOperatorInstanceAbnormal of the TiDB reached the webhook: {lb}")
    time.sleep(3)  # the TiKV's would have fired by now (for: capped at 2s)
    check(not notified(stack, alertname="TiDBOperatorInstanceAbnormal", v2_instance=TIKV_INSTANCE),
          "TiDBOperatorInstanceAbnormal of the planned TiKV was notified")
    check(not [a for a in stack.prom_alerts()
               if a["labels"].get("alertname") == "TiDBOperatorInstanceAbnormal"
               and a["labels"].get("v2_instance") == TIKV_INSTANCE],
          "TiDBOperatorInstanceAbnormal of the planned TiKV is active in Prometheus")
    check(not leaked(stack), f"generic alerts of the planned pod were notified: {leaked(stack)}")
    log(t0, "the planned TiKV raised no operator alert and no generic alert")

    # 3. Resumed: the crash loop is the pod's own.
    stack.sim_advance(to="resume")
    wait_for(lambda: exporter_has(stack, f'pod="{TIKV_POD}"', 'class="crashloop"'), 60,
             "the exporter to classify the TiKV pod crashloop")
    log(t0, "resumed: the TiKV pod is crashloop")
    wait_for(lambda: notified(stack, alertname="TiDBOperatorInstanceAbnormal",
                              v2_instance=TIKV_INSTANCE), 60,
             "TiDBOperatorInstanceAbnormal of the TiKV at the webhook")
    wait_for(lambda: notified(stack, alertname="KubePodCrashLooping", namespace=NS, pod=TIKV_POD),
             60, "KubePodCrashLooping of the TiKV pod at the webhook")
    wait_for(lambda: stack.notified_alerts(status="resolved", alertname="PodWaitingAsPlanned",
                                           pod=TIKV_POD), 60, "PodWaitingAsPlanned resolved")
    log(t0, "the operator's alert and KubePodCrashLooping of the TiKV reached the webhook; "
            "PodWaitingAsPlanned resolved")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir")
    p.add_argument("--workdir", help="keep configs, data, logs and the webhook log here")
    a = p.parse_args()
    t0 = time.monotonic()
    operator = Operator()
    stack = Stack(build_dir=a.build_dir, scenario="tests/scenarios/v2-planned.json", manual=True,
                  extra_rule_files=["tests/e2e/generic_alerts.rules.yml",
                                    "tests/e2e/generic_pod_alerts_v2.rules.yml"],
                  external_labels={"cluster": EXTERNAL_CLUSTER}, workdir=a.workdir,
                  extra_scrape_configs=[{"job_name": "tidb-operator",
                                         "static_configs": [{"targets": [operator.target]}]}])
    try:
        stack.start()
        log(t0, "stack up: " + " ".join(f"{k}={v}" for k, v in sorted(stack.env().items())))
        run(stack, operator, t0)
    except (Failure, StackError) as e:
        stack.failed = True
        print(f"FAIL: {e}", file=sys.stderr)
        print(stack.logs(), file=sys.stderr)
        return 1
    finally:
        stack.stop()
        operator.stop()
    log(t0, "v2_alerts_e2e: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
