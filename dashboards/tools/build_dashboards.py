#!/usr/bin/env python3
"""Writes podwait's Grafana dashboards (classic JSON model) from one description.

    python3 dashboards/tools/build_dashboards.py          # rewrite dashboards/*.json
    python3 dashboards/tools/build_dashboards.py --check  # fail when the files are out of date

The JSON files are committed; this script keeps the two dashboards consistent (one datasource
variable, one colour per class, the same table of waiting pods) and is the place to edit them.
Only the Python 3 standard library is used.
"""

import argparse
import json
import pathlib
import sys

DASHBOARD_DIR = pathlib.Path(__file__).resolve().parent.parent
DS = {"type": "prometheus", "uid": "${datasource}"}
OVERVIEW_UID = "podwait-overview"
CLUSTER_UID = "podwait-cluster"

# docs/DESIGN.md §4: expected waits are calm (blue, green, grey); shortfalls are loud (red, orange).
# Which classes are expected comes from the contract (docs/contract.json).
CONTRACT = json.loads((DASHBOARD_DIR.parent / "docs" / "contract.json").read_text(encoding="utf-8"))
EXPECTED_CLASSES = [c["name"] for c in CONTRACT["classes"] if c["expected"]]
CLASS_COLORS = {
    "dependency": "blue",
    "scale_up": "green",
    "scheduling": "light-blue",
    "starting": "light-green",
    "gated": "#8F8F8F",
    "capacity": "red",
    "constraints": "dark-red",
    "dependency_stuck": "orange",
    "image": "dark-orange",
    "crashloop": "semi-dark-red",
    "config": "light-red",
    "not_ready": "light-orange",
}
EXPECTED_RE = "|".join(EXPECTED_CLASSES)
STORE_COLORS = {
    "Up": "green",
    "Disconnected": "orange",
    "Down": "red",
    "Offline": "yellow",
    "Tombstone": "#8F8F8F",
}

# Recording rules (rules/podwait.rules.yml).
R_PODS = "namespace_tidb_cluster_class:podwait_waiting_pods:sum"
R_OLDEST = "namespace_tidb_cluster_class:podwait_waiting_oldest_seconds:max"
R_STAGE = "component_stage_class_le:podwait_stage_duration_seconds_bucket:rate5m"

# `cluster` is the Kubernetes cluster (an external label in multi-cluster setups; podwait never
# emits it). Its "All" is ".*" so that series without the label match too.
SEL_K8S = 'cluster=~"$cluster"'
SEL_MULTI = SEL_K8S + ', namespace=~"$namespace", tidb_cluster=~"$tidb_cluster"'
SEL_ONE = SEL_K8S + ', tidb_cluster="$tidb_cluster"'



def cluster_link(value):
    """URL of the drill-down for the TiDB cluster named by the Grafana expression value."""
    return (f"/d/{CLUSTER_UID}/podwait-cluster?${{datasource:queryparam}}&${{cluster:queryparam}}"
            f"&var-tidb_cluster={value}&${{__url_time_range}}")


# ---------------------------------------------------------------------------------------------
# Building blocks


def target(expr, legend="", ref="A", instant=False, fmt="time_series"):
    t = {
        "datasource": DS,
        "editorMode": "code",
        "expr": expr,
        "legendFormat": legend or "__auto",
        "range": not instant,
        "instant": instant,
        "refId": ref,
    }
    if fmt != "time_series":
        t["format"] = fmt
    return t


def targets(*specs):
    """specs: (expr, legend) pairs; refIds A, B, C, ..."""
    return [target(e, l, ref=chr(ord("A") + i)) for i, (e, l) in enumerate(specs)]


def color_override(name, color, matcher="byName"):
    return {
        "matcher": {"id": matcher, "options": name},
        "properties": [{"id": "color", "value": {"mode": "fixed", "fixedColor": color}}],
    }


def class_overrides(pattern="{cls}", matcher="byName"):
    return [color_override(pattern.format(cls=c), col, matcher) for c, col in CLASS_COLORS.items()]


def bool_mapping(yes, no):
    return [
        {
            "type": "value",
            "options": {
                "1": {"text": yes, "color": "green", "index": 0},
                "0": {"text": no, "color": "red", "index": 1},
            },
        }
    ]


def thresholds(*steps):
    """steps: ("green", None), ("red", 1), ..."""
    return {"mode": "absolute", "steps": [{"color": c, "value": v} for c, v in steps]}


def panel(kind, title, description, unit, tgts, w, h, **extra):
    p = {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DS,
        "gridPos": {"w": w, "h": h},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {},
        "targets": tgts,
    }
    p["fieldConfig"]["defaults"].update(extra.pop("defaults", {}))
    p["fieldConfig"]["overrides"] = extra.pop("overrides", [])
    p.update(extra)
    return p


def timeseries(title, description, unit, tgts, w=12, h=8, stacked=False, overrides=None,
               links=None, legend_table=False):
    custom = {
        "drawStyle": "line",
        "lineWidth": 1,
        "fillOpacity": 60 if stacked else 10,
        "showPoints": "never",
        "spanNulls": False,
        "stacking": {"mode": "normal" if stacked else "none", "group": "A"},
    }
    defaults = {"custom": custom, "color": {"mode": "palette-classic"}, "min": 0}
    if links:
        defaults["links"] = links
    options = {
        "legend": {
            "displayMode": "table" if legend_table else "list",
            "placement": "right" if legend_table else "bottom",
            "showLegend": True,
            "calcs": ["lastNotNull", "max"] if legend_table else [],
        },
        "tooltip": {"mode": "multi", "sort": "desc"},
    }
    return panel("timeseries", title, description, unit, tgts, w, h, defaults=defaults,
                 overrides=overrides or [], options=options)


def stat(title, description, unit, tgts, w=4, h=4, steps=None, mappings=None, no_value=None):
    defaults = {
        "color": {"mode": "thresholds"},
        "thresholds": thresholds(*(steps or [("green", None)])),
        "mappings": mappings or [],
    }
    if no_value is not None:
        defaults["noValue"] = no_value
    options = {
        "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
        "colorMode": "background",
        "graphMode": "none",
        "justifyMode": "auto",
        "orientation": "auto",
        "textMode": "auto",
    }
    return panel("stat", title, description, unit, tgts, w, h, defaults=defaults, options=options)


def state_timeline(title, description, tgts, yes, no, w=24, h=7, links=None):
    defaults = {
        "color": {"mode": "thresholds"},
        "thresholds": thresholds(("red", None), ("green", 1)),
        "mappings": bool_mapping(yes, no),
        "custom": {"fillOpacity": 80, "lineWidth": 0},
    }
    if links:
        defaults["links"] = links
    options = {
        "mergeValues": True,
        "showValue": "auto",
        "alignValue": "left",
        "rowHeight": 0.9,
        "legend": {"displayMode": "list", "placement": "bottom", "showLegend": False},
        "tooltip": {"mode": "single", "sort": "none"},
    }
    return panel("state-timeline", title, description, "none", tgts, w, h, defaults=defaults,
                 options=options)


def row(title):
    return {"type": "row", "title": title, "collapsed": False, "panels": [],
            "gridPos": {"w": 24, "h": 1}}


def during_wait(selector):
    """Failover members recorded during a dependency wait; the exporter emits the series only
    for components with failover members, so the others read as 0 (not as no data)."""
    return (f"podwait_failover_during_dependency_wait{{{selector}}} "
            f"or (podwait_failover_members{{{selector}}} * 0)")


def waiting_table(selector, w=24, h=10):
    """The table of waiting pods: one row per podwait_pod_waiting_seconds series."""
    t = target(f"podwait_pod_waiting_seconds{{{selector}}}", "", instant=True, fmt="table")
    class_mapping = [
        {
            "type": "value",
            "options": {c: {"color": col, "index": i} for i, (c, col) in
                        enumerate(CLASS_COLORS.items())},
        }
    ]
    overrides = [
        {
            "matcher": {"id": "byName", "options": "class"},
            "properties": [
                {"id": "mappings", "value": class_mapping},
                {"id": "custom.cellOptions", "value": {"type": "color-background"}},
            ],
        },
        {
            "matcher": {"id": "byName", "options": "tidb_cluster"},
            "properties": [
                {
                    "id": "links",
                    "value": [
                        {
                            "title": "Open the TiDB cluster drill-down",
                            "url": cluster_link("${__data.fields.tidb_cluster}"),
                        }
                    ],
                }
            ],
        },
        {
            "matcher": {"id": "byName", "options": "waiting for"},
            "properties": [
                {"id": "custom.cellOptions", "value": {"type": "color-text"}},
                {"id": "color", "value": {"mode": "thresholds"}},
                {"id": "thresholds",
                 "value": thresholds(("text", None), ("orange", 900), ("red", 3600))},
            ],
        },
    ]
    hidden = ["Time", "__name__", "job", "instance", "endpoint", "service", "prometheus"]
    columns = ["namespace", "tidb_cluster", "pod", "component", "stage", "class", "reason",
               "Value"]
    organize = {
        "id": "organize",
        "options": {
            "excludeByName": {name: True for name in hidden},
            "indexByName": {name: i for i, name in enumerate(columns)},
            "renameByName": {"Value": "waiting for"},
        },
    }
    p = panel(
        "table",
        "Waiting pods",
        "Every pod that is not Ready, from podwait_pod_waiting_seconds: its stage (unscheduled, "
        "initializing, starting), class (why it waits) and normalized reason, and how long it "
        "has been in its current stage. Sorted longest first; the class cell is coloured like "
        "the class graphs. Click a TiDB cluster to open its drill-down.",
        "s",
        [t],
        w,
        h,
        defaults={"custom": {"align": "auto", "cellOptions": {"type": "auto"}, "filterable": True},
                  "color": {"mode": "fixed", "fixedColor": "text"}},
        overrides=overrides,
        options={"showHeader": True, "sortBy": [{"displayName": "waiting for", "desc": True}],
                 "footer": {"show": False, "reducer": ["sum"], "fields": ""}},
        transformations=[organize],
    )
    return p


def stage_quantiles(stage, title, what, w=8):
    def expr(q):
        return (f"histogram_quantile({q}, sum by (class, le) "
                f'({R_STAGE}{{{SEL_K8S}, stage="{stage}"}}))')

    return timeseries(
        title,
        f"{what}, completed in the last 5 minutes, as p50 and p90 per class (from "
        f"podwait_stage_duration_seconds, stage=\"{stage}\", via the recording rule {R_STAGE}). "
        "Compare scale_up (an autoscaler added a node) with capacity or scheduling (nothing "
        "had to be added): the gap is what provisioning costs. Gaps mean no pod left the stage.",
        "s",
        targets((expr("0.5"), "p50 {{class}}"), (expr("0.9"), "p90 {{class}}")),
        w=w,
        overrides=class_overrides("p.. {cls}", "byRegexp") + [
            {
                "matcher": {"id": "byRegexp", "options": "p50 .*"},
                "properties": [{"id": "custom.lineStyle",
                                "value": {"fill": "dash", "dash": [10, 10]}}],
            }
        ],
    )


def variables(tidb_multi):
    ds = {
        "name": "datasource",
        "label": "Data source",
        "type": "datasource",
        "query": "prometheus",
        "current": {},
        "hide": 0,
        "includeAll": False,
        "multi": False,
        "options": [],
        "refresh": 1,
        "regex": "",
        "skipUrlSync": False,
    }

    def query_var(name, label, query, multi, all_value=".+"):
        v = {
            "name": name,
            "label": label,
            "type": "query",
            "datasource": DS,
            "definition": query,
            "query": query,
            "current": {},
            "hide": 0,
            "includeAll": multi,
            "multi": multi,
            "options": [],
            "refresh": 2,
            "regex": "",
            "skipUrlSync": False,
            "sort": 1,
        }
        if multi:
            v["allValue"] = all_value
        return v

    # The Kubernetes cluster: empty in a single-cluster Prometheus, where "All" (.*) is right.
    k8s = query_var("cluster", "Kubernetes cluster", "label_values(podwait_build_info, cluster)",
                    True, all_value=".*")
    # podwait_pd_probe_success has one series per known TiDB cluster whether or not anything
    # waits, so the variables are populated on a healthy cluster too.
    if tidb_multi:
        return [
            ds,
            k8s,
            query_var("namespace", "Namespace",
                      f"label_values(podwait_pd_probe_success{{{SEL_K8S}}}, namespace)", True),
            query_var("tidb_cluster", "TiDB cluster",
                      f"label_values(podwait_pd_probe_success{{{SEL_K8S}, "
                      'namespace=~"$namespace"}, tidb_cluster)', True),
        ]
    return [
        ds,
        k8s,
        query_var("tidb_cluster", "TiDB cluster",
                  f"label_values(podwait_pd_probe_success{{{SEL_K8S}}}, tidb_cluster)", False),
    ]


def layout(panels):
    """Assigns ids and flows panels left to right, top to bottom (rows start a new line)."""
    x = y = line_h = 0
    for i, p in enumerate(panels, start=1):
        p["id"] = i
        g = p["gridPos"]
        if p["type"] == "row" or x + g["w"] > 24:
            x, y, line_h = 0, y + line_h, 0
        g["x"], g["y"] = x, y
        x += g["w"]
        line_h = max(line_h, g["h"])
        if p["type"] == "row":
            x, y, line_h = 0, y + 1, 0
    return panels


def dashboard(uid, title, description, panels, tvars, links):
    return {
        "annotations": {
            "list": [
                {
                    "builtIn": 1,
                    "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                    "enable": True,
                    "hide": True,
                    "iconColor": "rgba(0, 211, 255, 1)",
                    "name": "Annotations & Alerts",
                    "type": "dashboard",
                }
            ]
        },
        "description": description,
        "editable": True,
        "fiscalYearStartMonth": 0,
        "graphTooltip": 1,
        "id": None,
        "links": links,
        "liveNow": False,
        "panels": layout(panels),
        "refresh": "30s",
        "schemaVersion": 38,
        "tags": ["podwait", "tidb"],
        "templating": {"list": tvars},
        "time": {"from": "now-3h", "to": "now"},
        "timepicker": {},
        "timezone": "",
        "title": title,
        "uid": uid,
        "version": 1,
        "weekStart": "",
    }


# ---------------------------------------------------------------------------------------------
# Overview


def overview():
    s = SEL_MULTI
    cluster_links = [{"title": "Open ${__field.labels.tidb_cluster} in the drill-down",
                      "url": cluster_link("${__field.labels.tidb_cluster}")}]
    panels = [
        stat("Pods waiting as designed",
             "Pods whose wait is expected: dependency (PD/TiKV not ready yet), scale_up (an "
             "autoscaler is adding a node), gated, scheduling and starting. Not a capacity signal.",
             "short",
             targets((f'sum({R_PODS}{{{s}, class=~"{EXPECTED_RE}"}}) or vector(0)', "pods")),
             steps=[("blue", None)]),
        stat("Pods waiting on a shortfall",
             "Pods whose wait is not expected: capacity (nothing adds the missing resources), "
             "dependency_stuck, constraints, image, crashloop, config, not_ready. This is the "
             "real pending-pods signal for capacity planning.",
             "short",
             targets((f'sum({R_PODS}{{{s}, class!~"{EXPECTED_RE}"}}) or vector(0)', "pods")),
             steps=[("green", None), ("red", 1)]),
        stat("Oldest shortfall wait",
             "The longest current wait among pods in an unexpected class.",
             "s",
             targets((f'max({R_OLDEST}{{{s}, class!~"{EXPECTED_RE}"}}) or vector(0)', "oldest")),
             steps=[("green", None), ("orange", 300), ("red", 900)]),
        stat("Dependencies not ready",
             "How many PD or TiKV dependencies of the selected TiDB clusters are known to be not "
             "ready (podwait_dependency_ready == 0). Unknown dependencies are not counted: see "
             "PD API probe success below.",
             "short",
             targets((f"count(podwait_dependency_ready{{{s}}} == 0) or vector(0)", "not ready")),
             steps=[("green", None), ("orange", 1)]),
        stat("Autoscaler seen",
             "Which node autoscaler podwait detected (cluster-autoscaler status ConfigMap or "
             "recent events, or set by flag). Without one, unschedulable pods short of "
             "resources are capacity, never scale_up.",
             "none",
             targets((f"max by (kind) (podwait_autoscaler_detected{{{SEL_K8S}}})", "{{kind}}")),
             steps=[("#8F8F8F", None), ("green", 1)],
             mappings=bool_mapping("seen", "not seen")),
        stat("Exporter watches synced",
             "1 when every watch of every podwait exporter has listed and is watching "
             "(min of podwait_watch_synced). While 0, classes may be stale.",
             "none",
             targets((f"min(podwait_watch_synced{{{SEL_K8S}}})", "synced")),
             steps=[("red", None), ("green", 1)],
             mappings=bool_mapping("synced", "not synced"), no_value="exporter down"),
        timeseries("Waiting pods by class",
                   "Waiting pods stacked by class (why they wait). Calm colours (blue, green, "
                   "grey) are expected waits; red and orange are shortfalls that need a human.",
                   "short",
                   targets((f"sum by (class) ({R_PODS}{{{s}}})", "{{class}}")),
                   stacked=True, overrides=class_overrides(), legend_table=True),
        timeseries("Oldest wait by class",
                   "The longest current wait per class: how long the oldest waiting pod of each "
                   "class has been in its stage. A dependency wait that keeps growing points at "
                   "PD or TiKV, a capacity wait at the node pools.",
                   "s",
                   targets((f"max by (class) ({R_OLDEST}{{{s}}})", "{{class}}")),
                   overrides=class_overrides(), legend_table=True),
        state_timeline("PD and TiKV readiness",
                       "Readiness of each TiDB cluster's dependencies as podwait sees them: PD "
                       "(has a leader; initialized for TiDB) and TiKV (a store is Up). A gap "
                       "means unknown: the PD API did not answer although PD pods are Ready. "
                       "Click a row to open that TiDB cluster.",
                       targets((f"podwait_dependency_ready{{{s}}}",
                                "{{tidb_cluster}} {{dependency}}")),
                       "ready", "not ready", h=7, links=cluster_links),
        waiting_table(s),
        row("Stage durations (completed stages)"),
        stage_quantiles("unscheduled", "Time to schedule by class", "Time from creation to "
                        "PodScheduled"),
        stage_quantiles("initializing", "Time in init by class", "Time from scheduling to "
                        "Initialized (init containers such as wait-for-pd)"),
        stage_quantiles("starting", "Time to start by class", "Time from Initialized to Ready"),
        row("TiDB cluster state"),
        timeseries("TiKV stores by state",
                   "TiKV stores of the selected TiDB clusters by PD state_name (TiFlash "
                   "excluded). Down and Disconnected stores keep tikv not ready.",
                   "short",
                   targets((f"sum by (state) (podwait_tikv_stores{{{s}}})", "{{state}}")),
                   stacked=True,
                   overrides=[color_override(k, v) for k, v in STORE_COLORS.items()]),
        timeseries("Failover during dependency waits",
                   "Failover members or stores that tidb-operator recorded "
                   "(podwait_failover_members) and, of those, the ones recorded while the pod "
                   "was only waiting on a dependency (podwait_failover_during_dependency_wait): "
                   "replicas added for pods that were never broken. 0 while the operator "
                   "recorded no failover.",
                   "short",
                   targets((f"sum by (tidb_cluster, component) "
                            f"(podwait_failover_members{{{s}}})",
                            "{{tidb_cluster}} {{component}} failover"),
                           (f"sum by (tidb_cluster, component) ({during_wait(s)})",
                            "{{tidb_cluster}} {{component}} during dependency wait")),
                   overrides=[color_override(".* during dependency wait", "red", "byRegexp")],
                   links=cluster_links),
        row("Exporter health"),
        state_timeline("Watch sync by resource",
                       "podwait_watch_synced per exporter and resource (pods, events, "
                       "tidbclusters, configmaps): synced means listed and watching.",
                       targets((f"podwait_watch_synced{{{SEL_K8S}}}", "{{instance}} {{resource}}")),
                       "synced", "not synced", w=8, h=8),
        state_timeline("PD API probe success",
                       "podwait_pd_probe_success per TiDB cluster: the last PD API probe "
                       "answered and parsed. While it fails, dependency readiness falls back to "
                       "PD pods and may be unknown.",
                       targets((f"podwait_pd_probe_success{{{s}}}", "{{tidb_cluster}}")),
                       "answers", "fails", w=8, h=8, links=cluster_links),
        timeseries("Parse errors and watch events",
                   "Rate of malformed documents counted and skipped (podwait_parse_errors_total) "
                   "and of watch events received (podwait_watch_events_total), by resource. "
                   "Parse errors should stay at zero.",
                   "cps",
                   targets((f"sum by (resource) "
                            f"(rate(podwait_parse_errors_total{{{SEL_K8S}}}[$__rate_interval]))",
                            "{{resource}} parse errors"),
                           ("sum by (resource) "
                            f"(rate(podwait_watch_events_total{{{SEL_K8S}}}[$__rate_interval]))",
                            "{{resource}} events")),
                   w=8,
                   overrides=[color_override(".* parse errors", "red", "byRegexp")]),
        timeseries("PD probe latency",
                   "p90 of PD API request duration by endpoint (podwait_probe_duration_seconds) "
                   "and the duration of the last full probe round over all clusters "
                   "(podwait_probe_round_seconds).",
                   "s",
                   targets(("histogram_quantile(0.9, sum by (endpoint, le) (rate("
                            f"podwait_probe_duration_seconds_bucket{{{SEL_K8S}}}"
                            "[$__rate_interval])))",
                            "p90 {{endpoint}}"),
                           (f"max(podwait_probe_round_seconds{{{SEL_K8S}}})", "probe round")),
                   w=8),
        timeseries("Scrape duration",
                   "p99 time podwait takes to render /metrics "
                   "(podwait_scrape_duration_seconds).",
                   "s",
                   targets(("histogram_quantile(0.99, sum by (instance, le) (rate("
                            f"podwait_scrape_duration_seconds_bucket{{{SEL_K8S}}}"
                            "[$__rate_interval])))",
                            "p99 {{instance}}")),
                   w=8),
        timeseries("Exporter memory",
                   "Resident memory of each podwait exporter (process_resident_memory_bytes, "
                   "restricted to targets that expose podwait_build_info).",
                   "bytes",
                   targets((f"process_resident_memory_bytes{{{SEL_K8S}}} and on (cluster, job, "
                            "instance) podwait_build_info", "{{instance}}")),
                   w=8),
    ]
    links = [
        {
            "title": "TiDB cluster drill-down",
            "type": "link",
            "url": f"/d/{CLUSTER_UID}/podwait-cluster",
            "includeVars": True,
            "keepTime": True,
            "icon": "dashboard",
            "targetBlank": False,
            "tooltip": "podwait drill-down for one TiDB cluster (carries $tidb_cluster)",
            "asDropdown": False,
            "tags": [],
        },
    ]
    return dashboard(
        OVERVIEW_UID,
        "podwait / Overview",
        "Why pods of TiDB clusters wait: expected waits on PD/TiKV or the autoscaler versus "
        "real capacity shortfalls (podwait exporter).",
        panels,
        variables(tidb_multi=True),
        links,
    )


# ---------------------------------------------------------------------------------------------
# Drill-down for one TiDB cluster


def cluster():
    s = SEL_ONE
    yes_no_steps = [("red", None), ("green", 1)]
    panels = [
        stat("PD ready",
             "podwait_dependency_ready{dependency=\"pd\"}: PD has a leader (and, for TiDB, the "
             "cluster is initialized). Unknown when the PD API does not answer although PD pods "
             "are Ready.",
             "none", targets((f'podwait_dependency_ready{{{s}, dependency="pd"}}', "pd")),
             steps=yes_no_steps, mappings=bool_mapping("ready", "not ready"), no_value="unknown"),
        stat("TiKV ready",
             "podwait_dependency_ready{dependency=\"tikv\"}: at least one TiKV store is Up.",
             "none", targets((f'podwait_dependency_ready{{{s}, dependency="tikv"}}', "tikv")),
             steps=yes_no_steps, mappings=bool_mapping("ready", "not ready"), no_value="unknown"),
        stat("PD leader",
             "podwait_pd_leader: PD reports a leader.",
             "none", targets((f"podwait_pd_leader{{{s}}}", "leader")),
             steps=yes_no_steps, mappings=bool_mapping("leader", "no leader"),
             no_value="unknown"),
        stat("Cluster initialized",
             "podwait_cluster_initialized: PD's cluster/status says is_initialized (what "
             "TiDB's wait-for-pd waits for).",
             "none", targets((f"podwait_cluster_initialized{{{s}}}", "initialized")),
             steps=yes_no_steps, mappings=bool_mapping("initialized", "not initialized"),
             no_value="unknown"),
        stat("Waiting pods",
             "Pods of this TiDB cluster that are not Ready, all classes.",
             "short", targets((f"sum(podwait_waiting_pods{{{s}}}) or vector(0)", "waiting")),
             steps=[("green", None), ("blue", 1)]),
        stat("Oldest wait",
             "The longest current wait of any pod of this TiDB cluster.",
             "s", targets((f"max(podwait_waiting_oldest_seconds{{{s}}}) or vector(0)", "oldest")),
             steps=[("green", None), ("orange", 300), ("red", 900)]),
        timeseries("Waiting pods by component and class",
                   "Waiting pods of this TiDB cluster stacked by component and class. Blue and "
                   "green are expected waits, red and orange shortfalls.",
                   "short",
                   targets((f"sum by (component, class) (podwait_waiting_pods{{{s}}})",
                            "{{component}} {{class}}")),
                   stacked=True, overrides=class_overrides(".* {cls}", "byRegexp"),
                   legend_table=True),
        timeseries("Wait per pod",
                   "podwait_pod_waiting_seconds: how long each waiting pod has been in its "
                   "current stage, labelled with class and reason. A line that resets changed "
                   "stage.",
                   "s",
                   targets((f"podwait_pod_waiting_seconds{{{s}}}",
                            "{{pod}} {{stage}} {{class}} ({{reason}})")),
                   legend_table=True),
        state_timeline("Dependencies and PD",
                       "Readiness of PD and TiKV, whether the PD API answers, whether PD has a "
                       "leader and whether the cluster is initialized. Gaps are unknown.",
                       targets((f"podwait_dependency_ready{{{s}}}", "{{dependency}} ready"),
                               (f"podwait_pd_probe_success{{{s}}}", "PD API answers"),
                               (f"podwait_pd_leader{{{s}}}", "PD leader"),
                               (f"podwait_cluster_initialized{{{s}}}", "initialized")),
                       "yes", "no", h=8),
        waiting_table(s),
        timeseries("Dependency ready for",
                   "How long each dependency that is ready now has been ready "
                   "(time() - podwait_dependency_ready_since_timestamp_seconds). Pods still "
                   "waiting on a dependency that has been ready for more than the grace (2m) "
                   "are dependency_stuck.",
                   "s",
                   targets((f"(time() - podwait_dependency_ready_since_timestamp_seconds{{{s}}}) "
                            "and on (cluster, namespace, tidb_cluster, dependency) "
                            f"(podwait_dependency_ready{{{s}}} == 1)", "{{dependency}}")),
                   w=12),
        timeseries("PD members by health",
                   "PD members by health from PD's /health.",
                   "short",
                   targets((f"sum by (health) (podwait_pd_members{{{s}}})", "{{health}}")),
                   w=12, stacked=True,
                   overrides=[color_override("healthy", "green"),
                              color_override("unhealthy", "red")]),
        timeseries("TiKV stores by state",
                   "TiKV stores by PD state_name (TiFlash excluded).",
                   "short",
                   targets((f"sum by (state) (podwait_tikv_stores{{{s}}})", "{{state}}")),
                   w=12, stacked=True,
                   overrides=[color_override(k, v) for k, v in STORE_COLORS.items()]),
        timeseries("Failover by component",
                   "Failover members or stores tidb-operator recorded, and those recorded while "
                   "the pod was only waiting on a dependency (the replicas added for nothing).",
                   "short",
                   targets((f"sum by (component) (podwait_failover_members{{{s}}})",
                            "{{component}} failover"),
                           (f"sum by (component) ({during_wait(s)})",
                            "{{component}} during dependency wait")),
                   w=12,
                   overrides=[color_override(".* during dependency wait", "red", "byRegexp")]),
    ]
    links = [
        {
            "title": "podwait overview",
            "type": "link",
            "url": f"/d/{OVERVIEW_UID}/podwait-overview",
            "includeVars": True,
            "keepTime": True,
            "icon": "dashboard",
            "targetBlank": False,
            "tooltip": "All TiDB clusters",
            "asDropdown": False,
            "tags": [],
        }
    ]
    return dashboard(
        CLUSTER_UID,
        "podwait / TiDB cluster",
        "Why the pods of one TiDB cluster wait, with the state of its PD and TiKV.",
        panels,
        variables(tidb_multi=False),
        links,
    )


def render(d):
    return json.dumps(d, indent=2, ensure_ascii=False) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed files instead of writing them")
    args = ap.parse_args()
    stale = []
    for name, build in (("podwait-overview.json", overview), ("podwait-cluster.json", cluster)):
        path = DASHBOARD_DIR / name
        text = render(build())
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("out of date (run dashboards/tools/build_dashboards.py): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
