#!/usr/bin/env bash
# Lints what ships beside the binaries: yamllint (with the repository's .yamllint) over deploy/
# and rules/, and shellcheck over the scripts (scripts/*.sh, .ci/run, tests/checks/*.sh). Each
# linter is first shown a known-bad input, so a linter that accepts everything fails the test.
#
# Run from the source root.
set -euo pipefail
cd "$(dirname "$0")/../.."

passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

for tool in yamllint shellcheck; do
  command -v "$tool" >/dev/null || { echo "FAIL $tool not found (scripts/setup.sh test installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- yamllint ---------------------------------------------------------------------------------------
printf 'kind: ConfigMap\nkind: Secret\ndata:   {a: 1 }\n' >"$tmp/bad.yaml"
if yamllint --strict -c .yamllint "$tmp/bad.yaml" >/dev/null 2>&1; then
  bad "yamllint accepted a duplicated key"
else
  ok "yamllint rejects a duplicated key"
fi
if yamllint --strict deploy/ rules/ >"$tmp/yamllint.log" 2>&1; then
  ok "yamllint --strict deploy/ rules/ ($(find deploy rules -name '*.y*ml' -not -path '*/node_modules/*' | wc -l) files)"
else
  bad "yamllint --strict deploy/ rules/"
  sed 's/^/     /' "$tmp/yamllint.log"
fi

# --- shellcheck -------------------------------------------------------------------------------------
cat >"$tmp/bad.sh" <<'BAD'
#!/usr/bin/env bash
rm -rf $1/*
BAD
if shellcheck "$tmp/bad.sh" >/dev/null 2>&1; then
  bad "shellcheck accepted an unquoted rm -rf \$1/*"
else
  ok "shellcheck rejects an unquoted rm -rf \$1/*"
fi
scripts=(scripts/*.sh .ci/run tests/checks/*.sh)
for s in "${scripts[@]}"; do
  if shellcheck -x "$s" >"$tmp/shellcheck.log" 2>&1; then
    ok "shellcheck $s"
  else
    bad "shellcheck $s"
    sed 's/^/     /' "$tmp/shellcheck.log"
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
