#!/usr/bin/env bash
# The kubectl plugin's release archive and krew manifest:
#   scripts/krew-package.sh VERSION BASE_URL OUT_DIR [BINARY]
# writes OUT_DIR/kubectl-podwait_<VERSION>_linux_amd64.tar.gz (the binary as kubectl-podwait) and
# OUT_DIR/podwait.yaml (deploy/krew/podwait.yaml with the version, BASE_URL/<archive> and the
# archive's sha256). BINARY defaults to build/podwait-exporter.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 VERSION BASE_URL OUT_DIR [BINARY]" >&2; exit 2; }
version=${1#v}
base=${2%/}
out=$3
binary=${4:-build/podwait-exporter}
[ -x "$binary" ] || { echo "$binary: not an executable (build first)" >&2; exit 2; }
archive=kubectl-podwait_${version}_linux_amd64.tar.gz
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
cp "$binary" "$stage/kubectl-podwait"
chmod 755 "$stage/kubectl-podwait"
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$out/$archive" kubectl-podwait
sha=$(sha256sum "$out/$archive" | cut -d' ' -f1)
sed -e "s|@VERSION@|$version|" -e "s|@URI@|$base/$archive|" -e "s|@SHA256@|$sha|" \
    -e "s|@HOMEPAGE@|${PODWAIT_HOMEPAGE:-$base}|" deploy/krew/podwait.yaml |
  grep -v '^# ' >"$out/podwait.yaml"
echo "$out/$archive"
echo "$out/podwait.yaml"
