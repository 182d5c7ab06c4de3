#!/usr/bin/env bash
# The status page at / in a real headless browser (Debian's chromium) against the demo scenario:
# the pods and their classes are shown, on a laptop-sized and a phone-sized window. Screenshots are
# kept as test artifacts in $PODWAIT_ARTIFACTS (default: the build dir's artifacts/).
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
exec python3 tests/e2e/stack.py run --build-dir "$build" --manual --components sim,exporter -- \
  bash -c '
set -euo pipefail
profile=$(mktemp -d)
trap "rm -rf \"$profile\"" EXIT
browse() {  # browse WIDTH,HEIGHT OUTPUT-ARGS...
  local size=$1; shift
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size="$size" "$@" \
    "$PODWAIT_EXPORTER_URL/" 2>/dev/null
}
# Wait until the exporter has classified the demo (both clusters shown).
for _ in $(seq 1 100); do
  curl -fsS "$PODWAIT_EXPORTER_URL/" | grep -q "shop-tikv-2" && break
  sleep 0.2
done
dom=$(browse 1280,900 --dump-dom)
fail=0
check() {
  if grep -q -- "$1" <<<"$dom"; then echo "ok: page shows $2"; else echo "FAIL: page does not show $2"; fail=1; fi
}
check "demo-tidb-0" "the TiDB pods waiting in init"
check "demo-tikv-0" "the TiKV pod waiting for a node"
check "shop-tikv-2" "the capacity-short pod"
check "data-class=\"dependency\"" "class dependency"
check "data-class=\"scale_up\"" "class scale_up"
check "data-class=\"capacity\"" "class capacity"
check "needs attention" "the unexpected class marked"
check "pd: not_ready" "the PD dependency state"
browse 1280,900 --screenshot="$ARTIFACTS/status-page-laptop.png" >/dev/null
browse 390,844 --screenshot="$ARTIFACTS/status-page-phone.png" >/dev/null
for f in status-page-laptop.png status-page-phone.png; do
  if [ -s "$ARTIFACTS/$f" ]; then echo "ok: screenshot $ARTIFACTS/$f"; else echo "FAIL: no screenshot $f"; fail=1; fi
done
exit $fail
'
