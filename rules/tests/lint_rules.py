#!/usr/bin/env python3
"""Checks of rules/ that promtool and amtool do not make.

- Every alert has a severity (critical, warning or info), a summary, a templated description and a
  an absolute runbook_url ending in an existing section of rules/RUNBOOK.md; `for:` or `keep_firing_for:`.
- The fixed recording rules exist, and every aggregation or vector match keeps the `cluster` label.
- Every alert has promtool tests in rules/tests/ where it fires and, later in the same test, has
  resolved (an empty exp_alerts after a non-empty one).
- rules/examples/alertmanager.yml contains every inhibit rule of rules/alertmanager-inhibit.yml.

Usage: lint_rules.py [RULES_DIR]   (default: the directory above this file). Exit 1 on problems.
"""

import glob
import os
import re
import sys

import yaml

FIXED_RECORDS = {
    "namespace_tidb_cluster_class:podwait_waiting_pods:sum",
    "namespace_tidb_cluster_class:podwait_waiting_oldest_seconds:max",
    "class:podwait_waiting_pods:sum",
    "component_stage_class_le:podwait_stage_duration_seconds_bucket:rate5m",
}
SEVERITIES = {"critical", "warning", "info"}
# by (...) / on (...) label lists in PromQL.
GROUPING = re.compile(r"\b(by|on)\s*\(([^)]*)\)")


def github_anchor(heading):
    """The anchor GitHub gives a Markdown heading."""
    slug = heading.strip().lower()
    slug = re.sub(r"[^\w\- ]", "", slug)
    return slug.replace(" ", "-")


def parse_duration(text):
    """Seconds of a Prometheus duration like 1m30s; None when unparsable."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
    parts = re.findall(r"(\d+)(ms|s|m|h|d|w|y)", str(text))
    if not parts or "".join(n + u for n, u in parts) != str(text):
        return None
    return sum(int(n) * units[u] for n, u in parts)


def main():
    rules_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = []

    with open(os.path.join(rules_dir, "podwait.rules.yml")) as f:
        groups = yaml.safe_load(f)["groups"]
    with open(os.path.join(rules_dir, "RUNBOOK.md")) as f:
        anchors = {github_anchor(m.group(1)) for m in re.finditer(r"^##+ (.+)$", f.read(), re.M)}

    alerts = {}
    records = set()
    for group in groups:
        for rule in group["rules"]:
            expr = rule["expr"]
            for kind, labels in GROUPING.findall(expr):
                names = [l.strip() for l in labels.split(",") if l.strip()]
                if "cluster" not in names:
                    problems.append(f"{rule.get('alert') or rule.get('record')}: '{kind} ({labels})' drops the cluster label")
            if "record" in rule:
                records.add(rule["record"])
                continue
            name = rule["alert"]
            alerts[name] = rule
            severity = rule.get("labels", {}).get("severity")
            if severity not in SEVERITIES:
                problems.append(f"{name}: severity {severity!r} is not one of {sorted(SEVERITIES)}")
            annotations = rule.get("annotations", {})
            for key in ("summary", "description", "runbook_url"):
                if not annotations.get(key):
                    problems.append(f"{name}: no {key} annotation")
            if "{{" not in annotations.get("description", ""):
                problems.append(f"{name}: description is not templated")
            url = annotations.get("runbook_url", "")
            # Absolute (a relative link opens nothing in a notification), ending in the alert's
            # section; tests/checks/runbook_links_test.sh follows each to the served /runbook.
            if not re.match(r"https?://[^/\s]+", url):
                problems.append(f"{name}: runbook_url {url!r} is not an absolute http(s) URL")
            if not url.endswith("#" + name.lower()):
                problems.append(f"{name}: runbook_url {url!r} does not end in #{name.lower()}")
            if name.lower() not in anchors:
                problems.append(f"{name}: RUNBOOK.md has no section '## {name}'")
            if "for" not in rule and "keep_firing_for" not in rule:
                problems.append(f"{name}: neither for: nor keep_firing_for:")
            for key in ("for", "keep_firing_for"):
                if key in rule and parse_duration(rule[key]) is None:
                    problems.append(f"{name}: {key}: {rule[key]!r} is not a duration")

    for missing in sorted(FIXED_RECORDS - records):
        problems.append(f"recording rule {missing} is missing")

    # Test coverage: fires, then resolves, within one test.
    fires, resolves = set(), set()
    for path in sorted(glob.glob(os.path.join(rules_dir, "tests", "*.yml"))):
        with open(path) as f:
            doc = yaml.safe_load(f)
        for test in doc.get("tests", []):
            firing_at = {}
            for case in test.get("alert_rule_test", []):
                t = parse_duration(case["eval_time"])
                name = case["alertname"]
                if case.get("exp_alerts"):
                    fires.add(name)
                    firing_at[name] = min(t, firing_at.get(name, t))
                elif name in firing_at and t > firing_at[name]:
                    resolves.add(name)
    for name in sorted(alerts):
        if name not in fires:
            problems.append(f"{name}: no promtool test where it fires")
        if name not in resolves:
            problems.append(f"{name}: no promtool test where it fires and then resolves")

    # The example Alertmanager configuration carries podwait's inhibitions unchanged.
    with open(os.path.join(rules_dir, "alertmanager-inhibit.yml")) as f:
        ours = yaml.safe_load(f)["inhibit_rules"]
    with open(os.path.join(rules_dir, "examples", "alertmanager.yml")) as f:
        example = yaml.safe_load(f).get("inhibit_rules", [])
    for rule in ours:
        if rule not in example:
            problems.append(f"examples/alertmanager.yml lacks inhibit rule {rule}")
        if "cluster" not in rule.get("equal", []):
            problems.append(f"inhibit rule {rule} does not require an equal cluster label")
    for rule in ours:
        for matcher in rule["source_matchers"]:
            m = re.fullmatch(r"alertname\s*=\s*(\w+)", matcher)
            if m and m.group(1) not in alerts:
                problems.append(f"inhibit source {m.group(1)} is not an alert of podwait.rules.yml")

    for p in problems:
        print("lint_rules: " + p, file=sys.stderr)
    if problems:
        return 1
    print(f"lint_rules: {len(alerts)} alerts, {len(records)} recording rules, {len(ours)} inhibit rules: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
