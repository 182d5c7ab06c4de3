#!/usr/bin/env python3
"""The vocabulary and the metric table of `podwait-exporter contract` against every place that
lists them: mixin/contract.json (its committed output), README's class table, RUNBOOK's class
table, docs/DESIGN.md's class and metric tables, and the overview dashboard's legend (the colour
of each class in "Waiting pods by class") and its two stat panels (which classes are expected).

usage: contract_docs.py CONTRACT_JSON_FROM_THE_BINARY [SOURCE_DIR]
"""
import json
import os
import re
import sys


def table_first_column(text, heading_re):
    """The backquoted first cells of the first Markdown table after a heading matching."""
    m = re.search(heading_re, text, re.M)
    if not m:
        return None
    rows, started = [], False
    for line in text[m.end():].splitlines():
        if line.startswith("|"):
            started = True
            cell = line.split("|")[1].strip()
            mm = re.fullmatch(r"`([a-z_0-9]+)`", cell)
            if mm:
                rows.append(mm.group(1))
        elif started:
            break
    return rows


def main():
    live = json.load(open(sys.argv[1], encoding="utf-8"))
    src = sys.argv[2] if len(sys.argv) > 2 else "."
    read = lambda rel: open(os.path.join(src, rel), encoding="utf-8").read()
    problems = []

    committed = json.loads(read("mixin/contract.json"))
    if committed != live:
        problems.append("mixin/contract.json differs from `podwait-exporter contract`: "
                        "run build/podwait-exporter contract > mixin/contract.json")

    classes = [c["name"] for c in live["classes"]]
    expected = {c["name"] for c in live["classes"] if c["expected"]}
    metrics = [m["name"] for m in live["metrics"]]

    places = {
        "README.md (the class table of \"What it tells you\")":
            table_first_column(read("README.md"), r"^\| class \| expected\? \|"),
        "rules/RUNBOOK.md (## Classes)": table_first_column(read("rules/RUNBOOK.md"), r"^## Classes"),
        "docs/DESIGN.md (the class table of §4)":
            table_first_column(read("docs/DESIGN.md"), r"^\| class \| expected\? \| stages \|"),
    }
    for where, rows in places.items():
        if rows is None:
            problems.append(f"{where}: no class table")
            continue
        for c in classes:
            if c not in rows:
                problems.append(f"{where}: class {c} is missing")
        for r in rows:
            if r not in classes:
                problems.append(f"{where}: {r} is not a class of the contract")

    design_metrics = table_first_column(read("docs/DESIGN.md"), r"^## 5\. Metric contract")
    for m in metrics:
        if m not in (design_metrics or []):
            problems.append(f"docs/DESIGN.md (§5): metric {m} is missing")
    for m in design_metrics or []:
        if m not in metrics:
            problems.append(f"docs/DESIGN.md (§5): {m} is not a metric of the contract")

    overview = json.loads(read("dashboards/podwait-overview.json"))
    panels = {p.get("title"): p for p in overview.get("panels", [])}
    legend = panels.get("Waiting pods by class", {})
    colours = {o["matcher"]["options"] for o in legend.get("fieldConfig", {}).get("overrides", [])}
    for c in classes:
        if c not in colours:
            problems.append(f"dashboards/podwait-overview.json: class {c} has no colour in the "
                            "legend of \"Waiting pods by class\"")
    for title, want in (("Pods waiting as designed", expected),
                        ("Pods waiting on a shortfall", set(classes) - expected)):
        desc = panels.get(title, {}).get("description", "")
        for c in sorted(want):
            if not re.search(r"\b" + re.escape(c) + r"\b", desc):
                problems.append(f"dashboards/podwait-overview.json: \"{title}\" does not name {c}")

    for p in problems:
        print(p)
    print(f"contract docs: {len(classes)} classes, {len(metrics)} metrics, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
