#!/usr/bin/env python3
"""Runs every query of podwait's dashboards against the end-to-end stack on the demo scenario.

    live_e2e.py [--build-dir DIR] [--until STEP] [--timeout S]

Starts the simulator (manual steps), the exporter and Prometheus with the recording rules through
tests/e2e/stack.py, waits until Prometheus has the exporter's series, then walks the demo scenario
one step at a time up to STEP (default tikv-0-ready: TiKV has just become ready, TiDB pods still
wait in Init, and pods have completed stages) with a scrape after every step, so that stage
histograms grow between samples as they do in a real cluster. Before the steps it records a
failover of a TiDB pod that waits on PD and checks that the failover panel counts it. Then every
panel and variable query
of dashboards/*.json, variables set to the demo's values (namespace=demo, tidb_cluster=demo-demo),
must return data (dashboards/tools/check_dashboards.py live), the alert lists' filters (as ALERTS{...})
included; so that the tables of pods that need attention have a row, one more TiDB pod of the demo
cannot pull its image. Every wait is bounded and everything
started is stopped on exit.
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
sys.path.insert(0, os.path.join(ROOT, "dashboards", "tools"))

import check_dashboards  # noqa: E402
from stack import Stack, StackError  # noqa: E402

SCENARIO = "tests/scenarios/demo.json"
DASHBOARDS = ["dashboards/podwait-overview.json", "dashboards/podwait-cluster.json"]
# The demo's TiDB cluster; `cluster` (the Kubernetes cluster) is only an external label in the
# stack, which local queries do not see, so its variable lists no value there and "All" (.*) holds.
VALUES = {"namespace": "demo", "tidb_cluster": "demo-demo", "cluster": ".*"}
ALLOW_EMPTY = {"cluster"}


def steps_until(until):
    with open(os.path.join(ROOT, SCENARIO)) as f:
        names = [s["name"] for s in json.load(f)["steps"]]
    if until not in names:
        raise SystemExit(f"no step {until!r} in {SCENARIO}: {names}")
    return names[: names.index(until) + 1]


def failover_shows_on_panel(stack):
    """The bug the failover panel exists for: tidb-operator records a failover of demo-tidb-0 while
    the pod only waits in Init on PD. The overview's failover panel must count it for tidb."""
    with open(os.path.join(ROOT, SCENARIO)) as f:
        tc = next(o["tidbcluster"] for o in json.load(f)["objects"]
                  if o.get("tidbcluster", {}).get("name") == "demo")
    tc = json.loads(json.dumps(tc))
    tc["tidb"]["failureMembers"] = [{"pod": "demo-tidb-0", "createdAt": "-20s"}]
    stack.sim_apply({"tidbcluster": tc})
    overview = check_dashboards.Dashboard(os.path.join(ROOT, DASHBOARDS[0]))
    query = next(q for q in overview.queries()
                 if q.where == 'panel "Failover during dependency waits" target B')
    expr, _ = check_dashboards.substitute(query.expr, dict(check_dashboards.BUILTIN_VALUES,
                                                           **VALUES))
    stack.wait_query(expr, timeout=30, predicate=lambda r: any(
        x["metric"].get("component") == "tidb" and float(x["value"][1]) == 1 for x in r))


def a_pod_needs_attention(stack):
    """The demo's pods all wait as designed; the tables of pods that need attention must show a
    row, so one more TiDB pod cannot pull its image (made up, the simulator's pod shorthand:
    tests/sim/README.md; kubelet's reason ImagePullBackOff and its message)."""
    stack.sim_apply({"pod": {
        "namespace": "demo", "name": "demo-tidb-5", "stage": "waiting", "created": "-1m",
        "reason": "ImagePullBackOff",
        "containerMessage": 'Back-off pulling image "pingcap/tidb:v8.5.99"'}})
    stack.wait_query('podwait_pod_waiting_seconds{tidb_cluster="demo-demo", pod="demo-tidb-5", '
                     'class="image"}', timeout=30)


def wait_scraped_after(stack, t, timeout=30):
    """Waits until Prometheus holds an exporter sample taken more than 2s after wall time t."""
    stack.wait_query(f"timestamp(podwait_build_info) > {t + 2:.3f}", timeout=timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=os.environ.get("PODWAIT_BUILD_DIR"))
    ap.add_argument("--until", default="tikv-0-ready", help="last scenario step to run")
    ap.add_argument("--timeout", type=float, default=90, help="seconds the queries may take to "
                    "return data once the scenario is there")
    args = ap.parse_args()
    os.chdir(ROOT)
    steps = steps_until(args.until)

    with Stack(build_dir=args.build_dir, scenario=SCENARIO, manual=True,
               components=("sim", "exporter", "prometheus")) as s:
        try:
            s.wait_query('podwait_pd_probe_success{tidb_cluster="demo-demo"}', timeout=90)
            s.wait_query('namespace_tidb_cluster_class:podwait_waiting_pods:sum'
                         '{tidb_cluster="demo-demo"}', timeout=60)
            print("stack: exporter series and recording rules are in Prometheus", flush=True)
            failover_shows_on_panel(s)
            print("ok   failover of demo-tidb-0 during its dependency wait shows on the panel",
                  flush=True)
            a_pod_needs_attention(s)
            print("stack: demo-tidb-5 cannot pull its image (class image)", flush=True)
            for name in steps:
                t = time.time()
                s.sim_advance(to=name)
                wait_scraped_after(s, t)
                print(f"stack: step {name} done and scraped", flush=True)
        except StackError as e:
            s.failed = True
            print(f"FAIL {e}\n{s.logs()}")
            print("0 passed, 1 failed")
            return 1
        dashboards = [check_dashboards.Dashboard(p) for p in DASHBOARDS]
        ok = check_dashboards.live(dashboards, s.prom_url, VALUES, ALLOW_EMPTY, args.timeout,
                                   interval=2)
        if not ok:
            s.failed = True  # keeps the stack's logs and data for a look
            print(s.logs(lines=15))
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
