#!/usr/bin/env python3
"""Proves rules/alertmanager-inhibit.yml against a real Alertmanager (gossip off, loopback).

Posts podwait's inhibition sources and kubernetes-mixin-named targets, with and without the
Kubernetes `cluster` label, and checks through Alertmanager's API which targets are inhibited:
exactly the same pod / StatefulSet / TiDB cluster, and the same `cluster` — or none on both sides.
Then resolves a source and checks that its targets become active again.

Alert labels are made up; they follow what rules/podwait.rules.yml and kubernetes-mixin's
KubePodNotReady / KubeContainerWaiting / KubePodCrashLooping / KubeStatefulSetReplicasMismatch alerts
carry: every per-pod podwait alert (an expected wait's info source, or a page with the why)
silences the generic per-pod alerts of its pod.

Usage: inhibit_check.py [--inhibit-file FILE]   (exit 0 when every expectation holds)
"""

import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, StackError, wait_for  # noqa: E402


def ts(delta_s=0.0):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=delta_s)
    return t.isoformat().replace("+00:00", "Z")


def alert(labels, ends_in=600):
    return {"labels": labels, "annotations": {"summary": "inhibit_check"}, "startsAt": ts(-60),
            "endsAt": ts(ends_in), "generatorURL": "http://127.0.0.1/inhibit_check"}


def pod_source(pod, namespace="demo", alertname="PodWaitingOnDependency", severity="info",
               klass="dependency", tidb_cluster="demo-demo", **extra):
    """A per-pod podwait alert: its identity is the pod and its class (stage and reason are in the
    description, not in the labels)."""
    return dict(alertname=alertname, severity=severity, namespace=namespace,
                tidb_cluster=tidb_cluster, component=pod.split("-")[1], pod=pod,
                **{"class": klass}, **extra)


def sts_source(statefulset, namespace="demo", **extra):
    return dict(alertname="StatefulSetWaitExplained", severity="info", namespace=namespace,
                tidb_cluster="demo-demo", component=statefulset.split("-")[1],
                statefulset=statefulset, **extra)


def dep(dependency, namespace="demo", tidb_cluster="demo-demo", **extra):
    return dict(alertname="TiDBDependencyNotReady", severity="critical", namespace=namespace,
                tidb_cluster=tidb_cluster, dependency=dependency, **extra)


def generic(alertname, namespace, **extra):
    return dict(alertname=alertname, severity="warning", namespace=namespace,
                job="kube-state-metrics", **extra)


# (name, labels, expected inhibited?)
SOURCES = [
    ("pod source, no cluster label", pod_source("demo-tidb-0"), False),
    ("pod source in eu-1", pod_source("demo-tidb-1", cluster="eu-1"), False),
    ("StatefulSet source, no cluster label", sts_source("demo-tidb"), False),
    ("StatefulSet source in eu-1", sts_source("demo-tikv", cluster="eu-1"), False),
    ("PD not ready", dep("pd"), False),
    ("v2 TiKV pod source in eu-1",
     pod_source("tikv-tikv-q7w4mz", namespace="tidb-v2", cluster="eu-1"), False),
    # The pages with the why: the same pod's generic alerts say it again without it.
    ("capacity page", pod_source("basic-tikv-3", namespace="shop", alertname="PodCapacityShortfall",
                                 severity="critical", klass="capacity", tidb_cluster="shop-basic"), False),
    ("scale-up in progress", pod_source("demo-tikv-0", alertname="PodWaitingForScaleUp",
                                        klass="scale_up"), False),
    ("volume page", pod_source("demo-tikv-4", alertname="PodVolumeOrSandboxStuck",
                               severity="warning", klass="volume"), False),
]
TARGETS = [
    ("KubePodNotReady, same pod, no cluster label",
     generic("KubePodNotReady", "demo", pod="demo-tidb-0"), True),
    ("KubeContainerWaiting, same pod, no cluster label",
     generic("KubeContainerWaiting", "demo", pod="demo-tidb-0", container="wait-for-pd",
             reason="PodInitializing"), True),
    ("KubePodNotReady, same pod, same cluster eu-1",
     generic("KubePodNotReady", "demo", pod="demo-tidb-1", cluster="eu-1"), True),
    ("KubePodNotReady, same pod name in another Kubernetes cluster (us-1)",
     generic("KubePodNotReady", "demo", pod="demo-tidb-1", cluster="us-1"), False),
    ("KubePodNotReady with cluster label vs source without",
     generic("KubePodNotReady", "demo", pod="demo-tidb-0", cluster="eu-1"), False),
    ("KubePodNotReady, same pod name in another namespace",
     generic("KubePodNotReady", "shop", pod="demo-tidb-0"), False),
    ("KubePodNotReady of a capacity-short pod (PodCapacityShortfall pages for it)",
     generic("KubePodNotReady", "shop", pod="basic-tikv-3"), True),
    ("PodScaleUpTooSlow of the same capacity-short pod (the capacity page replaces it)",
     pod_source("basic-tikv-3", namespace="shop", alertname="PodScaleUpTooSlow", severity="warning",
                klass="scale_up", tidb_cluster="shop-basic"), True),
    ("KubePodNotReady of a pod waiting for a node being added",
     generic("KubePodNotReady", "demo", pod="demo-tikv-0"), True),
    ("KubeContainerWaiting of a pod whose volume cannot be mounted",
     generic("KubeContainerWaiting", "demo", pod="demo-tikv-4", container="tikv",
             reason="ContainerCreating"), True),
    ("KubePodNotReady of a pod podwait does not page for (an image it cannot pull)",
     generic("KubePodNotReady", "demo", pod="demo-tiflash-0"), False),
    # A main container that exits while PD is down (tidb-operator v2 creates every pod at once;
    # a v1 TiKV whose PD went away) crash-loops as a symptom: silenced while the pod waits.
    ("KubePodCrashLooping of a pod waiting on a dependency, no cluster label",
     generic("KubePodCrashLooping", "demo", pod="demo-tidb-0", container="tidb"), True),
    ("KubePodCrashLooping of a v2 TiKV pod waiting on PD, same cluster eu-1",
     generic("KubePodCrashLooping", "tidb-v2", pod="tikv-tikv-q7w4mz", container="tikv",
             cluster="eu-1"), True),
    ("KubePodCrashLooping, same v2 pod name in another Kubernetes cluster (us-1)",
     generic("KubePodCrashLooping", "tidb-v2", pod="tikv-tikv-q7w4mz", container="tikv",
             cluster="us-1"), False),
    ("KubePodCrashLooping of a pod that does not wait (a real crash loop)",
     generic("KubePodCrashLooping", "tidb-v2", pod="tidb-tidb-h2k9sd", container="tidb",
             cluster="eu-1"), False),
    ("KubeStatefulSetReplicasMismatch, same StatefulSet, no cluster label",
     generic("KubeStatefulSetReplicasMismatch", "demo", statefulset="demo-tidb"), True),
    ("KubeStatefulSetReplicasMismatch, same StatefulSet, same cluster eu-1",
     generic("KubeStatefulSetReplicasMismatch", "demo", statefulset="demo-tikv", cluster="eu-1"), True),
    ("KubeStatefulSetReplicasMismatch, same name in another Kubernetes cluster (us-1)",
     generic("KubeStatefulSetReplicasMismatch", "demo", statefulset="demo-tikv", cluster="us-1"), False),
    ("KubeStatefulSetReplicasMismatch of a StatefulSet without source",
     generic("KubeStatefulSetReplicasMismatch", "demo", statefulset="demo-pd"), False),
    ("TiKV not ready while PD is not ready, same TiDB cluster", dep("tikv"), True),
    ("TiKV not ready in another TiDB cluster", dep("tikv", namespace="shop", tidb_cluster="shop-basic"), False),
]


def fingerprint_key(labels):
    return tuple(sorted(labels.items()))


def check_states(stack, cases):
    """Returns the list of mismatches between expected and actual inhibition."""
    by_labels = {fingerprint_key(a["labels"]): a for a in stack.am_alerts()}
    problems = []
    for name, labels, inhibited in cases:
        got = by_labels.get(fingerprint_key(labels))
        if got is None:
            problems.append(f"{name}: not in Alertmanager")
            continue
        is_inhibited = bool(got["status"].get("inhibitedBy"))
        if is_inhibited != inhibited:
            problems.append(f"{name}: expected {'inhibited' if inhibited else 'active'}, got "
                            f"state={got['status']['state']} inhibitedBy={got['status'].get('inhibitedBy')}")
    return problems


def expect(stack, cases, what, timeout=20):
    box = {}

    def ok():
        box["p"] = check_states(stack, cases)
        return not box["p"]
    try:
        wait_for(ok, timeout, what, interval=0.5)
    except StackError:
        raise StackError(f"{what}:\n  " + "\n  ".join(box.get("p", ["no answer"]))) from None
    print(f"ok: {what} ({len(cases)} alerts)")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--inhibit-file", default="rules/alertmanager-inhibit.yml")
    a = p.parse_args()
    with Stack(components=("alertmanager",), inhibit_file=a.inhibit_file) as stack:
        try:
            stack.am_post([alert(labels) for _, labels, _ in SOURCES + TARGETS])
            expect(stack, SOURCES + TARGETS, "inhibitions while the sources are active")

            # The pod waiting on PD becomes ready: its source resolves, its generic alerts return.
            resolved = pod_source("demo-tidb-0")
            stack.am_post([alert(resolved, ends_in=-1)])
            after = [(n, l, False if l.get("pod") == "demo-tidb-0" and l.get("namespace") == "demo" else i)
                     for n, l, i in TARGETS]
            expect(stack, after, "generic alerts of demo-tidb-0 active again once its source resolved")
        except StackError as e:
            stack.failed = True
            print(f"FAIL: {e}\n{stack.logs()}", file=sys.stderr)
            return 1
    print("inhibit_check: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
