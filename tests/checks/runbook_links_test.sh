#!/usr/bin/env bash
# Every runbook_url opens an existing section of the runbook the exporter serves at /runbook:
# the mixin rendered with its externalURL set to a live exporter (under a route prefix, as behind
# an ingress sub-path), and the shipped rules/podwait.rules.yml and deploy/monitoring PrometheusRule
# (whose default base URL is the in-cluster Service; here replaced by the live exporter's). Each URL
# is fetched over HTTP and its #fragment must be an id of the page. The check catches a missing
# section (a rule file pointing at #nosuchalert fails it).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${PODWAIT_BUILD_DIR:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The inner script expands its variables itself (the stack sets PODWAIT_EXPORTER_URL).
# shellcheck disable=SC2016
exec python3 tests/e2e/stack.py run --build-dir "$build" --components sim,exporter \
  --scenario tests/scenarios/empty.json --route-prefix /ops/podwait -- env TMP="$tmp" bash -c '
set -euo pipefail
cat >"$TMP/live.jsonnet" <<JSONNET
(import "mixin.libsonnet") + { _config+:: { externalURL: "$PODWAIT_EXPORTER_URL" } }
JSONNET
mixin/build.sh --out "$TMP/live" --mixin "$TMP/live.jsonnet"
python3 - "$PODWAIT_EXPORTER_URL" "$TMP" <<"PY"
import html.parser, pathlib, sys, urllib.request, yaml

live, tmp = sys.argv[1], pathlib.Path(sys.argv[2])
DEFAULT = "http://podwait-exporter.podwait.svc:9877"

class Ids(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()
    def handle_starttag(self, tag, attrs):
        self.ids.update(v for k, v in attrs if k == "id")

pages = {}
def ids_of(url):
    if url not in pages:
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.status == 200, f"{url}: {r.status}"
            p = Ids()
            p.feed(r.read().decode())
            pages[url] = p.ids
    return pages[url]

def runbook_urls(docs):
    for doc in docs:
        spec = doc.get("spec", doc) if doc else {}
        for group in spec.get("groups", []):
            for rule in group["rules"]:
                if "alert" in rule:
                    yield rule["alert"], rule["annotations"]["runbook_url"]

sources = {
    "the mixin with externalURL set": (tmp / "live/rules/podwait.rules.yml", ""),
    "rules/podwait.rules.yml": (pathlib.Path("rules/podwait.rules.yml"), DEFAULT),
    "deploy/monitoring/prometheusrule.yaml": (pathlib.Path("deploy/monitoring/prometheusrule.yaml"), DEFAULT),
}
failed = 0
for what, (path, base) in sources.items():
    links = list(runbook_urls(yaml.safe_load_all(path.read_text())))
    if len(links) < 10:
        print(f"FAIL: {what}: only {len(links)} alerts with a runbook_url"); failed += 1; continue
    bad = []
    for alert, url in links:
        if base:
            if not url.startswith(base + "/"):
                bad.append(f"{alert}: {url} is not under {base}"); continue
            url = live + url[len(base):]
        page, _, fragment = url.partition("#")
        if not page.startswith(live + "/runbook"):
            bad.append(f"{alert}: {url} does not point at the exporter"); continue
        if not fragment or fragment not in ids_of(page):
            bad.append(f"{alert}: {url}: no element with id {fragment!r} on the page")
    if bad:
        failed += 1
        print(f"FAIL: {what}:"); print("\n".join("  " + b for b in bad))
    else:
        print(f"ok: {what}: {len(links)} runbook links open an existing section of {live}/runbook")

# The control: a link to a section that does not exist is caught.
if "nosuchalert" in ids_of(live + "/runbook"):
    print("FAIL: the control section exists"); failed += 1
else:
    print("ok: the page has no id nosuchalert (a link to it fails the check above)")
sys.exit(1 if failed else 0)
PY
'
