"""The 40-cluster status page, as chromium parsed it (status_page_fleet.sh dumps the DOMs):
summary line, problems above expected groups, collapsed expected groups (counts, no rows),
natural sort, filters, times, version, runbook links, relative links, the empty state, the route
prefix, and the page's size at the fleet (under 250 KB at 2,000 waiting pods).

usage: status_page_fleet.py URL DOM_DIR VERSION_LINE ARTIFACTS
"""

import html.parser
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

url, dom_dir, version_line, artifacts = sys.argv[1:5]
page_url = url + "/"
failed = 0


def check(cond, what):
    global failed
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failed += 1


class Page(html.parser.HTMLParser):
    """The parts of the page the checks look at, in document order."""

    def __init__(self):
        super().__init__()
        # ("attention", class) / ("expected", class, open) / ("row", class, pod) / ("count", n)
        self.events = []
        self.hrefs, self.ids, self.times = [], set(), []
        self.text = []
        self.clusters = []  # cluster heading texts in order
        self._td = None
        self._row_class = None
        self._in_h3 = False
        self._h3 = ""
        self._part = None
        self._tag = None
        self.headings = []  # (part id, "namespace / cluster")

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        if tag == "h4" and (a.get("class") or "").startswith("class-"):
            self.events.append(("attention", a["class"][6:]))
        if tag == "details":
            self.events.append(("expected", a["class"][6:], "open" in a))
        if tag == "tr" and "data-class" in a:
            self._row_class = a["data-class"]
        if tag == "td":
            self._td = a.get("class")
        if tag == "time":
            self.times.append(a)
        if tag == "h3":
            self._in_h3, self._h3 = True, ""
        if tag == "h2" and "id" in a:
            self._part = a["id"]
        self._tag = tag

    def handle_endtag(self, tag):
        if tag == "td":
            self._td = None
        if tag == "h3":
            self._in_h3 = False
            self.clusters.append(self._h3.strip())
            self.headings.append((self._part, self._h3.strip()))

    def handle_data(self, data):
        self.text.append(data)
        m = re.fullmatch(r"(\d+) pods?, expected wait", data)
        if m and self._tag == "span":
            self.events.append(("count", int(m.group(1))))
        if self._td == "pod" and self._row_class:
            self.events.append(("row", self._row_class, data))
        if self._in_h3:
            self._h3 += data


def load(name):
    p = Page()
    with open(os.path.join(dom_dir, "dom", name + ".html"), encoding="utf-8") as f:
        p.feed(f.read())
    p.all_text = " ".join("".join(p.text).split())
    return p


def natural_key(s):
    return [(0, int(t), t) if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", s)]


def get(u):
    req = urllib.request.Request(u)
    try:
        with urllib.request.build_opener(NoRedirect).open(req, timeout=10) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, ""


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


with open(os.path.join(dom_dir, "pods.json")) as f:
    view = json.load(f)
pods = view["pods"]
attention = sum(1 for p in pods if not p["expected"])
expected = sum(1 for p in pods if p["expected"])
clusters = len(view["clusters"])
page = load("all")

# The summary line counts what the JSON view lists.
summary = f"{attention} need attention, {expected} expected in {clusters} clusters"
check(summary in page.all_text, f"summary line '{summary}' ({len(pods)} waiting pods)")
check(clusters >= 40 and expected >= 1900 and attention > 0,
      f"the fleet: {clusters} clusters, {expected} expected waits, {attention} needing attention")

# The page at the fleet: its problems' rows and a count per expected group, not 2,000 rows.
size = os.path.getsize(os.path.join(dom_dir, "page.html"))
gzipped = os.path.getsize(os.path.join(dom_dir, "page.html.gz"))
check(len(pods) >= 2000 and size < 250 * 1024,
      f"the page at {len(pods)} waiting pods is {size} bytes ({gzipped} gzipped), under 250 KB")

# Every needs-attention group of every cluster above every expected group; expected collapsed.
kinds = [e[0] for e in page.events if e[0] != "row"]
first_expected = kinds.index("expected") if "expected" in kinds else len(kinds)
check("expected" in kinds and "attention" not in kinds[first_expected:],
      f"all {kinds.count('attention')} needs-attention groups come before the "
      f"{kinds.count('expected')} expected groups")
check(all(not e[2] for e in page.events if e[0] == "expected"),
      "every expected group is collapsed (<details> without open)")
rows = [e for e in page.events if e[0] == "row"]
check(len(rows) == attention and all(not p["expected"] for p in pods if p["pod"] in {r[2] for r in rows}),
      f"every pod that needs attention has a row ({len(rows)} of {attention})")
counted = sum(e[1] for e in page.events if e[0] == "count")
check(counted == expected, f"the expected groups count every expected wait ({counted} of {expected})")

# Natural sort: pods within each group (the expected groups' rows, on the page filtered to them),
# clusters within each part.
groups, current = [], None
for e in load("class=dependency").events:
    if e[0] in ("attention", "expected"):
        current = []
        groups.append(current)
    elif e[0] == "row" and current is not None:
        current.append(e[2])
unsorted = [g for g in groups if g != sorted(g, key=natural_key)]
differs = [g for g in groups if g != sorted(g)]
example = next(((a, b) for g in differs for a, b in zip(g, g[1:]) if a > b), None)
check(not unsorted and differs,
      f"pods in natural order in all {len(groups)} groups ({len(differs)} differ from string order: "
      f"{example[0] if example else '-'} before {example[1] if example else '-'})")
parts = {}
for part, name in page.headings:
    parts.setdefault(part, []).append(tuple(name.split(" / ")))
check(set(parts) == {"attention", "expected"} and all(
    v == sorted(v, key=lambda k: (natural_key(k[0]), natural_key(k[1]))) for v in parts.values()),
      f"clusters in natural order in each part ({ {k: len(v) for k, v in parts.items()} })")

# Absolute times on hover.
waiting_times = [t for t in page.times if t.get("title", "").startswith("since ")]
check(len(waiting_times) == attention and all(
    re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", t["datetime"]) and t["title"] == "since " + t["datetime"]
    for t in waiting_times), f"every waiting time is a <time> with its absolute time ({len(waiting_times)})")

# The version.
m = re.search(r"version ([0-9][^ ,]*)", version_line)
check(m and f"version {m.group(1)}" in page.all_text, f"the page shows the version of '{version_line}'")

# Relative links only, and each resolves under the prefix.
absolute = [h for h in page.hrefs if h.startswith("/") or re.match(r"[a-z]+:", h)]
check(not absolute, f"all {len(page.hrefs)} links are relative ({absolute[:3]})")
targets = sorted({urllib.parse.urljoin(page_url, h).split("#")[0] for h in page.hrefs})
bad = [(t, s) for t in targets for s in [get(t)[0]] if s != 200]
check(not bad and any(t.endswith("/metrics") for t in targets),
      f"every link target answers 200 under {url} ({len(targets)} targets; bad: {bad[:3]})")

# A runbook link per class, to an existing row of the served runbook.
runbook = load("runbook")
classes = {e[1] for e in page.events if e[0] in ("attention", "expected")}
links = {h for h in page.hrefs if h.startswith("runbook#class-")}
check(classes and {f"runbook#class-{c}" for c in classes} <= links and
      all(h.split("#")[1] in runbook.ids for h in links),
      f"each class shown ({', '.join(sorted(classes))}) links its row of the runbook")

# Filters are query parameters.
cap = load("class=capacity")
cap_rows = [e for e in cap.events if e[0] == "row"]
want = sum(1 for p in pods if p["class"] == "capacity")
check(cap_rows and all(e[1] == "capacity" for e in cap_rows) and len(cap_rows) == want,
      f"?class=capacity shows the {want} capacity pods only")
check("?class=capacity" in page.hrefs, "the page links ?class=capacity")
dep = load("class=dependency")
check(all(e[2] for e in dep.events if e[0] == "expected"), "?class=dependency opens its groups")
one = load("cluster=load-0002-tc-0002")
check([c for c in one.clusters if " / " in c] == ["load-0002 / tc-0002"],
      f"?cluster=load-0002-tc-0002 shows that cluster only ({one.clusters[:3]})")
check("?cluster=load-0002-tc-0002" in page.hrefs, "the cluster's name links ?cluster=")
ns = load("namespace=load-0001")
check({c.split(" / ")[0] for c in ns.clusters if " / " in c} == {"load-0001"},
      "?namespace=load-0001 shows that namespace only")

# The empty state names the selector, the namespaces and the sync state.
empty = load("namespace=nosuch")
check("No waiting pods match this filter." in empty.all_text and
      "app.kubernetes.io/managed-by=tidb-operator" in empty.all_text and
      "in all namespaces" in empty.all_text and "Every watch has synced" in empty.all_text,
      "the empty state names selector, namespaces and sync state")

# The route prefix: the page lives under it, "<prefix>" redirects, the root is not served.
base = urllib.parse.urlsplit(url)
root = f"{base.scheme}://{base.netloc}"
status, headers, _ = get(url)
check(status == 302 and headers.get("Location") == base.path + "/",
      f"{base.path} redirects to {base.path}/ ({status} {headers.get('Location')})")
check(get(root + "/")[0] == 404 and get(root + "/metrics")[0] == 404,
      "nothing is served outside the route prefix")

# Behind kubectl proxy: the page is reached under a path the exporter never sees (the proxy
# strips it); its relative links must resolve under that path too. A small proxy here does what
# kubectl proxy does with /api/v1/namespaces/NS/services/NAME:PORT/proxy/.
PROXY_PATH = "/api/v1/namespaces/podwait/services/podwait-exporter:9877/proxy"


class Proxy(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if not self.path.startswith(PROXY_PATH + "/"):
            self.send_error(404)
            return
        status, headers, body = get(url + self.path[len(PROXY_PATH):])
        data = body.encode()
        self.send_response(status)
        for name in ("Content-Type", "Content-Security-Policy"):
            if headers.get(name):
                self.send_header(name, headers[name])
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
threading.Thread(target=proxy.serve_forever, daemon=True).start()
proxied = f"http://127.0.0.1:{proxy.server_address[1]}{PROXY_PATH}/"
dom = subprocess.run(
    ["timeout", "60", os.environ["CHROMIUM"], "--headless", "--no-sandbox", "--disable-gpu",
     "--no-first-run", "--disable-background-networking", "--disable-component-update",
     f"--user-data-dir={dom_dir}/proxy-profile", "--dump-dom", proxied + "?class=capacity"],
    capture_output=True, text=True, check=False).stdout
behind = Page()
behind.feed(dom)
targets = sorted({urllib.parse.urljoin(proxied, h).split("#")[0] for h in behind.hrefs})
bad = [(t, s) for t in targets for s in [get(t)[0]] if s != 200]
check(len([e for e in behind.events if e[0] == "row"]) == want and targets and not bad and
      all(t.startswith(proxied) for t in targets),
      f"behind a kubectl-proxy-like path every link ({len(targets)}) resolves under it: {bad[:3]}")
proxy.shutdown()

# Phone: the viewport meta (the screenshot shows the evidence at 390 px).
with open(os.path.join(dom_dir, "dom", "all.html"), encoding="utf-8") as f:
    check('name="viewport" content="width=device-width' in f.read(), "viewport meta for phones")

with open(os.path.join(dom_dir, "console.log"), errors="replace") as f:
    csp = [l for l in f if "Content Security Policy" in l]
check(not csp, f"no Content Security Policy violation on the fleet page or the runbook {csp[:1]}")
for shot in ("status-page-40-clusters-desktop.png", "status-page-40-clusters-phone.png"):
    path = os.path.join(artifacts, shot)
    check(os.path.getsize(path) > 0 if os.path.exists(path) else False, f"screenshot {path}")
sys.exit(1 if failed else 0)
