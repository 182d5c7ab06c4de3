#!/usr/bin/env bash
# A metric sample takes its family's contract row and one value per label of the row: a sample
# with a label too few or too many, or a histogram written as a gauge, does not compile
# (exporter/metrics/text_writer.h, metric_writer.h). The right sample compiles.
#
# Run from the source root.
set -euo pipefail
cd "$(dirname "$0")/../.."
cxx=${CXX:-c++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

compile() {  # compile NAME BODY -> 0 when the snippet compiles
  cat >"$tmp/$1.cpp" <<CPP
#include "exporter/metrics/text_writer.h"
void F(std::string* out) {
  podwait::TextWriter w(out);
  $2
}
CPP
  "$cxx" -std=c++20 -fsyntax-only -I. "$tmp/$1.cpp" >"$tmp/$1.log" 2>&1
}
expect_ok() {
  if compile "$1" "$2"; then
    echo "ok   compiles: $1"; passed=$((passed + 1))
  else
    echo "FAIL does not compile: $1"; sed 's/^/     /' "$tmp/$1.log"; failed=$((failed + 1))
  fi
}
expect_rejected() {  # expect_rejected NAME BODY MESSAGE
  if compile "$1" "$2"; then
    echo "FAIL compiles, but must not: $1"; failed=$((failed + 1))
  elif grep -q "$3" "$tmp/$1.log"; then
    echo "ok   rejected: $1"; passed=$((passed + 1))
  else
    echo "FAIL rejected for another reason: $1"; sed 's/^/     /' "$tmp/$1.log"; failed=$((failed + 1))
  fi
}

expect_ok "the labels of the row" \
  'w.Sample<podwait::metric::kPdMembers>({"ns", "ns-tc", "healthy"}, 3);'
expect_rejected "a label too few" \
  'w.Sample<podwait::metric::kPdMembers>({"ns", "ns-tc"}, 3);' "one value per label"
expect_rejected "a label too many" \
  'w.Sample<podwait::metric::kAutoscalerDetected>({"karpenter", "extra"}, 1);' "one value per label"
expect_rejected "a histogram written as a gauge" \
  'w.Sample<podwait::metric::kStageDurationSeconds>({"tikv", "initializing", "dependency"}, 1);' \
  "written with Bucket"
expect_rejected "a family with labels written without" \
  'w.Sample<podwait::metric::kObjects>(1);' "static assertion failed"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
