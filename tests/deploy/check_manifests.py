#!/usr/bin/env python3
"""Checks podwait's rendered manifests (the output of `kubectl kustomize`) for what a schema
cannot: least-privilege RBAC, the exporter's flags, the security settings, and that the modes
agree with each other.

    check_manifests.py --rendered DIR --exporter BINARY --version X.Y.Z [--merged-sidecar FILE]
                       [--modes standalone,namespaced]

DIR holds standalone.yaml, namespaced.yaml, sidecar.yaml and monitoring.yaml, and
standalone-components.yaml and namespaced-components.yaml (those overlays built with the optional
components of deploy/components/). --merged-sidecar is
the sidecar Deployment merged into tidb-operator's controller-manager Deployment. --modes checks
only some modes (the Helm chart, charts/podwait, has no sidecar mode). Prints one line per failed
check and exits 1 if there is any.
"""

import argparse
import json
import pathlib
import subprocess
import sys

import yaml

IMAGE = "podwait-exporter"
EXPORTER_NS = "podwait"
SIDECAR_NS = "tidb-admin"
SIDECAR_SA = "tidb-controller-manager"
WATCHED_NS = "tidb-cluster"  # the namespaced overlay's example namespace

# What podwait reads besides the tables of `podwait-exporter contract`: pods and their events,
# listed and watched in the watched namespaces (tidb-operator v1's TidbClusters and DMClusters
# are the contract's `v1`).
BASE_RESOURCES = (("", "pods"), ("", "events"))


def expected_grants(contract):
    """The whole of podwait's access per mode, as (scope, apiGroup, resource, resourceName, verb);
    scope is "cluster" or a namespace, resourceName "*" when the rule names none. The v2 kinds and
    the autoscalers' resources come from the contract (exporter/model/v2.cpp Kinds(),
    exporter/model/autoscalers.h), so an RBAC overlay cannot fall behind the binary."""
    v2 = contract["v2"]
    watched = {(g, r, "*", v) for g, r in BASE_RESOURCES for v in ("list", "watch")}
    watched |= {(contract["v1"]["apiGroup"], r["resource"], "*", v)
                for r in contract["v1"]["resources"] for v in r["verbs"]}
    watched |= {(v2["apiGroup"], k["resource"], "*", v)
                for k in v2["kinds"] for v in v2["verbs"]}
    named = set()  # one named object each, in its own namespace
    cluster_scoped = set()  # read only when every namespace is watched: not in namespaced mode
    for a in contract["autoscalers"]:
        for r in a["resources"]:
            if r.get("clusterScoped"):
                cluster_scoped |= {(r["apiGroup"], r["resource"], "*", v) for v in r["verbs"]}
            elif r["name"]:
                named |= {(r["namespace"], r["apiGroup"], r["resource"], r["name"], v)
                          for v in r["verbs"]}
            else:
                watched |= {(r["apiGroup"], r["resource"], "*", v) for v in r["verbs"]}
    # The volume watch needs PersistentVolumes, which are cluster-scoped: the namespaced mode,
    # which has no ClusterRole, turns it off (check_volumes_flag) and grants neither.
    volumes = {(r["apiGroup"], r["resource"], "*", v)
               for r in contract["volumes"]["resources"] for v in r["verbs"]}
    return {
        "standalone": {("cluster",) + r for r in watched | cluster_scoped | volumes} | named,
        "namespaced": {(WATCHED_NS,) + r for r in watched} | named,
        "sidecar": {("cluster",) + r for r in watched | cluster_scoped | volumes} | named,
    }


def event_grants(contract, mode):
    """What --events.write needs (the contract's "events": create and patch on events.k8s.io
    events), in the namespaces the mode watches."""
    e = contract["events"]
    scope = "cluster" if mode in ("standalone", "sidecar") else WATCHED_NS
    return {(scope, e["apiGroup"], e["resource"], "*", v) for v in e["verbs"]}


def read_contract(exporter):
    out = subprocess.run([exporter, "contract"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


EXPECTED_GRANTS = {}
EXPECTED_SUBJECT = {
    "standalone": ("ServiceAccount", "podwait-exporter", EXPORTER_NS),
    "namespaced": ("ServiceAccount", "podwait-exporter", EXPORTER_NS),
    "sidecar": ("ServiceAccount", SIDECAR_SA, SIDECAR_NS),
}

failures = []


def fail(mode, message):
    failures.append("%s: %s" % (mode, message))


def load(path):
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def find(objects, kind, name=None, namespace=None):
    return [o for o in objects if o["kind"] == kind
            and (name is None or o["metadata"]["name"] == name)
            and (namespace is None or o["metadata"].get("namespace") == namespace)]


def podwait_containers(objects):
    out = []
    for d in find(objects, "Deployment"):
        spec = d["spec"]["template"]["spec"]
        for c in spec.get("containers", []):
            if c["image"].split("/")[-1].split(":")[0] == IMAGE:
                out.append((d, spec, c))
    return out


# --- RBAC ---------------------------------------------------------------------------------------

def grants(mode, objects):
    """Every permission the rendered bindings give, checking subjects and roleRefs on the way."""
    roles = {}
    for o in objects:
        if o["kind"] == "ClusterRole":
            roles[("ClusterRole", None, o["metadata"]["name"])] = o
        elif o["kind"] == "Role":
            roles[("Role", o["metadata"]["namespace"], o["metadata"]["name"])] = o
    for key, role in roles.items():
        if "aggregationRule" in role:
            fail(mode, "%s %s aggregates other roles" % (key[0], key[2]))
    result = set()
    bound = set()
    for b in objects:
        if b["kind"] not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        name = b["metadata"]["name"]
        scope = "cluster" if b["kind"] == "ClusterRoleBinding" else b["metadata"]["namespace"]
        subjects = [(s.get("kind"), s.get("name"), s.get("namespace")) for s in b.get("subjects", [])]
        subject = EXPECTED_SUBJECT[mode.split("+")[0]]
        if subjects != [subject]:
            fail(mode, "%s %s binds %s, expected only %s" % (b["kind"], name, subjects, subject))
        ref = b["roleRef"]
        key = (ref["kind"], None if ref["kind"] == "ClusterRole" else scope, ref["name"])
        if ref.get("apiGroup") != "rbac.authorization.k8s.io" or key not in roles:
            fail(mode, "%s %s refers to %s, which this mode does not define" % (b["kind"], name, key))
            continue
        bound.add(key)
        for rule in roles[key].get("rules", []):
            if rule.get("nonResourceURLs"):
                fail(mode, "%s grants non-resource URLs" % (key,))
            for group in rule.get("apiGroups", []):
                for resource in rule.get("resources", []):
                    for name_ in rule.get("resourceNames") or ["*"]:
                        for verb in rule.get("verbs", []):
                            result.add((scope, group, resource, name_, verb))
    for key in roles:
        if key not in bound:
            fail(mode, "%s %s is defined but bound to nothing" % (key[0], key[2]))
    return result


def check_rbac(mode, objects, want=None):
    got = grants(mode, objects)
    want = EXPECTED_GRANTS[mode] if want is None else want
    for g in sorted(got - want):
        fail(mode, "grants more than it needs: %s" % (g,))
    for g in sorted(want - got):
        fail(mode, "lacks a grant the exporter needs: %s" % (g,))
    for g in got:
        if "*" in (g[1], g[2], g[4]):
            fail(mode, "wildcard in a grant: %s" % (g,))
    if mode.startswith("namespaced") and find(objects, "ClusterRole") + find(objects, "ClusterRoleBinding"):
        fail(mode, "the namespaced mode must not use a ClusterRole or ClusterRoleBinding")
    if mode != "sidecar":
        sa = EXPECTED_SUBJECT[mode.split("+")[0]]
        if not find(objects, "ServiceAccount", sa[1], sa[2]):
            fail(mode, "the bound ServiceAccount %s/%s is not part of the mode" % (sa[2], sa[1]))


# --- flags --------------------------------------------------------------------------------------

def help_flags(exporter):
    out = subprocess.run([exporter, "--help"], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise SystemExit("%s --help exited %d" % (exporter, out.returncode))
    names = set()
    for line in out.stdout.splitlines():
        for word in line.replace(",", " ").split():
            if word.startswith("--"):
                names.add(word[2:].split("=", 1)[0])
    if "web.listen-address" not in names:
        raise SystemExit("cannot read the flags from %s --help" % exporter)
    return names


def check_flags(mode, objects, exporter, known):
    containers = podwait_containers(objects)
    if len(containers) != 1:
        fail(mode, "expected one podwait container, found %d" % len(containers))
    for _, _, c in containers:
        if "command" in c:
            fail(mode, "the container overrides the image's entrypoint")
        args = c.get("args", [])
        for a in args:
            if not a.startswith("--") or a[2:].split("=", 1)[0] not in known:
                fail(mode, "argument %r is not a flag of podwait-exporter --help" % a)
        # The binary parses every flag before --help: a malformed value exits 2.
        out = subprocess.run([exporter] + args + ["--help"], capture_output=True, text=True,
                             timeout=30)
        if out.returncode != 0:
            fail(mode, "podwait-exporter %s --help exited %d: %s" % (" ".join(args), out.returncode,
                                                                      out.stderr.strip()))


def check_volumes_flag(mode, objects, contract):
    """The namespaced mode cannot grant the cluster-scoped PersistentVolumes: it must turn the
    volume watch off rather than log a 403 at every start."""
    flag = contract["volumes"]["flag"]
    off = {"--no-" + flag, "--" + flag + "=false"}
    for _, _, c in podwait_containers(objects):
        disabled = bool(off & set(c.get("args", [])))
        if mode == "namespaced" and not disabled:
            fail(mode, "the volume watch needs a ClusterRole: pass --%s=false" % flag)
        if mode != "namespaced" and disabled:
            fail(mode, "--%s=false although this mode grants the volume watch" % flag)


# --- the Deployment -----------------------------------------------------------------------------

def effective_security(pod_spec, container):
    """The container's security settings with the pod's defaults filled in."""
    pod = pod_spec.get("securityContext", {}) or {}
    ctr = container.get("securityContext", {}) or {}
    merged = {k: pod[k] for k in ("runAsNonRoot", "runAsUser", "runAsGroup", "seccompProfile")
              if k in pod}
    merged.update(ctr)
    return merged


def port_number(container, name):
    for p in container.get("ports", []):
        if p.get("name") == name:
            return p["containerPort"]
    return None


def check_deployment(mode, objects, version):
    for d, spec, c in podwait_containers(objects):
        sec = effective_security(spec, c)
        if sec.get("runAsNonRoot") is not True:
            fail(mode, "runAsNonRoot is not true")
        if not isinstance(sec.get("runAsUser"), int) or sec["runAsUser"] == 0:
            fail(mode, "runAsUser must be a non-zero number")
        if sec.get("readOnlyRootFilesystem") is not True:
            fail(mode, "readOnlyRootFilesystem is not true")
        if sec.get("allowPrivilegeEscalation") is not False:
            fail(mode, "allowPrivilegeEscalation is not false")
        if sec.get("capabilities", {}).get("drop") != ["ALL"] or sec["capabilities"].get("add"):
            fail(mode, "capabilities must drop ALL and add none")
        if sec.get("seccompProfile", {}).get("type") != "RuntimeDefault":
            fail(mode, "seccompProfile is not RuntimeDefault")
        if sec.get("privileged"):
            fail(mode, "privileged")
        if spec.get("automountServiceAccountToken") is False:
            fail(mode, "the exporter needs its service-account token")
        if mode != "sidecar" and spec.get("automountServiceAccountToken") is not True:
            fail(mode, "automountServiceAccountToken should be set to true explicitly")
        if spec.get("hostNetwork") or spec.get("hostPID") or spec.get("hostIPC"):
            fail(mode, "host namespaces")
        if spec.get("volumes") or c.get("volumeMounts"):
            fail(mode, "the exporter needs no volumes")
        if port_number(c, "metrics") != 9877:
            fail(mode, "no container port named metrics on 9877")
        live = c.get("livenessProbe", {}).get("httpGet", {})
        if live.get("path") != "/livez" or live.get("port") != "metrics":
            fail(mode, "liveness probe is not GET /livez on port metrics")
        ready = c.get("readinessProbe", {}).get("httpGet", {})
        if mode == "sidecar":
            if "readinessProbe" in c:
                fail(mode, "the sidecar must not gate the operator pod's readiness")
        elif ready.get("path") != "/readyz" or ready.get("port") != "metrics":
            fail(mode, "readiness probe is not GET /readyz on port metrics")
        res = c.get("resources", {})
        if not res.get("requests", {}).get("cpu") or not res.get("requests", {}).get("memory"):
            fail(mode, "cpu and memory requests are required")
        if not res.get("limits", {}).get("memory"):
            fail(mode, "a memory limit is required")
        image = c["image"]
        if not image.endswith(":" + version):
            fail(mode, "image %s is not tagged with the project version %s" % (image, version))
        if mode != "sidecar" and spec.get("serviceAccountName") != "podwait-exporter":
            fail(mode, "the pod does not run as the podwait-exporter service account")
        if mode != "sidecar" and d["spec"].get("replicas") != 1:
            fail(mode, "unsharded podwait must run one replica")


def check_service(mode, objects, monitoring):
    services = find(objects, "Service", "podwait-exporter")
    if len(services) != 1:
        fail(mode, "expected one Service podwait-exporter")
        return
    svc = services[0]
    ports = [p for p in svc["spec"]["ports"] if p.get("name") == "metrics"]
    if len(ports) != 1 or ports[0].get("targetPort") != "metrics":
        fail(mode, "the Service needs a port named metrics targeting the container port metrics")
    for d, spec, _ in podwait_containers(objects):
        labels = d["spec"]["template"]["metadata"]["labels"]
        if d["metadata"]["namespace"] != svc["metadata"]["namespace"]:
            fail(mode, "the Service is not in the Deployment's namespace")
        if any(labels.get(k) != v for k, v in svc["spec"]["selector"].items()):
            fail(mode, "the Service does not select the exporter's pods")
    for sm in find(monitoring, "ServiceMonitor"):
        selector = sm["spec"]["selector"].get("matchLabels", {})
        labels = svc["metadata"].get("labels", {})
        if any(labels.get(k) != v for k, v in selector.items()):
            fail(mode, "ServiceMonitor %s does not select the Service" % sm["metadata"]["name"])
        if svc["metadata"]["namespace"] not in sm["spec"].get("namespaceSelector", {}).get(
                "matchNames", []):
            fail(mode, "ServiceMonitor does not look in namespace %s" % svc["metadata"]["namespace"])
        endpoints = sm["spec"]["endpoints"]
        if [e.get("port") for e in endpoints] != ["metrics"] or not endpoints[0].get("honorLabels"):
            fail(mode, "ServiceMonitor must scrape port metrics with honorLabels: true")


def check_namespaced(objects):
    mode = "namespaced"
    for _, _, c in podwait_containers(objects):
        values = [a.split("=", 1)[1] for a in c.get("args", []) if a.startswith("--namespaces=")]
        if len(values) != 1:
            fail(mode, "--namespaces must be set once")
            continue
        watched = set(v.strip() for v in values[0].split(",") if v.strip())
        with_role = {o["metadata"]["namespace"] for o in find(objects, "RoleBinding")} - {"kube-system"}
        if watched != with_role:
            fail(mode, "watched namespaces %s but RoleBindings in %s" % (sorted(watched),
                                                                         sorted(with_role)))


def check_sidecar_matches(standalone, sidecar):
    """The sidecar container is the standalone one, but for the documented differences."""
    [(_, s_spec, s_ctr)] = podwait_containers(standalone) or [(None, {}, {})]
    [(_, c_spec, c_ctr)] = podwait_containers(sidecar) or [(None, {}, {})]
    for key in sorted(set(s_ctr) | set(c_ctr)):
        if key in ("readinessProbe", "securityContext"):
            continue
        if s_ctr.get(key) != c_ctr.get(key):
            fail("sidecar", "container field %s differs from the standalone container" % key)
    s_sec, c_sec = effective_security(s_spec, s_ctr), effective_security(c_spec, c_ctr)
    if s_sec != c_sec:
        fail("sidecar", "effective security settings differ: %s vs %s" % (c_sec, s_sec))
    if c_spec.get("securityContext"):
        fail("sidecar", "must not change the operator pod's securityContext")


def check_merged_sidecar(merged_path, sidecar):
    mode = "sidecar(merged)"
    [d] = [o for o in load(merged_path) if o["kind"] == "Deployment"]
    spec = d["spec"]["template"]["spec"]
    names = [c["name"] for c in spec["containers"]]
    if sorted(names) != ["podwait-exporter", "tidb-operator"]:
        fail(mode, "containers after the merge: %s" % names)
    operator = [c for c in spec["containers"] if c["name"] == "tidb-operator"]
    if operator and not operator[0].get("command", [""])[0].endswith("tidb-controller-manager"):
        fail(mode, "the operator container was changed by the merge")
    if (spec.get("serviceAccountName") or spec.get("serviceAccount")) != SIDECAR_SA:
        fail(mode, "the pod no longer runs as %s" % SIDECAR_SA)
    [svc] = find(sidecar, "Service", "podwait-exporter") or [None]
    labels = d["spec"]["template"]["metadata"]["labels"]
    if svc and any(labels.get(k) != v for k, v in svc["spec"]["selector"].items()):
        fail(mode, "the sidecar Service does not select the controller-manager pods")


# --- the version label, the optional components ---------------------------------------------------

VERSION_LABEL = "app.kubernetes.io/version"


def check_version_labels(mode, objects, version):
    """Every podwait object (and the pods of its own Deployment) carries the project version; no
    selector does (a selector cannot change on an upgrade); tidb-operator's Deployment, which the
    sidecar mode patches, is not labelled as podwait's."""
    for o in objects:
        labels = o["metadata"].get("labels", {})
        what = "%s %s" % (o["kind"], o["metadata"]["name"])
        if labels.get("app.kubernetes.io/part-of") == "podwait":
            if labels.get(VERSION_LABEL) != version:
                fail(mode, "%s: label %s is %r, not the project version %s"
                     % (what, VERSION_LABEL, labels.get(VERSION_LABEL), version))
        elif VERSION_LABEL in labels:
            fail(mode, "%s is not podwait's but carries %s" % (what, VERSION_LABEL))
        spec = o.get("spec") or {}
        for selector in (spec.get("selector"), spec.get("podSelector")):
            if isinstance(selector, dict) and VERSION_LABEL in str(selector):
                fail(mode, "%s: %s in a selector" % (what, VERSION_LABEL))
    for d, _, _ in podwait_containers(objects):
        pod_labels = d["spec"]["template"]["metadata"].get("labels", {})
        if mode != "sidecar" and pod_labels.get(VERSION_LABEL) != version:
            fail(mode, "the exporter's pods do not carry %s=%s" % (VERSION_LABEL, version))


def check_components(mode, plain, with_components, contract):
    """The overlay built with deploy/components/*: the same objects plus a PodDisruptionBudget and
    a NetworkPolicy, both selecting the exporter's pods, the budget never blocking a drain, the
    policy letting in scrapes on the metrics port and out DNS, the API server and PD; and
    events-write's --events.write with exactly the grants it needs in the watched namespaces (the
    plain overlay writes nothing)."""
    check_rbac(mode + "+components", with_components,
               EXPECTED_GRANTS[mode] | event_grants(contract, mode))
    flag = "--" + contract["events"]["flag"]
    for objects, want in ((plain, False), (with_components, True)):
        for _, _, c in podwait_containers(objects):
            if (flag in c.get("args", [])) != want:
                fail(mode + ("+components" if want else ""),
                     "%s %s" % (flag, "is missing" if want else "is on without the component"))
    key = lambda o: (o["kind"], o["metadata"]["name"], o["metadata"].get("namespace"))
    added = {key(o) for o in with_components} - {key(o) for o in plain}
    if added != {("PodDisruptionBudget", "podwait-exporter", EXPORTER_NS),
                 ("NetworkPolicy", "podwait-exporter", EXPORTER_NS)}:
        fail(mode, "the components add %s, not a PodDisruptionBudget and a NetworkPolicy"
             % sorted(added))
        return
    [d] = find(plain, "Deployment", "podwait-exporter")
    pod_labels = d["spec"]["template"]["metadata"]["labels"]
    [pdb] = find(with_components, "PodDisruptionBudget")
    [policy] = find(with_components, "NetworkPolicy")
    for o, selector in ((pdb, pdb["spec"].get("selector", {})),
                        (policy, policy["spec"].get("podSelector", {}))):
        match = selector.get("matchLabels", {})
        if not match or any(pod_labels.get(k) != v for k, v in match.items()):
            fail(mode, "the %s does not select the exporter's pods" % o["kind"])
    if pdb["spec"].get("minAvailable") is not None or pdb["spec"].get("maxUnavailable") != 1:
        fail(mode, "the PodDisruptionBudget must be maxUnavailable: 1 (one replica: "
                   "minAvailable would block every drain)")
    spec = policy["spec"]
    if sorted(spec.get("policyTypes", [])) != ["Egress", "Ingress"]:
        fail(mode, "the NetworkPolicy must restrict both ingress and egress")
    ingress = {(p.get("port"), p.get("protocol", "TCP"))
               for rule in spec.get("ingress", []) for p in rule.get("ports", [])}
    if ingress != {("metrics", "TCP")}:
        fail(mode, "the NetworkPolicy must let in only the metrics port, not %s" % sorted(ingress))
    egress = {(p.get("port"), p.get("protocol", "TCP"))
              for rule in spec.get("egress", []) for p in rule.get("ports", [])}
    for need in ((53, "UDP"), (53, "TCP"), (443, "TCP"), (2379, "TCP")):
        if need not in egress:
            fail(mode, "the NetworkPolicy blocks egress to port %s/%s" % need)


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--rendered", type=pathlib.Path, required=True)
    p.add_argument("--exporter", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--merged-sidecar", type=pathlib.Path)
    p.add_argument("--modes", default="standalone,namespaced,sidecar")
    args = p.parse_args(argv)
    modes = args.modes.split(",")
    if set(modes) - {"standalone", "namespaced", "sidecar"} or "namespaced" not in modes:
        p.error("--modes: a list of standalone, namespaced, sidecar with namespaced in it")
    rendered = {m: load(args.rendered / (m + ".yaml")) for m in modes + ["monitoring"]}
    known = help_flags(args.exporter)
    contract = read_contract(args.exporter)
    EXPECTED_GRANTS.update(expected_grants(contract))
    for mode in modes:
        objects = rendered[mode]
        check_rbac(mode, objects)
        check_flags(mode, objects, args.exporter, known)
        check_volumes_flag(mode, objects, contract)
        check_deployment(mode, objects, args.version)
        check_service(mode, objects, rendered["monitoring"])
    for mode in modes + ["monitoring"]:
        check_version_labels(mode, rendered[mode], args.version)
    for mode in [m for m in modes if m != "sidecar"]:
        path = args.rendered / (mode + "-components.yaml")
        if path.exists():
            check_components(mode, rendered[mode], load(path), contract)
            check_version_labels(mode + "+components", load(path), args.version)
        else:
            fail(mode, "%s is missing (the overlay built with deploy/components/*)" % path.name)
    check_namespaced(rendered["namespaced"])
    if "sidecar" in modes and "standalone" in modes:
        check_sidecar_matches(rendered["standalone"], rendered["sidecar"])
    if args.merged_sidecar:
        check_merged_sidecar(args.merged_sidecar, rendered["sidecar"])
    for f in failures:
        print("FAIL " + f)
    print("check_manifests: %d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
