#!/usr/bin/env python3
"""Checks podwait's Grafana dashboards.

    check_dashboards.py lint [--rules FILE] [--promtool BIN] DASHBOARD...
    check_dashboards.py live --prometheus URL [--var NAME=VALUE]... [--timeout S] DASHBOARD...

lint applies the key rules of grafana/dashboard-linter, re-implemented here:
  template-datasource     exactly one datasource variable, named "datasource", of type prometheus
  datasource-templated    every panel, target and query variable uses ${datasource}
  template-refresh        query variables refresh on time range change (refresh: 2)
  template-all-value      an "All" option is a regex (allValue ".+" or ".*"), not a value list
  template-undefined      queries only use variables the dashboard defines (or Grafana's $__*)
  panel-title-description every panel (rows excepted) has a title and a description
  panel-units             every panel has fieldConfig.defaults.unit
  panel-targets           every panel has at least one target, each with a non-empty expr; an
                          alert list (alertlist) instead a label filter ({alertname=~"..."}),
                          checked as the query ALERTS{...} by the rules below and by live
  target-rate-interval    rate/irate/increase use [$__rate_interval]
  target-promql           every query is valid PromQL (promtool check rules on a generated file,
                          variables substituted)
  target-metrics          queries only read metrics that podwait's exporter or its recording
                          rules produce (plus process_* and up)
live runs every target and variable query, variables substituted, against a Prometheus HTTP API
and fails for each one that returns no data (it retries until --timeout).
Exit status: 0 when everything passes, 1 otherwise. Only the Python 3 standard library is used.
"""

import argparse
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

# The metric contract (docs/DESIGN.md §5) as `podwait-exporter contract` prints it; the committed
# copy is mixin/contract.json (a test keeps it equal to the binary's output). Histograms are
# expanded to _bucket/_sum/_count below; `up` is Prometheus' own.
CONTRACT_FILE = pathlib.Path(__file__).resolve().parents[2] / "mixin" / "contract.json"
_CONTRACT = json.loads(CONTRACT_FILE.read_text(encoding="utf-8"))
# `up` and `ALERTS` are Prometheus' own (an alert list panel reads the latter).
CONTRACT_METRICS = {m["name"] for m in _CONTRACT["metrics"] if m["type"] != "histogram"} | {"up", "ALERTS"}
CONTRACT_HISTOGRAMS = {m["name"] for m in _CONTRACT["metrics"] if m["type"] == "histogram"}

# Values Grafana gives its own variables; lint and live use the same ones.
BUILTIN_VALUES = {
    "__rate_interval": "1m",
    "__interval": "1m",
    "__interval_ms": "60000",
    "__range": "1h",
    "__range_s": "3600",
    "__range_ms": "3600000",
}
VAR_RE = re.compile(r"\$\{(\w+)(?::[\w]+)?\}|\$(\w+)|\[\[(\w+)(?::\w+)?\]\]")
LABEL_VALUES_RE = re.compile(r"^\s*label_values\((.*),\s*(\w+)\s*\)\s*$", re.S)
QUERY_RESULT_RE = re.compile(r"^\s*query_result\((.*)\)\s*$", re.S)
PROMQL_KEYWORDS = {
    "and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
    "bool", "offset", "inf", "nan", "atan2", "start", "end",
}


class Query:
    """One PromQL expression of a dashboard, with where it came from."""

    def __init__(self, dashboard, where, expr, label=None, variable=None):
        self.dashboard = dashboard  # file name
        self.where = where  # 'panel "Title" target A' or 'variable tidb_cluster'
        self.expr = expr  # PromQL, Grafana variables not yet substituted
        self.label = label  # for label_values(): the label whose values the variable lists
        self.variable = variable  # the variable's name, for variable queries

    def __str__(self):
        return f"{self.dashboard}: {self.where}"


class Dashboard:
    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.name = self.path.name
        self.model = json.loads(self.path.read_text())
        self.variables = self.model.get("templating", {}).get("list", [])

    def panels(self):
        """All panels, the ones inside collapsed rows too, rows included."""
        for p in self.model.get("panels", []):
            yield p
            yield from p.get("panels", []) if p.get("type") == "row" else []

    def queries(self):
        out = []
        for v in self.variables:
            if v.get("type") != "query":
                continue
            q = v.get("query")
            q = q.get("query", "") if isinstance(q, dict) else (q or "")
            name = v.get("name")
            m = LABEL_VALUES_RE.match(q)
            if m:
                out.append(Query(self.name, f"variable {name}", m.group(1), m.group(2), name))
                continue
            m = QUERY_RESULT_RE.match(q)
            out.append(Query(self.name, f"variable {name}", m.group(1) if m else q, None, name))
        for p in self.panels():
            if p.get("type") == "row":
                continue
            if p.get("type") == "alertlist":
                where = f'panel "{p.get("title", "?")}" alert filter'
                out.append(Query(self.name, where, alert_query(p)))
                continue
            for t in p.get("targets", []):
                where = f'panel "{p.get("title", "?")}" target {t.get("refId", "?")}'
                out.append(Query(self.name, where, t.get("expr", "")))
        return out


def alert_query(panel):
    """What an alert list panel shows, as PromQL: the alerts (firing or pending) its label filter
    selects; empty when it has no filter."""
    f = str(panel.get("options", {}).get("alertInstanceLabelFilter", "")).strip()
    return "ALERTS" + f if f.startswith("{") and f.endswith("}") else ""


def is_templated(ds):
    if isinstance(ds, str):
        return ds in ("${datasource}", "$datasource")
    if isinstance(ds, dict):
        return ds.get("uid") in ("${datasource}", "$datasource") and ds.get(
            "type", "prometheus") == "prometheus"
    return False


def substitute(expr, values):
    """Replaces Grafana variables by values; returns (text, names of undefined variables)."""
    missing = []

    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name in values:
            return values[name]
        missing.append(name)
        return m.group(0)

    return VAR_RE.sub(repl, expr), missing


def strip_strings(expr):
    return re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)


def metric_names(expr):
    """Metric names a PromQL expression reads (names in {__name__=...} matchers are not seen)."""
    s = strip_strings(expr)
    s = re.sub(r"\{[^}]*\}", " ", s)  # label matchers
    s = re.sub(r"\[[^\]]*\]", " ", s)  # ranges and subqueries
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", s)
    s = re.sub(r"(?<![\w:.])\d[\w.]*", " ", s)  # numbers and durations
    names = set()
    for m in re.finditer(r"[A-Za-z_:][\w:]*", s):
        if m.group(0).lower() in PROMQL_KEYWORDS:
            continue
        if re.match(r"\s*\(", s[m.end():]):  # a function or an aggregation
            continue
        names.add(m.group(0))
    return names


def rate_ranges(expr):
    """Yields (function, range) for every range selector inside rate/irate/increase."""
    s = strip_strings(expr)
    for m in re.finditer(r"\b(rate|irate|increase)\s*\(", s):
        depth, i = 1, m.end()
        while i < len(s) and depth:
            depth += {"(": 1, ")": -1}.get(s[i], 0)
            i += 1
        for r in re.finditer(r"\[([^\]]*)\]", s[m.end():i]):
            yield m.group(1), r.group(1).strip()


def record_names(rules_file):
    if not rules_file or not os.path.exists(rules_file):
        return set()
    text = pathlib.Path(rules_file).read_text()
    return set(re.findall(r"^\s*-?\s*record:\s*[\"']?([\w:]+)", text, re.M))


def allowed_metric(name, records):
    if name in CONTRACT_METRICS or name in records or name.startswith("process_"):
        return True
    return any(name == h + suffix for h in CONTRACT_HISTOGRAMS
               for suffix in ("_bucket", "_sum", "_count"))


def lint_values(d):
    """Variable values for lint: every query/custom variable matches anything."""
    values = dict(BUILTIN_VALUES)
    for v in d.variables:
        values[v.get("name", "")] = ".+" if v.get("type") != "datasource" else "prometheus"
    return values


def promtool_errors(promtool, exprs):
    """Checks expressions with `promtool check rules`; returns {index: error} for the bad ones."""

    def check(batch):
        rules = [{"record": f"podwait_dashboard_check:query_{i}", "expr": e} for i, e in batch]
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
            json.dump({"groups": [{"name": "dashboard_queries", "rules": rules}]}, f)
        try:
            r = subprocess.run([promtool, "check", "rules", f.name], capture_output=True,
                               text=True, timeout=120)
        finally:
            os.unlink(f.name)
        return r.returncode == 0, (r.stdout + r.stderr).strip()

    batch = list(enumerate(exprs))
    if not batch:
        return {}
    ok, _ = check(batch)
    if ok:
        return {}
    errors = {}
    for item in batch:  # find the culprits one by one
        ok, out = check([item])
        if not ok:
            last = out.splitlines()[-1] if out else "promtool failed"
            errors[item[0]] = re.sub(r"^.*?could not parse expression: ", "", last)
    return errors or {-1: "promtool check rules failed on the batch"}


def lint(d, records, promtool):
    problems = []

    def bad(rule, where, msg):
        problems.append(f"{d.name}: {where}: [{rule}] {msg}")

    m = d.model
    if not m.get("uid"):
        bad("dashboard-uid", "dashboard", "no uid")
    if not m.get("title"):
        bad("dashboard-uid", "dashboard", "no title")

    ds_vars = [v for v in d.variables if v.get("type") == "datasource"]
    if len(ds_vars) != 1:
        bad("template-datasource", "templating", f"{len(ds_vars)} datasource variables, want 1")
    for v in ds_vars:
        if v.get("name") != "datasource":
            bad("template-datasource", f"variable {v.get('name')}", 'must be named "datasource"')
        if v.get("query") != "prometheus":
            bad("template-datasource", f"variable {v.get('name')}", "query must be prometheus")

    for v in d.variables:
        if v.get("type") != "query":
            continue
        where = f"variable {v.get('name')}"
        if not is_templated(v.get("datasource")):
            bad("datasource-templated", where, f"datasource {v.get('datasource')!r}")
        if v.get("refresh") != 2:
            bad("template-refresh", where, "refresh must be 2 (on time range change)")
        if v.get("includeAll") and v.get("allValue") not in (".+", ".*"):
            bad("template-all-value", where, 'an "All" option needs allValue ".+" or ".*"')

    for p in d.panels():
        if p.get("type") == "row":
            continue
        where = f'panel "{p.get("title", "")}" (id {p.get("id")})'
        if not str(p.get("title", "")).strip():
            bad("panel-title-description", where, "no title")
        if not str(p.get("description", "")).strip():
            bad("panel-title-description", where, "no description")
        if not str(p.get("fieldConfig", {}).get("defaults", {}).get("unit", "")).strip():
            bad("panel-units", where, "no fieldConfig.defaults.unit")
        if not is_templated(p.get("datasource")):
            bad("datasource-templated", where, f"datasource {p.get('datasource')!r}")
        tgts = p.get("targets") or []
        if p.get("type") == "alertlist":
            if not alert_query(p):
                bad("panel-targets", where, "an alert list needs an alertInstanceLabelFilter {...}")
        elif not tgts:
            bad("panel-targets", where, "no targets")
        for t in tgts:
            tw = f"{where} target {t.get('refId', '?')}"
            if not str(t.get("expr", "")).strip():
                bad("panel-targets", tw, "empty expr")
            if not is_templated(t.get("datasource")):
                bad("datasource-templated", tw, f"datasource {t.get('datasource')!r}")

    values = lint_values(d)
    queries = [q for q in d.queries() if q.expr.strip()]
    exprs = []
    for q in queries:
        text, missing = substitute(q.expr, values)
        for name in missing:
            bad("template-undefined", q.where, f"${name} is not defined")
        exprs.append(text)
        for fn, rng in rate_ranges(q.expr):
            if rng != "$__rate_interval":
                bad("target-rate-interval", q.where, f"{fn}(...[{rng}]) must use $__rate_interval")
    if shutil.which(promtool) is None:
        bad("target-promql", "queries", f"{promtool} not found: cannot check PromQL")
        return problems
    invalid = promtool_errors(promtool, exprs)
    for i, err in sorted(invalid.items()):
        bad("target-promql", queries[i].where if i >= 0 else "queries", err)
    for i, (q, text) in enumerate(zip(queries, exprs)):
        if i in invalid:  # names read from a query that does not parse would be noise
            continue
        for name in sorted(metric_names(text)):
            if not allowed_metric(name, records):
                bad("target-metrics", q.where, f"{name} is not produced by podwait or its rules")
    return problems


# ---------------------------------------------------------------------------------------------
# live


def prom_query(base, expr):
    url = base.rstrip("/") + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError(body.get("error", "query failed"))
    return body["data"]


def has_numbers(data):
    """Whether an instant query result holds at least one sample that is a number (not NaN)."""
    if data["resultType"] == "scalar":
        samples = [data["result"]]
    elif data["resultType"] == "vector":
        samples = [s["value"] for s in data["result"]]
    elif data["resultType"] == "matrix":
        samples = [v for s in data["result"] for v in s["values"]]
    else:
        return False
    return any(not math.isnan(float(v[1])) for v in samples)


def live_check(base, q, values, allow_empty):
    """Returns None when the query returns data, else why not."""
    text, missing = substitute(q.expr, values)
    if missing:
        return f"undefined variables {missing}"
    if q.label:  # label_values(selector, label): the variable lists the label's values
        expr = f"count by ({q.label}) ({text})"
    else:
        expr = text
    try:
        data = prom_query(base, expr)
    except Exception as e:  # noqa: BLE001 - any transport or API error is a failure to report
        return f"error: {e}"
    if not has_numbers(data):
        return "no data"
    if q.label:
        got = {s["metric"].get(q.label, "") for s in data["result"]} - {""}
        if not got and q.variable not in allow_empty:
            return f"no series has a {q.label} label"
        want = values.get(q.variable)
        if got and want and not any(re.fullmatch(want, g) for g in got):
            return f"{q.label} values {sorted(got)} do not include {want}"
    return None


def live(dashboards, base, extra_values, allow_empty, timeout, interval):
    pending = []
    for d in dashboards:
        values = dict(BUILTIN_VALUES)
        values["datasource"] = "prometheus"
        values.update(extra_values)
        pending += [(q, values) for q in d.queries() if q.expr.strip()]
    total = len(pending)
    deadline = time.monotonic() + timeout
    failures = {}
    while True:
        failures = {}
        for q, values in pending:
            why = live_check(base, q, values, allow_empty)
            if why:
                failures[q] = why
        pending = [(q, v) for q, v in pending if q in failures]
        if not pending or time.monotonic() >= deadline:
            break
        time.sleep(interval)
    for q, why in failures.items():
        print(f"FAIL {q}: {why}\n     {q.expr}")
    print(f"live: {total - len(failures)} passed, {len(failures)} failed")
    return not failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lp = sub.add_parser("lint", help="static checks")
    lp.add_argument("--rules", default="rules/podwait.rules.yml",
                    help="recording rules whose record names queries may read")
    lp.add_argument("--promtool", default="promtool")
    lp.add_argument("dashboards", nargs="+")
    vp = sub.add_parser("live", help="run every query against Prometheus")
    vp.add_argument("--prometheus", required=True, help="base URL, e.g. http://127.0.0.1:9090")
    vp.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                    help="value of a dashboard variable (a regex for =~ matchers)")
    vp.add_argument("--allow-empty", action="append", default=[], metavar="VARIABLE",
                    help="a label_values variable that may list no value (its series must "
                         "still exist), e.g. cluster in a single-cluster Prometheus")
    vp.add_argument("--timeout", type=float, default=120, help="seconds to wait for data")
    vp.add_argument("--interval", type=float, default=2, help="seconds between rounds")
    vp.add_argument("dashboards", nargs="+")
    args = ap.parse_args()

    try:
        dashboards = [Dashboard(p) for p in args.dashboards]
    except (OSError, ValueError) as e:
        print(f"cannot read dashboard: {e}", file=sys.stderr)
        return 1
    if args.cmd == "lint":
        records = record_names(args.rules)
        problems = []
        for d in dashboards:
            problems += lint(d, records, args.promtool)
        for p in problems:
            print(p)
        print(f"lint: {len(dashboards)} dashboard(s), {len(problems)} problem(s)")
        return 1 if problems else 0
    values = dict(v.split("=", 1) for v in args.var)
    ok = live(dashboards, args.prometheus, values, set(args.allow_empty), args.timeout,
              args.interval)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
