#!/usr/bin/env python3
"""Checks the Helm chart charts/podwait for what `helm lint` cannot: that it renders what the
kustomize manifests of deploy/ render, and what each value does.

    check_chart.py compare --chart DIR --kustomize DIR
    check_chart.py values --helm HELM --chart CHART --exporter BINARY --root SOURCE_ROOT

compare: DIR holds standalone.yaml, namespaced.yaml, standalone-components.yaml,
namespaced-components.yaml and monitoring.yaml, the chart rendered as release `podwait` in
namespace `podwait` (namespaced: watching tidb-cluster; -components: eventsWrite, networkPolicy and
podDisruptionBudget on; monitoring: serviceMonitor, prometheusRule and grafanaDashboards on) and
the same files from `kubectl kustomize` (the overlays, with deploy/components/*; deploy/monitoring).
The two must grant the same RBAC (scope, group, resource, name, verb), run the same container
(args, probes, ports, resources, image, securityContext) and pod settings, hold the same objects
but the Namespace, and the same PodDisruptionBudget, NetworkPolicy, scrape endpoint, rule groups
and dashboards.

values: renders the chart once per mode and per optional value with the real helm and checks what
each value changes, that every rendering's flags are accepted by the built exporter, and that the
schema refuses wrong values with a message naming them.

Prints `ok ...` or `FAIL ...` per check and exits 1 when any failed.
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_manifests as cm  # noqa: E402  (grants(), effective_security(), podwait_containers())

results = {"ok": 0, "failed": 0}


def report(good, what, detail=""):
    if good:
        results["ok"] += 1
        print("ok   " + what)
    else:
        results["failed"] += 1
        print("FAIL " + what + (": " + detail if detail else ""))


# libyaml's loader where PyYAML has it (Debian's does): the dashboards make the files large.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(path):
    return load_text(pathlib.Path(path).read_text())


def one(objects, kind):
    found = [o for o in objects if o["kind"] == kind]
    return found[0] if len(found) == 1 else None


def container(objects):
    found = cm.podwait_containers(objects)
    return found[0] if len(found) == 1 else (None, {}, {})


# --- compare ------------------------------------------------------------------------------------

CONTAINER_FIELDS = ("args", "ports", "livenessProbe", "readinessProbe", "resources", "image",
                    "imagePullPolicy", "securityContext", "command", "volumeMounts", "env")
POD_FIELDS = ("securityContext", "automountServiceAccountToken", "enableServiceLinks",
              "serviceAccountName", "volumes", "hostNetwork")


def differences(mode, chart, kust):
    """What differs between a chart rendering and the overlay's, as messages. (Wrong subjects
    and unbound roles are check_manifests.py's to report.)"""
    out = []
    g_chart, g_kust = cm.grants(mode, chart), cm.grants(mode, kust)
    cm.failures.clear()
    for g in sorted(g_chart - g_kust):
        out.append("RBAC: the chart grants %s, the overlay does not" % (g,))
    for g in sorted(g_kust - g_chart):
        out.append("RBAC: the overlay grants %s, the chart does not" % (g,))
    key = lambda o: (o["kind"], o["metadata"]["name"], o["metadata"].get("namespace"))
    objects_chart = {key(o) for o in chart}
    objects_kust = {key(o) for o in kust if o["kind"] != "Namespace"}  # Helm: --create-namespace
    if objects_chart != objects_kust:
        out.append("objects: only the chart has %s, only the overlay %s"
                   % (sorted(objects_chart - objects_kust), sorted(objects_kust - objects_chart)))
    (d_chart, pod_chart, c_chart), (d_kust, pod_kust, c_kust) = container(chart), container(kust)
    if d_chart is None or d_kust is None:
        return out + ["not one podwait container in each"]
    for f in CONTAINER_FIELDS:
        if c_chart.get(f) != c_kust.get(f):
            out.append("container %s: chart %s, overlay %s" % (f, c_chart.get(f), c_kust.get(f)))
    for f in POD_FIELDS:
        if pod_chart.get(f) != pod_kust.get(f):
            out.append("pod %s: chart %s, overlay %s" % (f, pod_chart.get(f), pod_kust.get(f)))
    if cm.effective_security(pod_chart, c_chart) != cm.effective_security(pod_kust, c_kust):
        out.append("effective securityContext differs")
    if d_chart["spec"].get("replicas") != d_kust["spec"].get("replicas"):
        out.append("replicas differ")
    for kind, drop in (("Service", "selector"), ("PodDisruptionBudget", "selector"),
                       ("NetworkPolicy", "podSelector")):
        a, b = one(chart, kind), one(kust, kind)
        if (a is None) != (b is None):
            out.append("%s in only one of them" % kind)
        elif a is not None:
            sa, sb = dict(a["spec"]), dict(b["spec"])
            sa.pop(drop, None)
            sb.pop(drop, None)
            if sa != sb:
                out.append("%s spec: chart %s, overlay %s" % (kind, sa, sb))
    return out


def monitoring_differences(chart, kust):
    out = []
    a, b = one(chart, "ServiceMonitor"), one(kust, "ServiceMonitor")
    if a is None or b is None:
        return ["not one ServiceMonitor in each"]
    if a["spec"]["endpoints"] != b["spec"]["endpoints"]:
        out.append("ServiceMonitor endpoints: chart %s, overlay %s"
                   % (a["spec"]["endpoints"], b["spec"]["endpoints"]))
    a, b = one(chart, "PrometheusRule"), one(kust, "PrometheusRule")
    if a is None or b is None:
        return out + ["not one PrometheusRule in each"]
    if a["spec"]["groups"] != b["spec"]["groups"]:
        names = lambda r: [(g["name"], len(g["rules"])) for g in r["spec"]["groups"]]
        out.append("PrometheusRule groups differ (chart %s, overlay %s)" % (names(a), names(b)))
    dashboards = lambda objs: {k: (v, o["metadata"]["labels"].get("grafana_dashboard"))
                               for o in objs if o["kind"] == "ConfigMap"
                               for k, v in o.get("data", {}).items()}
    da, db = dashboards(chart), dashboards(kust)
    if da != db:
        out.append("dashboard ConfigMaps: chart %s, overlay %s (or their text or label differs)"
                   % (sorted(da), sorted(db)))
    return out


def compare(args):
    for name in ("standalone", "namespaced", "standalone-components", "namespaced-components"):
        diff = differences(name.split("-")[0], load(args.chart / (name + ".yaml")),
                           load(args.kustomize / (name + ".yaml")))
        report(not diff, "chart and overlay agree: " + name, "; ".join(diff))
    diff = monitoring_differences(load(args.chart / "monitoring.yaml"),
                                  load(args.kustomize / "monitoring.yaml"))
    report(not diff, "chart and deploy/monitoring agree: ServiceMonitor endpoint, rule groups, "
           "dashboards", "; ".join(diff))


# --- values -------------------------------------------------------------------------------------

class Chart:
    def __init__(self, helm, chart, exporter, tmp):
        self.helm, self.chart, self.exporter, self.tmp = helm, chart, exporter, tmp
        self.count = 0
        self.accepted = set()  # argument lists the exporter accepted

    def run(self, values, release="podwait", namespace="podwait", sets=()):
        self.count += 1
        path = self.tmp / ("values-%d.yaml" % self.count)
        path.write_text(yaml.safe_dump(values))
        cmd = [self.helm, "template", release, str(self.chart), "-n", namespace, "-f", str(path)]
        for s in sets:
            cmd += ["--set-string" if s.startswith("string:") else "--set", s.split(":", 1)[-1]]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60)

    def render(self, values, **kw):
        out = self.run(values, **kw)
        if out.returncode != 0:
            raise AssertionError("helm template failed: " + out.stderr.strip()[-600:])
        objects = load_text(out.stdout)
        for _, _, c in cm.podwait_containers(objects):
            args = tuple(c.get("args", []))
            if args in self.accepted:
                continue
            flags = subprocess.run([self.exporter, *args, "--help"], capture_output=True,
                                   text=True, timeout=30)
            if flags.returncode != 0:
                raise AssertionError("podwait-exporter refuses the args %s: %s"
                                     % (list(args), flags.stderr.strip()))
            self.accepted.add(args)
        return objects


def load_text(text):
    return [d for d in yaml.load_all(text, Loader=LOADER) if d]


def kinds(objects):
    return sorted({o["kind"] for o in objects})


def podspec(objects):
    _, spec, c = container(objects)
    return spec, c


def rule_grants(objects, kind):
    return {(g, r, v) for o in objects if o["kind"] == kind for rule in o.get("rules", [])
            for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}


def source_anchors(root):
    """alert name -> the anchor of its runbook_url in rules/*.yml."""
    anchors = {}
    for path in sorted((root / "rules").glob("*.yml")):
        doc = yaml.safe_load(path.read_text())
        for g in (doc or {}).get("groups", []) if isinstance(doc, dict) else []:
            for r in g["rules"]:
                if "alert" in r and "runbook_url" in r.get("annotations", {}):
                    anchors[r["alert"]] = r["annotations"]["runbook_url"].split("#")[-1]
    return anchors


def runbook_links(objects):
    rule = one(objects, "PrometheusRule")
    return {r["alert"]: r["annotations"]["runbook_url"] for g in rule["spec"]["groups"]
            for r in g["rules"] if "alert" in r and "runbook_url" in r.get("annotations", {})}


def case_modes(ch, ctx):
    objs = ch.render({})
    assert kinds(objs) == ["ClusterRole", "ClusterRoleBinding", "Deployment", "Role", "RoleBinding",
                           "Service", "ServiceAccount"], kinds(objs)
    assert [o["metadata"]["namespace"] for o in objs if o["kind"] == "Role"] == ["kube-system"]
    ctx["kinds"]["standalone"] = kinds(objs)
    objs = ch.render({"mode": "namespaced", "watch": {"namespaces": ["tidb-a", "tidb-b"]}})
    assert "ClusterRole" not in kinds(objs) and "ClusterRoleBinding" not in kinds(objs), kinds(objs)
    roles = sorted(o["metadata"]["namespace"] for o in objs if o["kind"] == "Role")
    assert roles == ["kube-system", "tidb-a", "tidb-b"], roles
    bindings = sorted(o["metadata"]["namespace"] for o in objs if o["kind"] == "RoleBinding")
    assert bindings == roles, bindings
    _, c = podspec(objs)
    assert c["args"][2:] == ["--namespaces=tidb-a,tidb-b", "--volumes.enabled=false"], c["args"]
    got = rule_grants([o for o in objs if o["metadata"].get("namespace") == "tidb-a"], "Role")
    for cluster_only in (("karpenter.sh", "nodeclaims"), ("", "persistentvolumes"),
                         ("", "persistentvolumeclaims")):
        assert not {g for g in got if g[:2] == cluster_only}, "namespaced grants %s" % (cluster_only,)
    ctx["kinds"]["namespaced"] = kinds(objs)
    return "mode standalone: ClusterRole, namespaced: a Role per watched namespace, the volume watch off"


def case_standalone_namespaces(ch, _):
    objs = ch.render({"watch": {"namespaces": ["shop"]}})
    _, c = podspec(objs)
    assert c["args"][2:] == ["--namespaces=shop"], c["args"]
    assert one(objs, "ClusterRole") is not None
    return "watch.namespaces in the standalone mode: --namespaces, the ClusterRole kept"


def case_image(ch, _):
    objs = ch.render({"image": {"repository": "registry.example.com/team/podwait-exporter",
                                "tag": "9.9.9", "pullPolicy": "Always"},
                      "imagePullSecrets": [{"name": "pull"}]})
    spec, c = podspec(objs)
    assert c["image"] == "registry.example.com/team/podwait-exporter:9.9.9", c["image"]
    assert c["imagePullPolicy"] == "Always" and spec["imagePullSecrets"] == [{"name": "pull"}]
    return "image.repository, image.tag, image.pullPolicy, imagePullSecrets"


def case_scheduling(ch, _):
    values = {"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
              "nodeSelector": {"pool": "ops"},
              "tolerations": [{"key": "ops", "operator": "Exists", "effect": "NoSchedule"}],
              "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                  "nodeSelectorTerms": [{"matchExpressions": [
                      {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
              "priorityClassName": "ops-critical",
              "podLabels": {"team": "sre"}, "podAnnotations": {"note": "x"}}
    objs = ch.render(values)
    spec, c = podspec(objs)
    assert c["resources"] == values["resources"], c["resources"]
    for f in ("nodeSelector", "tolerations", "affinity", "priorityClassName"):
        assert spec.get(f) == values[f], (f, spec.get(f))
    d = one(objs, "Deployment")
    assert d["spec"]["template"]["metadata"]["labels"]["team"] == "sre"
    assert d["spec"]["template"]["metadata"]["annotations"] == {"note": "x"}
    assert "team" not in d["spec"]["selector"]["matchLabels"]
    return "resources, nodeSelector, tolerations, affinity, priorityClassName, podLabels, podAnnotations"


def case_extra_args(ch, _):
    objs = ch.render({"extraArgs": ["--autoscaler=karpenter", "--log.level=debug"]})
    _, c = podspec(objs)
    assert c["args"][-2:] == ["--autoscaler=karpenter", "--log.level=debug"], c["args"]
    return "extraArgs: after the chart's flags, accepted by podwait-exporter"


def case_events_write(ch, _):
    for values, kind in (({}, "ClusterRole"),
                         ({"mode": "namespaced", "watch": {"namespaces": ["tidb"]}}, "Role")):
        values = dict(values, eventsWrite={"enabled": True})
        objs = ch.render(values)
        _, c = podspec(objs)
        assert "--events.write" in c["args"], c["args"]
        writes = {g for g in rule_grants(objs, kind) if g[2] not in ("list", "watch", "get")}
        assert writes == {("events.k8s.io", "events", "create"), ("events.k8s.io", "events", "patch")}, writes
        plain = ch.render({k: v for k, v in values.items() if k != "eventsWrite"})
        assert not {g for g in rule_grants(plain, kind) if g[2] not in ("list", "watch", "get")}
    return "eventsWrite.enabled: --events.write and create/patch on events.k8s.io events, nothing more"


def case_service_monitor(ch, _):
    objs = ch.render({"serviceMonitor": {"enabled": True, "interval": "1m",
                                         "labels": {"release": "kube-prometheus-stack"},
                                         "basicAuthSecretName": "scrape"}})
    sm = one(objs, "ServiceMonitor")
    assert sm["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    [ep] = sm["spec"]["endpoints"]
    assert ep["interval"] == "1m" and ep["honorLabels"] is True and ep["path"] == "/metrics"
    assert ep["basicAuth"]["username"] == {"name": "scrape", "key": "username"}, ep
    svc = one(objs, "Service")
    assert all(svc["metadata"]["labels"].get(k) == v
               for k, v in sm["spec"]["selector"]["matchLabels"].items())
    assert sm["spec"]["namespaceSelector"]["matchNames"] == ["podwait"]
    return "serviceMonitor.enabled, interval, labels, basicAuthSecretName"


def case_prometheus_rule(ch, ctx):
    anchors = source_anchors(ctx["root"])
    assert anchors, "no alert with a runbook_url in rules/*.yml"
    objs = ch.render({"prometheusRule": {"enabled": True, "labels": {"release": "kps"},
                                         "runbookBaseURL": "https://wiki.example.com/podwait/RUNBOOK.md"}})
    rule = one(objs, "PrometheusRule")
    assert rule["metadata"]["labels"]["release"] == "kps"
    links = runbook_links(objs)
    want = {a: "https://wiki.example.com/podwait/RUNBOOK.md#" + anchors[a] for a in anchors}
    assert links == want, sorted(set(links.items()) ^ set(want.items()))[:3]
    return "prometheusRule.enabled, labels, runbookBaseURL (%d alerts, anchors of rules/)" % len(links)


def case_external_url(ch, ctx):
    anchors = source_anchors(ctx["root"])
    objs = ch.render({"externalURL": "https://ops.example.com/podwait",
                      "serviceMonitor": {"enabled": True}, "prometheusRule": {"enabled": True}})
    _, c = podspec(objs)
    assert "--web.external-url=https://ops.example.com/podwait" in c["args"], c["args"]
    assert c["livenessProbe"]["httpGet"]["path"] == "/podwait/livez"
    assert c["readinessProbe"]["httpGet"]["path"] == "/podwait/readyz"
    assert one(objs, "ServiceMonitor")["spec"]["endpoints"][0]["path"] == "/podwait/metrics"
    assert set(runbook_links(objs).values()) == {
        "https://ops.example.com/podwait/runbook#" + a for a in anchors.values()}
    objs = ch.render({"externalURL": "https://ops.example.com/podwait", "routePrefix": "/"})
    _, c = podspec(objs)
    assert "--web.route-prefix=/" in c["args"] and c["livenessProbe"]["httpGet"]["path"] == "/livez"
    return "externalURL: --web.external-url, prefixed probes and scrape path, runbook links; routePrefix"


def case_web_config(ch, ctx):
    anchors = source_anchors(ctx["root"])
    objs = ch.render({"webConfig": {"secretName": "web", "key": "config.yml", "tlsSecretName": "tls",
                                    "probeAuthorization": "Basic cHJvYmU6cHc="},
                      "serviceMonitor": {"enabled": True}, "prometheusRule": {"enabled": True}})
    spec, c = podspec(objs)
    assert "--web.config.file=/etc/podwait/web/config.yml" in c["args"], c["args"]
    assert {v["name"]: v["secret"]["secretName"] for v in spec["volumes"]} == {"web-config": "web", "tls": "tls"}
    assert all("subPath" not in m for m in c["volumeMounts"])
    for probe in ("livenessProbe", "readinessProbe"):
        g = c[probe]["httpGet"]
        assert g["scheme"] == "HTTPS" and g["httpHeaders"] == [
            {"name": "Authorization", "value": "Basic cHJvYmU6cHc="}], g
    ep = one(objs, "ServiceMonitor")["spec"]["endpoints"][0]
    assert ep["scheme"] == "https" and ep["tlsConfig"] == {
        "ca": {"secret": {"name": "tls", "key": "ca.crt"}},
        "serverName": "podwait-exporter.podwait.svc"}, ep
    assert set(runbook_links(objs).values()) == {
        "https://podwait-exporter.podwait.svc:9877/runbook#" + a for a in anchors.values()}
    return "webConfig: the Secrets mounted whole, HTTPS probes with their header, an https scrape"


def case_pd_tls(ch, _):
    objs = ch.render({"pdTLS": {"secretName": "basic-cluster-client-secret"},
                      "extraVolumes": [{"name": "per-cluster", "projected": {"sources": []}}],
                      "extraVolumeMounts": [{"name": "per-cluster", "mountPath": "/etc/podwait/pd",
                                             "readOnly": True}],
                      "extraArgs": ["--pd.tls.dir=/etc/podwait/pd"]})
    spec, c = podspec(objs)
    assert c["args"][2:] == ["--pd.tls.ca-file=/etc/podwait/pd-tls/ca.crt",
                             "--pd.tls.cert-file=/etc/podwait/pd-tls/tls.crt",
                             "--pd.tls.key-file=/etc/podwait/pd-tls/tls.key",
                             "--pd.tls.dir=/etc/podwait/pd"], c["args"]
    assert [v["name"] for v in spec["volumes"]] == ["pd-tls", "per-cluster"], spec["volumes"]
    assert spec["volumes"][0]["secret"] == {"secretName": "basic-cluster-client-secret"}
    assert [(m["name"], m["mountPath"]) for m in c["volumeMounts"]] == [
        ("pd-tls", "/etc/podwait/pd-tls"), ("per-cluster", "/etc/podwait/pd")], c["volumeMounts"]
    return "pdTLS.secretName: the PD client certificate mounted for --pd.tls.*; extraVolumes, extraVolumeMounts"


def case_dashboards(ch, ctx):
    sources = {p.name: p.read_text() for p in sorted((ctx["root"] / "dashboards").glob("*.json"))}
    objs = ch.render({"grafanaDashboards": {"enabled": True, "label": "grafana_dashboard",
                                            "labelValue": "podwait", "namespace": "grafana",
                                            "annotations": {"grafana_folder": "TiDB"}}})
    maps = [o for o in objs if o["kind"] == "ConfigMap"]
    assert {k: v for m in maps for k, v in m["data"].items()} == sources, "dashboard text differs"
    for m in maps:
        assert m["metadata"]["namespace"] == "grafana"
        assert m["metadata"]["labels"]["grafana_dashboard"] == "podwait"
        assert m["metadata"]["annotations"] == {"grafana_folder": "TiDB"}
    return "grafanaDashboards.enabled, label, labelValue, namespace, annotations (%d dashboards)" % len(maps)


def case_network_policy(ch, _):
    peer = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
    objs = ch.render({"networkPolicy": {"enabled": True, "ingressFrom": [peer]}})
    np = one(objs, "NetworkPolicy")
    assert np["spec"]["ingress"] == [{"ports": [{"port": "metrics", "protocol": "TCP"}], "from": [peer]}]
    d = one(objs, "Deployment")
    labels = d["spec"]["template"]["metadata"]["labels"]
    assert all(labels.get(k) == v for k, v in np["spec"]["podSelector"]["matchLabels"].items())
    return "networkPolicy.enabled, ingressFrom"


def case_pdb(ch, _):
    objs = ch.render({"podDisruptionBudget": {"enabled": True}})
    pdb = one(objs, "PodDisruptionBudget")
    assert pdb["spec"]["maxUnavailable"] == 1 and "minAvailable" not in pdb["spec"]
    return "podDisruptionBudget.enabled: maxUnavailable 1"


def case_names(ch, _):
    for release, values, want in (("monitoring", {}, "monitoring-podwait-exporter"),
                                  ("podwait-prod", {}, "podwait-prod-exporter"),
                                  ("podwait", {"fullnameOverride": "tidb-podwait"}, "tidb-podwait")):
        objs = ch.render(dict(values, serviceMonitor={"enabled": True}), release=release,
                         namespace="ops")
        spec, _ = podspec(objs)
        assert spec["serviceAccountName"] == want, spec["serviceAccountName"]
        for b in objs:
            if b["kind"] in ("ClusterRoleBinding", "RoleBinding"):
                assert b["subjects"] == [{"kind": "ServiceAccount", "name": want, "namespace": "ops"}]
        assert one(objs, "Service")["metadata"]["name"] == want
    return "names: <release>-exporter, <release>-podwait-exporter, fullnameOverride; bindings follow"


# (values, what the error message must name)
REFUSALS = (
    ({"mode": "bogus"}, "/mode"),
    ({"mode": "sidecar"}, "/mode"),
    ({"mode": "namespaced"}, "/watch/namespaces"),
    ({"watch": {"namespaces": ["Not_A_Namespace"]}}, "/watch/namespaces/0"),
    ({"eventsWrite": {"enabled": "true"}}, "/eventsWrite/enabled"),
    ({"podDisruptionBudget": {"enabled": "yes"}}, "/podDisruptionBudget/enabled"),
    ({"serviceMonitor": {"enable": True}}, "'enable'"),
    ({"serviceMonitor": {"interval": "30 seconds"}}, "/serviceMonitor/interval"),
    ({"image": {"pullPolicy": "Sometimes"}}, "/image/pullPolicy"),
    ({"extraArgs": ["log.level=debug"]}, "/extraArgs/0"),
    ({"extraArgs": "--log.level=debug"}, "/extraArgs"),
    ({"externalURL": "ops.example.com/podwait"}, "/externalURL"),
    ({"webConfig": {"tlsSecretName": "tls"}}, "/webConfig/secretName"),
    ({"resources": "small"}, "/resources"),
    ({"fullnameOverride": "exporter"}, "/fullnameOverride"),
    ({"extraVolumeMounts": [{"name": "x"}]}, "/extraVolumeMounts/0"),
)


def check_refusals(ch):
    for values, name in REFUSALS:
        out = ch.run(values)
        good = out.returncode != 0 and name in out.stderr and "schema" in out.stderr
        report(good, "the schema refuses %s, naming %s" % (json.dumps(values), name),
               "exit %d: %s" % (out.returncode, out.stderr.strip()[-300:]))
    # --set with a string where a bool belongs, as a user types it
    out = ch.run({}, sets=["string:networkPolicy.enabled=true"])
    report(out.returncode != 0 and "/networkPolicy/enabled" in out.stderr,
           "the schema refuses --set-string networkPolicy.enabled=true", out.stderr.strip()[-300:])


CASES = (case_modes, case_standalone_namespaces, case_image, case_scheduling, case_extra_args,
         case_events_write, case_service_monitor, case_prometheus_rule, case_external_url,
         case_web_config, case_pd_tls, case_dashboards, case_network_policy, case_pdb, case_names)


def values(args):
    with tempfile.TemporaryDirectory() as tmp:
        ch = Chart(args.helm, args.chart, args.exporter, pathlib.Path(tmp))
        ctx = {"root": args.root, "kinds": {}}
        for case in CASES:
            try:
                what = case(ch, ctx)
                report(True, what)
            except AssertionError as e:
                report(False, case.__name__, str(e) or "assertion failed")
        for mode, k in sorted(ctx["kinds"].items()):
            print("     %s renders %s" % (mode, ", ".join(k)))
        check_refusals(ch)


def main(argv):
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--chart", type=pathlib.Path, required=True)
    c.add_argument("--kustomize", type=pathlib.Path, required=True)
    v = sub.add_parser("values")
    v.add_argument("--helm", default="helm")
    v.add_argument("--chart", type=pathlib.Path, required=True)
    v.add_argument("--exporter", required=True)
    v.add_argument("--root", type=pathlib.Path, required=True)
    args = p.parse_args(argv)
    compare(args) if args.command == "compare" else values(args)
    print("check_chart: %d passed, %d failed" % (results["ok"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
