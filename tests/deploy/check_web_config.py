#!/usr/bin/env python3
"""How the pieces of a web-config install fit: the exporter's --web.config.file and the
certificate as whole Secret volumes, probes over HTTPS with a user of the web config, and the
ServiceMonitor scraping over HTTPS with the exporter's CA, the Service's DNS name and credentials
the web config accepts.

    check_web_config.py RENDERED OUT_DIR

RENDERED is every object of the install (the Deployment, Service and ServiceMonitor named
podwait-exporter, and the Secrets they name). Prints the problems, exits 1 when there are any.
Writes the web config and the credentials the probes and Prometheus use to OUT_DIR, for a test to
run the exporter with them. Used by tests/checks/deploy_web_config_test.sh (the kustomize
example) and tests/checks/helm_chart_test.sh (the chart's webConfig values).
"""
import base64, crypt, os, pathlib, posixpath, sys, yaml

objs = [o for o in yaml.safe_load_all(open(sys.argv[1])) if o]
out = pathlib.Path(sys.argv[2])
out.mkdir(exist_ok=True)
problems = []
def want(cond, what):
    if not cond:
        problems.append(what)
def one(kind, name=None):
    found = [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    if len(found) != 1:
        problems.append(f"expected one {kind} {name or ''}, found {len(found)}")
        return None
    return found[0]
def secret_data(name):
    s = one("Secret", name)
    if s is None:
        return {}
    data = dict(s.get("stringData", {}))
    data.update({k: base64.b64decode(v).decode() for k, v in s.get("data", {}).items()})
    return data

dep = one("Deployment", "podwait-exporter")
svc = one("Service", "podwait-exporter")
sm = one("ServiceMonitor", "podwait-exporter")
if dep is None or svc is None or sm is None:
    print("\n".join(problems)); sys.exit(1)
pod = dep["spec"]["template"]["spec"]
[c] = [c for c in pod["containers"] if c["name"] == "podwait-exporter"]
flags = [a for a in c.get("args", []) if a.startswith("--web.config.file=")]
want(len(flags) == 1, "the container has no --web.config.file")
config_path = flags[0].split("=", 1)[1] if flags else ""

volumes = {v["name"]: v for v in pod.get("volumes", [])}
def secret_file(path):
    """The (Secret name, key) a path of the container reads, or None."""
    for m in c.get("volumeMounts", []):
        mount = m["mountPath"].rstrip("/") + "/"
        if path == m["mountPath"] or path.startswith(mount):
            want("subPath" not in m, f"{m['mountPath']} is a subPath mount: Secret updates never reach it")
            v = volumes.get(m["name"], {})
            if "secret" not in v:
                problems.append(f"{m['mountPath']} is not a Secret volume")
                return None
            key = m.get("subPath", "") if path == m["mountPath"] else path[len(mount):]
            return v["secret"]["secretName"], key
    problems.append(f"{path} is not on any volume of the container")
    return None

web = {}
loc = secret_file(config_path)
if loc:
    data = secret_data(loc[0])
    want(loc[1] in data, f"Secret {loc[0]} has no key {loc[1]}")
    web = yaml.safe_load(data.get(loc[1], "")) or {}
    (out / "web.yml").write_text(data.get(loc[1], ""))
tls = web.get("tls_server_config", {})
tls_secret = None
for field in ("cert_file", "key_file"):
    want(field in tls, f"the web config has no tls_server_config.{field}")
    l = secret_file(posixpath.join(posixpath.dirname(config_path), tls.get(field, "")))
    if l:
        tls_secret = l[0]
        want(l[1] in ("tls.crt", "tls.key"), f"{field} is key {l[1]}, not a kubernetes.io/tls key")
users = web.get("basic_auth_users", {})
want(users, "the web config has no basic_auth_users")
def verifies(user, password):
    h = users.get(user)
    return h is not None and crypt.crypt(password, h) == h

# Probes: HTTPS, with credentials of a user of the web config.
for probe in ("livenessProbe", "readinessProbe"):
    g = c.get(probe, {}).get("httpGet", {})
    want(g.get("scheme") == "HTTPS", f"{probe} is not HTTPS")
    auth = [h["value"] for h in g.get("httpHeaders", []) if h["name"].lower() == "authorization"]
    want(len(auth) == 1 and auth[0].startswith("Basic "), f"{probe} sends no basic auth")
    if auth:
        user, _, password = base64.b64decode(auth[0].split(" ", 1)[1]).decode().partition(":")
        want(verifies(user, password), f"{probe}'s credentials do not match the web config")
        (out / f"{probe}.auth").write_text(auth[0])
        (out / f"{probe}.path").write_text(g.get("path", ""))

# The ServiceMonitor: HTTPS, CA and server name of the exporter's certificate, the web config's
# credentials, in its own namespace.
ns = sm["metadata"].get("namespace")
eps = sm["spec"]["endpoints"]
want(len(eps) == 1, "expected one ServiceMonitor endpoint")
ep = eps[0]
want(ep.get("scheme") == "https", "the ServiceMonitor does not scrape over https")
want(ep.get("honorLabels") is True, "the ServiceMonitor lost honorLabels")
ca = ep.get("tlsConfig", {}).get("ca", {}).get("secret", {})
want(ca.get("name") == tls_secret and ca.get("key") == "ca.crt",
     f"tlsConfig.ca is {ca}, not ca.crt of the exporter's certificate Secret {tls_secret}")
want(ep.get("tlsConfig", {}).get("serverName") ==
     f"{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc",
     "tlsConfig.serverName is not the Service's DNS name")
want(ep.get("tlsConfig", {}).get("insecureSkipVerify") is not True, "the scrape skips verification")
ba = ep.get("basicAuth", {})
u, p = ba.get("username", {}), ba.get("password", {})
creds = secret_data(u.get("name")) if u.get("name") == p.get("name") else {}
want(u.get("key") in creds and p.get("key") in creds, "basicAuth names keys its Secret lacks")
for ref in (u, p):
    s = one("Secret", ref.get("name"))
    want(s is None or s["metadata"].get("namespace") == ns, "the basicAuth Secret is not in the ServiceMonitor's namespace")
if creds:
    want(verifies(creds.get(u.get("key")), creds.get(p.get("key"), "")),
         "the ServiceMonitor's credentials do not match the web config")
    (out / "scrape.auth").write_text("%s:%s" % (creds.get(u.get("key")), creds.get(p.get("key"))))
want(ep.get("port") in [pt["name"] for pt in svc["spec"]["ports"]], "the endpoint's port is not the Service's")
print("\n".join(problems) if problems else "fits")
sys.exit(1 if problems else 0)
