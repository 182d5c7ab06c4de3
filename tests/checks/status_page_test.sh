#!/usr/bin/env bash
# The status page at / in a real headless browser (Debian's chromium) against the demo scenario:
# the pods and their classes are shown, on a laptop-sized and a phone-sized window, and the page's
# Content-Security-Policy blocks nothing it uses (chromium logs no violation; a page whose policy
# does block its style shows that the log would say so). Then the page live (its in-place
# refresh, an opened group kept open, the API server unreachable, no data yet:
# tests/checks/tools/status_page_live.py), and the triage page at 40 clusters of 500 pods from the
# simulator's fleet, under --web.route-prefix, with its size (tests/checks/tools/status_page_fleet.sh).
# Screenshots are kept as test artifacts in $PODWAIT_ARTIFACTS (default: the build dir's artifacts/).
set -euo pipefail
build=${PODWAIT_BUILD_DIR:-build}
artifacts=${PODWAIT_ARTIFACTS:-$build/artifacts}
mkdir -p "$artifacts"
chromium_bin=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium_bin" ]; then
  echo "FAIL: chromium is not installed (scripts/setup.sh test installs it)" >&2
  exit 1
fi
export CHROMIUM="$chromium_bin" ARTIFACTS="$artifacts"

# The inner script expands its variables itself (the stack sets PODWAIT_EXPORTER_URL).
# shellcheck disable=SC2016
python3 tests/e2e/stack.py run --build-dir "$build" --manual --components sim,exporter -- \
  bash -c '
set -euo pipefail
profile=$(mktemp -d)
trap "rm -rf \"$profile\"" EXIT
console=/dev/null
browse_url() {  # browse_url URL WIDTH,HEIGHT OUTPUT-ARGS... (the console log goes to $console)
  local url=$1 size=$2; shift 2
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --enable-logging=stderr --v=0 \
    --user-data-dir="$profile" --hide-scrollbars --window-size="$size" "$@" \
    "$url" 2>"$console"
}
browse() { browse_url "$PODWAIT_EXPORTER_URL/" "$@"; }
# Wait until the exporter has classified the demo (both clusters shown).
for _ in $(seq 1 100); do
  grep -q "shop-tikv-2" <<<"$(curl -fsS "$PODWAIT_EXPORTER_URL/" || true)" && break
  sleep 0.2
done
console=$profile/console.log
dom=$(browse 1280,900 --dump-dom)
fail=0
headers=$(curl -fsS -D - -o /dev/null "$PODWAIT_EXPORTER_URL/")
for h in "Content-Security-Policy: default-src '"'"'none'"'"'" "frame-ancestors '"'"'none'"'"'" \
  "X-Frame-Options: DENY" "X-Content-Type-Options: nosniff" "Cache-Control: no-store"; do
  if grep -qi -- "$h" <<<"$headers"; then echo "ok: / sends $h"; else echo "FAIL: / does not send $h"; fail=1; fi
done
if grep -q "Content Security Policy" "$console"; then
  echo "FAIL: chromium reports a CSP violation on the status page:"; grep "Content Security Policy" "$console"; fail=1
else
  echo "ok: no Content Security Policy violation on the status page"
fi
# The control: a page whose policy blocks its inline style makes chromium log the violation.
mkdir -p "$profile/control"
printf "<!doctype html><html><head><style>body{color:red}</style></head><body>control</body></html>" \
  >"$profile/control/index.html"
control_port=$(python3 -c "import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])")
python3 -c "
import functools, http.server, sys
class H(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header(\"Content-Security-Policy\", \"default-src '"'"'none'"'"'\")
        super().end_headers()
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer((\"127.0.0.1\", int(sys.argv[1])), functools.partial(H, directory=sys.argv[2])).serve_forever()
" "$control_port" "$profile/control" &
control_pid=$!
for _ in $(seq 1 50); do curl -fsS -o /dev/null "http://127.0.0.1:$control_port/" 2>/dev/null && break; sleep 0.1; done
console=$profile/control.log
browse_url "http://127.0.0.1:$control_port/" 800,600 --dump-dom >/dev/null
kill "$control_pid"
if grep -q "Content Security Policy" "$console"; then
  echo "ok: the control page'"'"'s blocked style is reported"
else
  echo "FAIL: chromium did not report the control page'"'"'s CSP violation (the check above could not fail)"; fail=1
fi
console=/dev/null
check() {
  if grep -q -- "$1" <<<"$dom"; then echo "ok: page shows $2"; else echo "FAIL: page does not show $2"; fail=1; fi
}
# Expected waits are counts until opened; filtered to their class, their rows are there.
dom_all=$dom
dom=$(browse_url "$PODWAIT_EXPORTER_URL/?namespace=demo&class=dependency" 1280,900 --dump-dom)
check "demo-tidb-0" "the TiDB pods waiting in init (?class=dependency)"
dom=$(browse_url "$PODWAIT_EXPORTER_URL/?namespace=demo&class=scale_up" 1280,900 --dump-dom)
check "demo-tikv-0" "the TiKV pod waiting for a node (?class=scale_up)"
dom=$dom_all
check "shop-tikv-2" "the capacity-short pod"
check "details class=\"class-dependency\"" "class dependency (collapsed)"
check "details class=\"class-scale_up\"" "class scale_up (collapsed)"
check "data-class=\"capacity\"" "class capacity (its rows)"
check "needs attention" "the unexpected class marked"
check "pd: not_ready" "the PD dependency state"
browse 1280,900 --screenshot="$ARTIFACTS/status-page-laptop.png" >/dev/null
browse 390,844 --screenshot="$ARTIFACTS/status-page-phone.png" >/dev/null
for f in status-page-laptop.png status-page-phone.png; do
  if [ -s "$ARTIFACTS/$f" ]; then echo "ok: screenshot $ARTIFACTS/$f"; else echo "FAIL: no screenshot $f"; fail=1; fi
done
exit $fail
'

# The page live as an on-call uses it, driven over the DevTools protocol: refreshed in place,
# opened groups kept, the API server gone, no data yet (tests/checks/tools/status_page_live.py).
python3 tests/checks/tools/status_page_live.py "$build" "$artifacts"

# 40 generated clusters of 500 pods (tests/sim/README.md, "Load generation": 2,000 dependency
# waits) beside the demo, under a route prefix as behind an ingress sub-path.
exec python3 tests/e2e/stack.py run --build-dir "$build" --manual --components sim,exporter \
  --sim-arg=--generate-clusters=40 --sim-arg=--pods-per-cluster=500 --route-prefix /ops/podwait \
  -- bash tests/checks/tools/status_page_fleet.sh
