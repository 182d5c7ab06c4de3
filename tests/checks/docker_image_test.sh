#!/usr/bin/env bash
# The container image, without a Docker engine: checks the Dockerfile against the house rules
# (tests/deploy/lint_dockerfile.py, and shellcheck on its RUN commands), checks that the runtime
# profile of scripts/setup.sh provides every shared library the built binaries load, and runs
# the builder's steps on exactly the build context .dockerignore lets through: the COPY sources
# exist, every #include resolves, and scripts/build.sh --release --no-tests configures and
# compiles there.
#
# Run from the source root; PODWAIT_BUILD_DIR is the build tree (default: build).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${PODWAIT_BUILD_DIR:-build}
passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- the Dockerfile -------------------------------------------------------------------------------
if python3 tests/deploy/lint_dockerfile.py Dockerfile "$tmp/lint" >"$tmp/lint.log" 2>&1; then
  ok "Dockerfile lint: $(tail -n 1 "$tmp/lint.log")"
else
  bad "Dockerfile lint"
  sed 's/^/     /' "$tmp/lint.log"
fi
for run in "$tmp"/lint/run-*.sh; do
  if shellcheck -s sh "$run" >"$tmp/sc.log" 2>&1; then
    ok "shellcheck of Dockerfile RUN: $(sed -n 2p "$run" | cut -c1-70)"
  else
    bad "shellcheck of Dockerfile RUN"
    sed 's/^/     /' "$tmp/sc.log"
  fi
done
lint_rejects() {  # lint_rejects DESCRIPTION SED-EXPRESSION EXPECTED-MESSAGE
  sed "$2" Dockerfile >"$tmp/Dockerfile.bad"
  if cmp -s Dockerfile "$tmp/Dockerfile.bad"; then
    bad "lint mutation '$1' changed nothing"
  elif python3 tests/deploy/lint_dockerfile.py "$tmp/Dockerfile.bad" "$tmp/lint-bad" >"$tmp/bad.log" 2>&1; then
    bad "the Dockerfile lint accepted $1"
  elif grep -q -- "$3" "$tmp/bad.log"; then
    ok "the Dockerfile lint rejects $1"
  else
    bad "the Dockerfile lint failed on $1 for another reason"
    sed 's/^/     /' "$tmp/bad.log"
  fi
}
lint_rejects "a package installed by name" 's|RUN scripts/setup.sh build|RUN apt-get install -y g++ \&\& scripts/setup.sh build|' \
  "packages come from scripts/setup.sh only"
lint_rejects "running as root" 's|^USER 65532:65532|USER root|' "numeric non-root USER"
lint_rejects "a shell-form entrypoint" 's|^ENTRYPOINT .*|ENTRYPOINT /usr/local/bin/podwait-exporter|' "exec form"
lint_rejects "a runtime stage that installs the build profile" 's|/tmp/setup.sh runtime|/tmp/setup.sh build|' \
  "must not install the build or test profile"

# --- runtime libraries ----------------------------------------------------------------------------
mapfile -t runtime < <(scripts/setup.sh list runtime)
if [ ${#runtime[@]} -gt 0 ]; then
  ok "scripts/setup.sh list runtime: ${runtime[*]}"
else
  bad "scripts/setup.sh list runtime printed nothing"
fi
for p in "${runtime[@]}"; do
  # The builds here use the same packages, so each runtime package is installed on this machine.
  if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" != installed ]; then
    bad "runtime package $p is not a package installed with the build profile's libraries"
  fi
done
# Libraries every debian:bookworm-slim has (dependencies of apt itself).
base_packages=(libc6 libgcc-s1 libstdc++6)
owner() {  # owner LIBRARY-PATH -> the Debian package that ships it (merged /usr aware)
  local path=$1 real
  real=$(readlink -f "$path")
  for candidate in "$path" "$real" "/usr$path" "/usr$real" "${path#/usr}" "${real#/usr}"; do
    dpkg -S "$candidate" 2>/dev/null | sed -n '1s/:.*//p' | grep . && return 0
  done
  return 1
}
binaries=("$build/podwait-exporter")
[ -f wait-for-pd/main.cpp ] && binaries+=("$build/wait-for-pd")
for bin in "${binaries[@]}"; do
  if [ ! -x "$bin" ]; then
    bad "$bin is not built"
    continue
  fi
  missing=()
  while read -r lib path; do
    pkg=$(owner "$path") || { missing+=("$lib (no package owns $path)"); continue; }
    pkg=${pkg%%:*}
    if ! printf '%s\n' "${runtime[@]}" "${base_packages[@]}" | grep -qx "$pkg"; then
      missing+=("$lib from $pkg")
    fi
  done < <(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
    grep -F -f <(readelf -d "$bin" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'))
  if [ ${#missing[@]} -eq 0 ]; then
    ok "every library $(basename "$bin") needs comes from the runtime profile or the base image"
  else
    bad "$(basename "$bin") needs libraries the runtime profile lacks: ${missing[*]}"
  fi
done

# --- the build context ----------------------------------------------------------------------------
ctx=$tmp/ctx
mkdir -p "$ctx"
first=$(grep -v -e '^#' -e '^[[:space:]]*$' .dockerignore | head -n 1)
if [ "$first" != "*" ]; then
  bad ".dockerignore must exclude everything first ('*') and let back what the build needs"
fi
while IFS= read -r pattern; do
  case "$pattern" in
    '*') ;;
    '!'*)
      path=${pattern#!}
      path=${path%/}
      if [ -e "$path" ]; then
        mkdir -p "$ctx/$(dirname "$path")"
        cp -r "$path" "$ctx/$path"
      else
        bad ".dockerignore lets in $path, which does not exist"
      fi
      ;;
    *) bad ".dockerignore pattern '$pattern' is neither '*' nor '!path'" ;;
  esac
done < <(grep -v -e '^#' -e '^[[:space:]]*$' .dockerignore)
while IFS= read -r src; do
  [ -z "$src" ] && continue
  if [ -e "$ctx/$src" ]; then
    ok "COPY source $src is in the build context"
  else
    bad "COPY source $src is not in the build context"
  fi
done <"$tmp/lint/copy-sources.txt"
# Every quoted #include of the sources resolves inside the context (version.h is generated).
unresolved=$(cd "$ctx" && grep -rhoE '^#include "[^"]+"' exporter wait-for-pd 2>/dev/null |
  sed 's/#include "\(.*\)"/\1/' | sort -u | while read -r inc; do
    [ "$inc" = podwait/version.h ] || [ -e "$inc" ] || echo "$inc"
  done)
if [ -z "$unresolved" ]; then
  ok "every #include of exporter/ and wait-for-pd/ resolves in the build context"
else
  bad "includes missing from the build context: $unresolved"
fi
# The builder's build step, in the context: configure in release mode without tests, and
# compile one library (the full build is what scripts/build.sh --release does in the image).
if PODWAIT_JOBS=${PODWAIT_JOBS:-2} "$ctx/scripts/build.sh" --release --no-tests --dir build-release podwait_common \
  >"$tmp/build.log" 2>&1; then
  ok "scripts/build.sh --release --no-tests configures and compiles in the build context"
else
  bad "scripts/build.sh --release --no-tests in the build context"
  tail -n 30 "$tmp/build.log" | sed 's/^/     /'
  finish
fi
defines() { grep -qE "^build $1(:| )" "$ctx/build-release/build.ninja"; }
if defines podwait-exporter; then
  ok "the release build defines podwait-exporter"
else
  bad "the release build does not define podwait-exporter"
fi
if [ -f "$ctx/wait-for-pd/main.cpp" ]; then
  if defines wait-for-pd; then
    ok "the release build defines wait-for-pd (the image ships it)"
  else
    bad "wait-for-pd/main.cpp exists but the release build does not define wait-for-pd"
  fi
fi
if grep -q 'CMAKE_BUILD_TYPE:STRING=Release' "$ctx/build-release/CMakeCache.txt" &&
  grep -q 'PODWAIT_TESTS:BOOL=OFF' "$ctx/build-release/CMakeCache.txt"; then
  ok "the image build is Release without tests"
else
  bad "the image build is not Release without tests"
fi

finish
