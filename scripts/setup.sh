#!/usr/bin/env bash
# Installs the Debian bookworm packages podwait needs. The one place that lists system packages:
# the README, .ci/run and the Dockerfile all call this script.
#
#   scripts/setup.sh [build|test|runtime|list PROFILE]
#     build    compilers and libraries to build podwait (default)
#     test     build + what the test suite runs (promtool, Alertmanager, chromium, kubectl, ...)
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
  kubernetes-client
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
  yamllint
)

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
# with Debian's npm; a kubectl package from upstream owns /usr/bin/kubectl): the command counts.
command_for() {
  case "$1" in
    nodejs) echo node ;;
    npm) echo npm ;;
    kubernetes-client) echo kubectl ;;
    *) echo "" ;;
  esac
}

missing=()
for p in "${packages[@]}"; do
  cmd=$(command_for "$p")
  if [ -n "$cmd" ] && command -v "$cmd" >/dev/null 2>&1; then
    continue
  fi
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing packages: ${missing[*]}" >&2
  echo "setup: run as root (or with sudo) to install them" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Packaged services (prometheus, alertmanager) must not start on install: tests start their own.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && created_policy=1
fi
trap '[ $created_policy -eq 1 ] && rm -f "$policy"' EXIT
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
