#!/usr/bin/env python3
"""End-to-end alert test: podwait-sim (tests/scenarios/demo.json, steps run by hand) +
podwait-exporter + Prometheus (1s scrape and evaluation, external label cluster="e2e",
rules/podwait.rules.yml with for:/keep_firing_for: capped, plus test copies of kubernetes-mixin's
generic alerts fed by the simulator's kube-state-metrics series) + Alertmanager (gossip off, with
rules/alertmanager-inhibit.yml) + a webhook receiver.

Asserts, in order (one problem, one page):
 1. PodCapacityShortfall for the shop cluster's capacity-short pod reaches the webhook with the
    pod's identity (namespace, pod, class; cluster="e2e"), its stage and reason in the description
    and a status_page_url for the pod; its generic KubePodNotReady and its StatefulSet's
    KubeStatefulSetReplicasMismatch are in Alertmanager, inhibited by PodCapacityShortfall and
    StatefulSetWaitExplained, and never notified: the capacity problem pages once, with the why.
 2. The generic alerts of the demo pods waiting on PD and of demo-tikv-0, which waits for a node
    a scale-up adds, are in Alertmanager, inhibited by PodWaitingOnDependency /
    PodWaitingForScaleUp of the same pod (StatefulSetWaitExplained of the same StatefulSet), and
    never reach the webhook. TiDBDependencyNotReady points at PD (PD itself down pages); TiKV's is
    inhibited by PD's.
 3. PD becomes ready: TiDBDependencyNotReady{dependency="pd"} resolves.
 4. The rest of the timeline (TiKV up, TiDB ready): PodWaitingOnDependency,
    StatefulSetWaitExplained and TiDBDependencyNotReady of the demo cluster all resolve (resolved
    notifications reach the webhook); the capacity shortfall still fires; no generic alert of an
    explained pod or StatefulSet was ever notified.

Usage: alerts_e2e.py [--build-dir DIR] [--inhibit-file FILE] [--workdir DIR]
       (build dir default: $PODWAIT_BUILD_DIR or build/)
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, StackError, http, wait_for  # noqa: E402

CAPACITY_POD = {"namespace": "shop", "pod": "shop-tikv-2"}
CAPACITY_STATEFULSET = {"namespace": "shop", "statefulset": "shop-tikv"}
# Pods of the demo cluster held in Init by wait-for-pd while PD has no leader.
DEPENDENCY_PODS = ["demo-tidb-%d" % i for i in range(5)] + ["demo-tikv-1", "demo-tikv-2"]
DEPENDENCY_STATEFULSET = "demo-tidb"
# demo-tikv-0 waits for a node a scale-up adds (scale_up, expected), the other TiKV pods on PD.
SCALE_UP_POD = "demo-tikv-0"
MIXED_STATEFULSET = "demo-tikv"
GENERIC = ("KubePodNotReady", "KubeContainerWaiting", "KubeStatefulSetReplicasMismatch")
EXTERNAL_CLUSTER = "e2e"


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def log(t0, message):
    print(f"[{time.monotonic() - t0:6.1f}s] {message}", flush=True)


def explained(labels):
    """Whether a generic alert is about a pod / StatefulSet whose wait podwait explains: waiting on
    PD, waiting for a scale-up, or short of capacity (paged by podwait)."""
    if labels.get("namespace") == "demo":
        return (labels.get("pod") in DEPENDENCY_PODS + [SCALE_UP_POD]
                or labels.get("statefulset") in (DEPENDENCY_STATEFULSET, MIXED_STATEFULSET))
    return (labels.get("namespace") == "shop"
            and (labels.get("pod") == CAPACITY_POD["pod"]
                 or labels.get("statefulset") == CAPACITY_STATEFULSET["statefulset"]))


def leaked(stack):
    """Generic alerts of explained pods, and any page about the pod waiting for a scale-up, that
    reached the webhook (must stay empty)."""
    return [a["labels"] for a in stack.notified_alerts(status="firing")
            if (a["labels"].get("alertname") in GENERIC and explained(a["labels"]))
            or (a["labels"].get("pod") == SCALE_UP_POD and a["labels"].get("severity") != "info")]


def first(stack, what, timeout, status="firing", **labels):
    found = wait_for(lambda: stack.notified_alerts(status=status, **labels), timeout,
                     f"{what} at the webhook")
    return found[0]


def latest_status(stack, **labels):
    """{label set: status of its latest notification} for notified alerts matching `labels`."""
    out = {}
    for alert in stack.notified_alerts(**labels):
        out[tuple(sorted(alert["labels"].items()))] = alert["status"]
    return out


def all_resolved(stack, what, timeout, **labels):
    """Waits until alerts matching `labels` were notified and the latest notification of each is
    "resolved"."""
    def done():
        latest = latest_status(stack, **labels)
        return latest and all(s == "resolved" for s in latest.values())
    wait_for(done, timeout, f"{what}: the last notification of each resolved "
             f"(now {list(latest_status(stack, **labels).values())})")


def am_inhibition(stack):
    """{(alertname, namespace, pod / statefulset / dependency): (inhibited?, [inhibiting alerts'
    labels], labels)}."""
    alerts = stack.am_alerts()
    by_fp = {a["fingerprint"]: a["labels"] for a in alerts}
    out = {}
    for a in alerts:
        lb = a["labels"]
        key = (lb.get("alertname"), lb.get("namespace"),
               lb.get("pod") or lb.get("statefulset") or lb.get("dependency"))
        sources = [by_fp.get(fp, {"fingerprint": fp}) for fp in a["status"].get("inhibitedBy") or []]
        out[key] = (a["status"]["state"] == "suppressed" and bool(sources), sources, lb)
    return out


def exporter_classified(stack):
    status, body = http("GET", stack.exporter_url + "/metrics")
    if status != 200:
        return False
    lines = [l for l in body.splitlines() if l.startswith("podwait_pod_waiting_seconds{")]
    return (any('pod="demo-tidb-0"' in l and 'class="dependency"' in l for l in lines)
            and any('pod="shop-tikv-2"' in l and 'class="capacity"' in l for l in lines))


def run(stack, t0):
    # 1. The true capacity shortfall reaches the webhook, with the pod's labels.
    alert = first(stack, "PodCapacityShortfall of shop/shop-tikv-2", 90,
                  alertname="PodCapacityShortfall", **CAPACITY_POD)
    lb = alert["labels"]
    expected = {"cluster": EXTERNAL_CLUSTER, "tidb_cluster": "shop-shop", "component": "tikv",
                "class": "capacity", "severity": "critical"}
    for k, v in expected.items():
        check(lb.get(k) == v, f"PodCapacityShortfall label {k}={lb.get(k)!r}, want {v!r}: {lb}")
    check("stage" not in lb and "reason" not in lb,
          f"PodCapacityShortfall carries a detail that changes in its identity: {lb}")
    description = alert["annotations"].get("description", "")
    check("shop/shop-tikv-2" in description and "has been unscheduled for" in description
          and "class capacity, reason " in description and "no longer reported" not in description,
          f"description does not name the pod, its stage and its reason: {alert['annotations']}")
    check(alert["annotations"].get("runbook_url")
          == "http://podwait-exporter.podwait.svc:9877/runbook#podcapacityshortfall",
          f"runbook_url: {alert['annotations']}")
    check(alert["annotations"].get("status_page_url")
          == "http://podwait-exporter.podwait.svc:9877/?namespace=shop&pod=shop-tikv-2",
          f"status_page_url: {alert['annotations']}")
    log(t0, f"PodCapacityShortfall reached the webhook: {lb}")

    # 2. Generic alerts of explained pods: present in Alertmanager, inhibited by podwait.
    wanted = [("KubePodNotReady", "demo", p) for p in DEPENDENCY_PODS + [SCALE_UP_POD]]
    wanted += [("KubeContainerWaiting", "demo", p) for p in DEPENDENCY_PODS if p.startswith("demo-tidb")]
    wanted += [("KubeStatefulSetReplicasMismatch", "demo", s) for s in (DEPENDENCY_STATEFULSET, MIXED_STATEFULSET)]
    wanted += [("KubePodNotReady", "shop", CAPACITY_POD["pod"]),
               ("KubeStatefulSetReplicasMismatch", "shop", CAPACITY_STATEFULSET["statefulset"])]
    wanted += [("TiDBDependencyNotReady", "demo", "tikv")]
    box = {}

    def all_inhibited():
        state = am_inhibition(stack)
        box["missing"] = [w for w in wanted if not state.get(w, (False,))[0]]
        box["state"] = state
        return not box["missing"]
    try:
        wait_for(all_inhibited, 60, "the generic alerts of pods waiting on PD to be inhibited", interval=0.5)
    except StackError:
        raise Failure(f"not inhibited (or not present): {box.get('missing')}") from None
    # Which alert must be the inhibiting one, and on which label it must agree.
    pod_source = {SCALE_UP_POD: "PodWaitingForScaleUp", CAPACITY_POD["pod"]: "PodCapacityShortfall"}
    want_source = {"KubeStatefulSetReplicasMismatch": ("StatefulSetWaitExplained", "statefulset", None),
                   "TiDBDependencyNotReady": ("TiDBDependencyNotReady", "tidb_cluster", "pd")}
    for (alertname, ns, obj) in wanted:
        _, sources, target = box["state"][(alertname, ns, obj)]
        check(target.get("cluster") == EXTERNAL_CLUSTER, f"{alertname} {obj} lacks cluster: {target}")
        source, key, dependency = want_source.get(
            alertname, (pod_source.get(obj, "PodWaitingOnDependency"), "pod", None))
        check(any(s.get("alertname") == source and s.get(key) == target.get(key)
                  and s.get("namespace") == ns and s.get("cluster") == EXTERNAL_CLUSTER
                  and (dependency is None or s.get("dependency") == dependency) for s in sources),
              f"{alertname} {ns}/{obj} inhibited by {sources}, want {source} with the same {key}")
    log(t0, f"{len(wanted)} generic alerts of explained pods and StatefulSets (and TiKV's alert) "
            "are inhibited by podwait's alerts")

    dep = first(stack, "TiDBDependencyNotReady for PD", 60, alertname="TiDBDependencyNotReady",
                namespace="demo", dependency="pd")
    check(dep["labels"].get("tidb_cluster") == "demo-demo", f"TiDBDependencyNotReady: {dep['labels']}")
    log(t0, "TiDBDependencyNotReady{dependency=\"pd\"} reached the webhook")

    # Notifications go out 1s after an alert arrives; give a leak time to show.
    time.sleep(3)
    check(not leaked(stack), f"generic alerts of explained pods were notified: {leaked(stack)}")

    # 3. PD becomes ready.
    stack.sim_advance(to="pd-ready")
    log(t0, "simulator: pd-ready")
    first(stack, "TiDBDependencyNotReady{dependency=pd} resolved", 60, status="resolved",
          alertname="TiDBDependencyNotReady", namespace="demo", dependency="pd")
    log(t0, "TiDBDependencyNotReady{dependency=\"pd\"} resolved")

    # 4. TiKV comes up, TiDB becomes ready: every dependency alert resolves.
    stack.sim_advance(to="tidb-ready")
    log(t0, "simulator: tidb-ready (end of the timeline)")
    for pod in DEPENDENCY_PODS:
        all_resolved(stack, f"PodWaitingOnDependency of {pod}", 60,
                     alertname="PodWaitingOnDependency", namespace="demo", pod=pod)
    all_resolved(stack, "StatefulSetWaitExplained of demo-tidb", 60,
                 alertname="StatefulSetWaitExplained", namespace="demo",
                 statefulset=DEPENDENCY_STATEFULSET)
    all_resolved(stack, "TiDBDependencyNotReady of demo-demo", 60,
                 alertname="TiDBDependencyNotReady", namespace="demo")
    dependency_alerts = ("PodWaitingOnDependency", "StatefulSetWaitExplained", "TiDBDependencyNotReady")
    wait_for(lambda: not [a for a in stack.prom_alerts()
                          if a["labels"]["alertname"] in dependency_alerts and a["labels"].get("namespace") == "demo"],
             60, "Prometheus to have no dependency alert of the demo cluster")
    log(t0, "every dependency alert of the demo cluster resolved")

    active = {a["labels"]["alertname"] for a in stack.prom_alerts() if a["state"] == "firing"}
    check("PodCapacityShortfall" in active, f"PodCapacityShortfall no longer fires: {active}")
    check("PodwaitExporterDown" not in active, "PodwaitExporterDown fires while the exporter is up")
    time.sleep(2)
    check(not leaked(stack), f"generic alerts of explained pods were notified: {leaked(stack)}")
    log(t0, "no generic alert of an explained pod or StatefulSet was ever notified")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir")
    p.add_argument("--inhibit-file", default="rules/alertmanager-inhibit.yml",
                   help="inhibit rules for Alertmanager (to see the test fail without them)")
    p.add_argument("--workdir", help="keep configs, data, logs and the webhook log here")
    a = p.parse_args()
    t0 = time.monotonic()
    # PodScaleUpTooSlow keeps its 10m: the demo's scale-up, like most, ends well before it, and
    # "a scale-up in progress pages nobody" is what this test shows.
    stack = Stack(build_dir=a.build_dir, manual=True, keep_for=("PodScaleUpTooSlow",),
                  extra_rule_files=["tests/e2e/generic_alerts.rules.yml"],
                  external_labels={"cluster": EXTERNAL_CLUSTER}, inhibit_file=a.inhibit_file,
                  workdir=a.workdir)
    try:
        # Prometheus starts once the exporter has classified the demo pods, so that the generic
        # alerts' short for: (8s) counts from when podwait's inhibition sources can exist, as the
        # real for: (15m) would.
        stack.start(only=("sim", "exporter"))
        wait_for(lambda: exporter_classified(stack), 60,
                 "the exporter to classify demo-tidb-0 as dependency and shop-tikv-2 as capacity")
        stack.start()
        log(t0, "stack up: " + " ".join(f"{k}={v}" for k, v in sorted(stack.env().items())))
        run(stack, t0)
    except (Failure, StackError) as e:
        stack.failed = True
        print(f"FAIL: {e}", file=sys.stderr)
        print(stack.logs(), file=sys.stderr)
        return 1
    finally:
        stack.stop()
    log(t0, "alerts_e2e: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
