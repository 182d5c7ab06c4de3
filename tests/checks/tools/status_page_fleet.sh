#!/usr/bin/env bash
# Part of status_page_test.sh: the status page as a triage tool at 40 clusters, in headless
# chromium, under a route prefix. Runs inside `stack.py run` (PODWAIT_EXPORTER_URL ends with the
# prefix); needs CHROMIUM, ARTIFACTS and PODWAIT_BUILD_DIR.
set -euo pipefail
url=$PODWAIT_EXPORTER_URL
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
browse() {  # browse URL WIDTH,HEIGHT OUTPUT-ARGS... (the console log goes to $profile/console.log)
  local page=$1 size=$2; shift 2
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --enable-logging=stderr --v=0 \
    --user-data-dir="$profile" --hide-scrollbars --window-size="$size" "$@" \
    "$page" 2>>"$profile/console.log"
}
# Wait until the fleet is classified: the generated clusters' capacity pods and their 2,000
# dependency waits are shown.
for _ in $(seq 1 300); do
  n=$(curl -fsS "$url/api/v1/pods" | python3 -c 'import json,sys; p=json.load(sys.stdin)["pods"]; print(len(p) if sum(x["class"] == "capacity" for x in p) >= 4 else 0)' || echo 0)
  [ "$n" -ge 2000 ] && break
  sleep 0.2
done
mkdir -p "$profile/dom"
curl -fsS "$url/" >"$profile/page.html"
curl -fsS -H 'Accept-Encoding: gzip' "$url/" >"$profile/page.html.gz"
browse "$url/" 1280,900 --dump-dom >"$profile/dom/all.html"
for q in class=capacity class=dependency cluster=load-0002-tc-0002 namespace=load-0001 namespace=nosuch; do
  browse "$url/?$q" 1280,900 --dump-dom >"$profile/dom/$q.html"
done
browse "$url/runbook" 1280,900 --dump-dom >"$profile/dom/runbook.html"
browse "$url/" 1280,900 --screenshot="$ARTIFACTS/status-page-40-clusters-desktop.png" >/dev/null
browse "$url/" 390,844 --screenshot="$ARTIFACTS/status-page-40-clusters-phone.png" >/dev/null
curl -fsS "$url/api/v1/pods" >"$profile/pods.json"
version=$("$PODWAIT_BUILD_DIR/podwait-exporter" --version 2>&1 | head -1)
exec python3 tests/checks/tools/status_page_fleet.py "$url" "$profile" "$version" "$ARTIFACTS"
