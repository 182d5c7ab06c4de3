#!/usr/bin/env python3
"""podwait's end-to-end stack on loopback: simulator, exporter, Prometheus, Alertmanager, webhook.

Every process listens on 127.0.0.1 on a free port, keeps its data and log in one work directory,
and is stopped (by its own pid) when the stack stops, also on an exception or a signal. Every wait
is bounded. Standard library only, plus PyYAML for the rule files.

As a library (see tests/e2e/README.md):

    from stack import Stack
    with Stack(manual=True) as s:          # starts everything; stops everything on exit
        s.wait_query('podwait_waiting_pods', timeout=60)
        s.sim_advance(to='pd-ready')

As a command:

    stack.py run [options] -- CMD ARGS...  # start, run CMD with PODWAIT_*_URL set, stop
    stack.py up [options]                  # start, print the URLs, run until Ctrl-C
"""

import argparse
import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import yaml

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPONENTS = ("sim", "exporter", "prometheus", "alertmanager")
# Extra exporter flags for a stack that should react within seconds.
FAST_EXPORTER_ARGS = ("--pd.interval=1s", "--pd.timeout=1s")


class StackError(Exception):
    """A component did not start or a wait timed out; the message says which and why."""


def free_port():
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, timeout=5.0, headers=None):
    """One HTTP request; returns (status, body text). Status 0 on a transport error."""
    data = None
    hdrs = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError):
        return 0, ""


def wait_for(predicate, timeout, what, interval=0.2):
    """Calls predicate() until it returns a truthy value, which is returned; StackError after
    `timeout` seconds, naming `what`. Other exceptions from predicate() count as "not yet"; a
    StackError from it ends the wait at once."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except StackError:
            raise
        except Exception as e:  # noqa: BLE001 -- a predicate failing is "not yet"
            last_error = e
        if time.monotonic() >= deadline:
            detail = f" (last error: {last_error})" if last_error else ""
            raise StackError(f"timed out after {timeout:g}s waiting for {what}{detail}")
        time.sleep(interval)


def parse_duration(text):
    """Seconds of a Prometheus duration (1h30m, 90s, 500ms)."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
    parts = re.findall(r"(\d+)(ms|s|m|h|d|w|y)", str(text))
    if not parts or "".join(n + u for n, u in parts) != str(text):
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * units[u] for n, u in parts)


def shorten_rules(src, dst, for_max="2s", keep_firing_for_max="5s", keep_for=()):
    """Copies a rule file, capping every alert's `for:` and `keep_firing_for:` so that a stack
    with 1s evaluation shows in seconds what production shows in minutes. Expressions, labels and
    annotations are left as they are. Alerts named in `keep_for` keep their `for:` (a test whose
    story is shorter than it, where production's order of events matters)."""
    with open(src) as f:
        doc = yaml.safe_load(f)
    caps = {"for": for_max, "keep_firing_for": keep_firing_for_max}
    for group in doc.get("groups", []):
        for rule in group.get("rules", []):
            if "alert" not in rule:
                continue
            for key, cap in caps.items():
                if key == "for" and rule["alert"] in keep_for:
                    continue
                if key in rule and parse_duration(rule[key]) > parse_duration(cap):
                    rule[key] = cap
    with open(dst, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False)


def _raise_exit(signum, _frame):
    raise SystemExit(128 + signum)


def install_signal_handlers():
    """Turns SIGTERM and SIGHUP (and SIGINT) into SystemExit, so that `with Stack()` blocks and
    finally clauses stop the processes when the test is killed (e.g. by `timeout` or ctest).
    Only from the main thread; handlers someone else installed are kept."""
    import threading
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        if signal.getsignal(sig) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(sig, _raise_exit)


class Process:
    """A child process with its output in a log file. stop() ends it by its pid."""

    def __init__(self, name, argv, log_path, env=None):
        self.name = name
        self.argv = [str(a) for a in argv]
        self.log_path = log_path
        self._log = open(log_path, "ab")
        self.popen = subprocess.Popen(
            self.argv, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=env, cwd=SOURCE_DIR)

    @property
    def pid(self):
        return self.popen.pid

    def running(self):
        return self.popen.poll() is None

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout=10.0):
        """SIGTERM, then SIGKILL after `timeout` seconds. Returns the exit code."""
        if self.popen.poll() is None:
            try:
                self.popen.send_signal(signal.SIGTERM)
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=timeout)
            except ProcessLookupError:
                pass
        self._log.close()
        return self.popen.returncode


class Stack:
    """The end-to-end stack. Construct, then start() (or use `with`); stop() ends every process it
    started, in reverse order. Not thread-safe.

    build_dir       where podwait-sim and podwait-exporter are (default $PODWAIT_BUILD_DIR or build/)
    scenario        simulator scenario, relative to the source root
    manual          simulator steps run only on sim_advance()
    components      which of sim, exporter, prometheus, alertmanager to start (the webhook
                    receiver starts with alertmanager)
    rule_files      rule files Prometheus loads (default rules/podwait.rules.yml), with their
                    alerts' for:/keep_firing_for: capped (see shorten_rules) unless shorten=False
    keep_for        alerts whose for: is not capped
    extra_rule_files  more rule files, loaded as they are (e.g. test-only alerts)
    extra_scrape_configs  more Prometheus scrape configs, as they are (e.g. a stand-in target)
    external_labels Prometheus external labels (default cluster="e2e", like a multi-cluster setup)
    inhibit_file    inhibit rules merged into the Alertmanager config (None: none)
    exporter_args   extra exporter flags (default FAST_EXPORTER_ARGS)
    sim_args        extra simulator flags
    route_prefix    the exporter's --web.route-prefix ("/podwait"); PODWAIT_EXPORTER_URL ends with it
    workdir         where configs, data and logs go (default: a new temp dir, removed by stop()
                    unless keep_workdir or the stack failed)
    """

    def __init__(self, build_dir=None, scenario="tests/scenarios/demo.json", manual=False,
                 components=COMPONENTS, rule_files=("rules/podwait.rules.yml",), extra_rule_files=(),
                 shorten=True, for_max="2s", keep_firing_for_max="5s", keep_for=(), external_labels=None,
                 inhibit_file="rules/alertmanager-inhibit.yml", exporter_args=FAST_EXPORTER_ARGS,
                 sim_args=(), route_prefix="", workdir=None, keep_workdir=False, start_timeout=60.0,
                 extra_scrape_configs=()):
        self.build_dir = os.path.abspath(build_dir or os.environ.get("PODWAIT_BUILD_DIR")
                                         or os.path.join(SOURCE_DIR, "build"))
        self.scenario = scenario
        self.manual = manual
        unknown = set(components) - set(COMPONENTS)
        if unknown:
            raise ValueError(f"unknown components {sorted(unknown)}; known: {COMPONENTS}")
        self.components = tuple(c for c in COMPONENTS if c in components)
        self.rule_files = list(rule_files)
        self.extra_rule_files = list(extra_rule_files)
        self.extra_scrape_configs = list(extra_scrape_configs)
        self.shorten = shorten
        self.for_max = for_max
        self.keep_firing_for_max = keep_firing_for_max
        self.keep_for = tuple(keep_for)
        self.external_labels = {"cluster": "e2e"} if external_labels is None else dict(external_labels)
        self.inhibit_file = inhibit_file
        self.exporter_args = list(exporter_args)
        self.sim_args = list(sim_args)
        self.route_prefix = route_prefix.rstrip("/")
        self.keep_workdir = keep_workdir or workdir is not None
        self.workdir = os.path.abspath(workdir) if workdir else tempfile.mkdtemp(prefix="podwait-e2e-")
        os.makedirs(self.workdir, exist_ok=True)
        self.start_timeout = start_timeout
        self.processes = []
        self.failed = False
        self.sim_url = self.exporter_url = self.prom_url = self.am_url = None
        self.webhook_url = None
        self.webhook_log = os.path.join(self.workdir, "webhook.jsonl")
        self._stopped = False
        self._started = set()
        self._atexit = False

    # ---------------------------------------------------------------------------------------
    # Lifecycle

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.failed = True
            self.stop()
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.failed = True
        self.stop()
        return False

    def start(self, only=None):
        """Starts the components (those in `only`, default all of self.components) that are not
        running yet, in dependency order, and waits until each is ready. Calling it again later
        starts the rest, e.g. start(only=("sim", "exporter")), check the exporter, start()."""
        install_signal_handlers()
        if not self._atexit:
            atexit.register(self.stop)
            self._atexit = True
        wanted = [c for c in self.components if only is None or c in only]
        for name, begin in (("sim", self._start_sim), ("exporter", self._start_exporter),
                            ("alertmanager", self._start_alertmanager),
                            ("prometheus", self._start_prometheus)):
            if name in wanted and name not in self._started:
                begin()
                self._started.add(name)
        return self

    def stop(self):
        """Stops every process this stack started (reverse order). Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        for proc in reversed(self.processes):
            try:
                proc.stop()
            except Exception as e:  # noqa: BLE001 -- keep stopping the others
                print(f"stack: stopping {proc.name} (pid {proc.pid}): {e}", file=sys.stderr)
        artifacts = os.environ.get("PODWAIT_ARTIFACTS")
        if self.failed and artifacts:
            dest = os.path.join(artifacts, "e2e-" + os.path.basename(self.workdir))
            shutil.copytree(self.workdir, dest, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("prometheus-data", "alertmanager-data"))
            print(f"stack: logs kept in {dest}", file=sys.stderr)
        if self.failed:
            print(f"stack: work directory kept: {self.workdir}", file=sys.stderr)
        elif not self.keep_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def env(self):
        """The environment variables `stack.py run` gives its command."""
        values = {
            "PODWAIT_STACK_DIR": self.workdir,
            "PODWAIT_SIM_URL": self.sim_url,
            "PODWAIT_EXPORTER_URL": self.exporter_url,
            "PODWAIT_PROM_URL": self.prom_url,
            "PODWAIT_AM_URL": self.am_url,
            "PODWAIT_WEBHOOK_LOG": self.webhook_log if self.am_url else None,
        }
        return {k: v for k, v in values.items() if v}

    def logs(self, lines=40):
        """The last lines of every component's log, for failure messages."""
        return "\n".join(f"--- {p.name} (pid {p.pid}, {p.log_path}) ---\n{p.log_tail(lines)}"
                         for p in self.processes)

    # ---------------------------------------------------------------------------------------
    # Components

    def _path(self, name):
        return os.path.join(self.workdir, name)

    def _binary(self, name):
        path = os.path.join(self.build_dir, name)
        if not os.access(path, os.X_OK):
            raise StackError(f"{path} not found: build it first (scripts/build.sh {name})")
        return path

    def _spawn(self, name, argv):
        proc = Process(name, argv, self._path(name + ".log"))
        self.processes.append(proc)
        return proc

    def _wait_ready(self, proc, url, what):
        def ready():
            if not proc.running():
                raise StackError(f"{proc.name} exited with {proc.popen.returncode}:\n{proc.log_tail()}")
            status, _ = http("GET", url, timeout=2)
            return status == 200
        try:
            wait_for(ready, self.start_timeout, f"{what} at {url}")
        except StackError as e:
            if not proc.running():
                raise
            raise StackError(f"{e}\n{proc.log_tail()}") from None

    def _wait_port_file(self, proc, path):
        def port():
            if not proc.running():
                raise StackError(f"{proc.name} exited with {proc.popen.returncode}:\n{proc.log_tail()}")
            with open(path) as f:
                text = f.read().strip()
            return int(text) if text else None
        try:
            return wait_for(port, self.start_timeout, f"{proc.name}'s port file {path}")
        except StackError as e:
            if not proc.running():
                raise
            raise StackError(f"{e}\n{proc.log_tail()}") from None

    def _spawn_on_free_port(self, name, make_argv, ready_path, what, attempts=3):
        """Starts a program that takes its port on the command line; retries on another port when
        it exits early (another test grabbed the port in between)."""
        for attempt in range(attempts):
            port = free_port()
            proc = self._spawn(name, make_argv(port))
            url = f"http://127.0.0.1:{port}"
            try:
                self._wait_ready(proc, url + ready_path, what)
                return url
            except StackError:
                if proc.running() or attempt == attempts - 1:
                    raise
                self.processes.remove(proc)
                proc.stop()
        raise StackError(f"could not start {name}")

    def _start_sim(self):
        port_file = self._path("sim.port")
        argv = [self._binary("podwait-sim"), "--listen", "127.0.0.1:0", "--port-file", port_file,
                "--scenario", os.path.join(SOURCE_DIR, self.scenario)]
        if self.manual:
            argv.append("--manual")
        argv += self.sim_args
        proc = self._spawn("sim", argv)
        port = self._wait_port_file(proc, port_file)
        self.sim_url = f"http://127.0.0.1:{port}"
        self._wait_ready(proc, self.sim_url + "/healthz", "the simulator")

    def _start_exporter(self):
        if not self.sim_url:
            raise StackError("the exporter needs the simulator")
        binary = self._binary("podwait-exporter")
        sim = self.sim_url

        prefix = self.route_prefix
        route = [f"--web.route-prefix={prefix}"] if prefix else []

        def argv(port):
            return [binary, f"--web.listen-address=127.0.0.1:{port}", f"--kube.api-url={sim}",
                    f"--pd.url-template={sim}/pd/{{namespace}}/{{cluster}}"] + route + self.exporter_args
        self.exporter_url = self._spawn_on_free_port("exporter", argv, prefix + "/readyz",
                                                     "the exporter to sync (/readyz)") + prefix

    def _start_webhook(self):
        port_file = self._path("webhook.port")
        proc = self._spawn("webhook", [sys.executable, os.path.join(SOURCE_DIR, "tests/e2e/webhook_receiver.py"),
                                       "--listen", "127.0.0.1:0", "--port-file", port_file,
                                       "--out", self.webhook_log])
        port = self._wait_port_file(proc, port_file)
        self.webhook_url = f"http://127.0.0.1:{port}/alerts"

    def _alertmanager_config(self):
        conf = {
            "route": {
                "receiver": "webhook",
                "group_by": ["..."],  # every alert its own group: one notification per alert
                "group_wait": "1s",
                "group_interval": "1s",
                "repeat_interval": "1h",
            },
            "receivers": [{
                "name": "webhook",
                "webhook_configs": [{"url": self.webhook_url, "send_resolved": True}],
            }],
        }
        if self.inhibit_file:
            with open(os.path.join(SOURCE_DIR, self.inhibit_file)) as f:
                conf["inhibit_rules"] = yaml.safe_load(f)["inhibit_rules"]
        path = self._path("alertmanager.yml")
        with open(path, "w") as f:
            yaml.safe_dump(conf, f, sort_keys=False)
        return path

    def _start_alertmanager(self):
        self._start_webhook()
        config = self._alertmanager_config()
        data = self._path("alertmanager-data")
        os.makedirs(data, exist_ok=True)

        def argv(port):
            return ["prometheus-alertmanager", f"--config.file={config}", f"--storage.path={data}",
                    f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address=",
                    "--log.level=info"]
        self.am_url = self._spawn_on_free_port("alertmanager", argv, "/-/ready", "Alertmanager")

    def _prometheus_config(self):
        rule_paths = []
        for i, rf in enumerate(self.rule_files):
            src = os.path.join(SOURCE_DIR, rf)
            if self.shorten:
                dst = self._path(f"rules-{i}-{os.path.basename(rf)}")
                shorten_rules(src, dst, self.for_max, self.keep_firing_for_max, self.keep_for)
                rule_paths.append(dst)
            else:
                rule_paths.append(src)
        rule_paths += [os.path.join(SOURCE_DIR, rf) for rf in self.extra_rule_files]
        scrape = []
        if self.exporter_url:
            scrape.append({"job_name": "podwait-exporter", "honor_labels": True,
                           "metrics_path": self.route_prefix + "/metrics",
                           "static_configs": [{"targets": [urllib.parse.urlparse(self.exporter_url).netloc]}]})
        if self.sim_url:
            # kube-state-metrics-shaped series from the simulator's scenario state.
            scrape.append({"job_name": "kube-state-metrics", "honor_labels": True,
                           "metrics_path": "/ksm/metrics",
                           "static_configs": [{"targets": [urllib.parse.urlparse(self.sim_url).netloc]}]})
        scrape += self.extra_scrape_configs
        conf = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s",
                       "external_labels": self.external_labels},
            "rule_files": rule_paths,
            "scrape_configs": scrape,
        }
        if self.am_url:
            conf["alerting"] = {"alertmanagers": [
                {"static_configs": [{"targets": [urllib.parse.urlparse(self.am_url).netloc]}]}]}
        path = self._path("prometheus.yml")
        with open(path, "w") as f:
            yaml.safe_dump(conf, f, sort_keys=False)
        return path

    def _start_prometheus(self):
        config = self._prometheus_config()
        data = self._path("prometheus-data")
        os.makedirs(data, exist_ok=True)

        def argv(port):
            return ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={data}",
                    f"--web.listen-address=127.0.0.1:{port}", "--rules.alert.resend-delay=1s",
                    "--log.level=info"]
        self.prom_url = self._spawn_on_free_port("prometheus", argv, "/-/ready", "Prometheus")

    # ---------------------------------------------------------------------------------------
    # Helpers for tests

    def sim_advance(self, to=None, steps=None):
        """Runs the simulator's next step, `steps` steps, or every step up to the named one."""
        params = {}
        if to is not None:
            params["to"] = to
        if steps is not None:
            params["steps"] = str(steps)
        url = self.sim_url + "/_sim/advance" + ("?" + urllib.parse.urlencode(params) if params else "")
        status, body = http("POST", url, body=b"")
        if status != 200:
            raise StackError(f"POST {url}: {status} {body}")
        return json.loads(body)

    def sim_apply(self, ops):
        """Applies simulator ops (see tests/sim/README.md) right away."""
        status, body = http("POST", self.sim_url + "/_sim/apply", body=ops)
        if status != 200:
            raise StackError(f"POST /_sim/apply: {status} {body}")
        return json.loads(body)

    def query(self, expr):
        """An instant PromQL query; returns the result vector (list of {metric, value})."""
        url = self.prom_url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        status, body = http("GET", url)
        if status != 200:
            raise StackError(f"query {expr!r}: HTTP {status} {body[:300]}")
        data = json.loads(body)
        if data.get("status") != "success":
            raise StackError(f"query {expr!r}: {body[:300]}")
        return data["data"]["result"]

    def wait_query(self, expr, timeout=60, predicate=bool):
        """Waits until `predicate(result)` holds for the query's result; returns the result."""
        box = {}

        def check():
            box["r"] = self.query(expr)
            return predicate(box["r"])
        wait_for(check, timeout, f"PromQL {expr!r} (last result {box.get('r')})", interval=0.5)
        return box["r"]

    def prom_alerts(self):
        """Prometheus' active alerts (pending and firing)."""
        status, body = http("GET", self.prom_url + "/api/v1/alerts")
        if status != 200:
            raise StackError(f"GET /api/v1/alerts: {status}")
        return json.loads(body)["data"]["alerts"]

    def am_alerts(self, **filters):
        """Alertmanager's alerts (API v2), each with status.state and status.inhibitedBy."""
        params = [("filter", f'{k}="{v}"') for k, v in filters.items()]
        url = self.am_url + "/api/v2/alerts" + ("?" + urllib.parse.urlencode(params) if params else "")
        status, body = http("GET", url)
        if status != 200:
            raise StackError(f"GET {url}: {status} {body[:300]}")
        return json.loads(body)

    def am_post(self, alerts):
        """Posts alerts to Alertmanager (API v2), as Prometheus does."""
        status, body = http("POST", self.am_url + "/api/v2/alerts", body=alerts)
        if status != 200:
            raise StackError(f"POST /api/v2/alerts: {status} {body[:300]}")

    def notifications(self):
        """Every webhook notification received so far: (received_unix_time, payload) pairs."""
        out = []
        try:
            with open(self.webhook_log) as f:
                for line in f:
                    line = line.strip()
                    if line:
                        record = json.loads(line)
                        out.append((record["received"], record["payload"]))
        except FileNotFoundError:
            pass
        return out

    def notified_alerts(self, status=None, **labels):
        """Alerts (from webhook notifications) whose labels include `labels`, optionally only
        those with the given status ("firing"/"resolved"); in arrival order."""
        out = []
        for _, payload in self.notifications():
            for alert in payload.get("alerts", []):
                if status and alert.get("status") != status:
                    continue
                if all(alert.get("labels", {}).get(k) == v for k, v in labels.items()):
                    out.append(alert)
        return out


# -------------------------------------------------------------------------------------------
# Command line


def _args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=("run", "up"), help="run: start, run the command after --, stop")
    p.add_argument("--build-dir", help="default: $PODWAIT_BUILD_DIR or build/")
    p.add_argument("--scenario", default="tests/scenarios/demo.json")
    p.add_argument("--manual", action="store_true", help="simulator steps only on POST /_sim/advance")
    p.add_argument("--components", default=",".join(COMPONENTS))
    p.add_argument("--rules", action="append", help="rule file for Prometheus, timings capped "
                   "(repeatable; default rules/podwait.rules.yml)")
    p.add_argument("--extra-rules", action="append", default=[],
                   help="rule file for Prometheus, loaded as it is (repeatable)")
    p.add_argument("--no-shorten", action="store_true", help="keep the alerts' for:/keep_firing_for:")
    p.add_argument("--external-label", action="append", default=[], metavar="NAME=VALUE",
                   help="Prometheus external label (default cluster=e2e)")
    p.add_argument("--workdir", help="keep configs, data and logs here")
    p.add_argument("--exporter-arg", action="append", default=[], help="extra exporter flag")
    p.add_argument("--route-prefix", default="", help="the exporter's --web.route-prefix")
    p.add_argument("--sim-arg", action="append", default=[],
                   help="extra simulator flag (e.g. --generate-clusters=40)")
    return p.parse_args(argv)


def main():
    argv = sys.argv[1:]
    command = []
    if "--" in argv:
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1:]
    a = _args(argv)
    if a.mode == "run" and not command:
        print("stack.py run: give a command after --", file=sys.stderr)
        return 2
    labels = None
    if a.external_label:
        labels = dict(kv.split("=", 1) for kv in a.external_label)
    stack = Stack(build_dir=a.build_dir, scenario=a.scenario, manual=a.manual,
                  components=[c for c in a.components.split(",") if c],
                  rule_files=a.rules or ("rules/podwait.rules.yml",),
                  extra_rule_files=a.extra_rules, shorten=not a.no_shorten,
                  external_labels=labels, workdir=a.workdir,
                  exporter_args=list(FAST_EXPORTER_ARGS) + a.exporter_arg, sim_args=a.sim_arg,
                  route_prefix=a.route_prefix)

    install_signal_handlers()
    rc = 1
    try:
        stack.start()
        env = dict(os.environ, **stack.env())
        if a.mode == "up":
            for k, v in sorted(stack.env().items()):
                print(f"{k}={v}", flush=True)
            print("stack: up; Ctrl-C or SIGTERM stops it", flush=True)
            while all(p.running() for p in stack.processes):
                time.sleep(1)
            stack.failed = True
            print("stack: a component exited:\n" + stack.logs(), file=sys.stderr)
        else:
            rc = subprocess.call(command, env=env)
            stack.failed = rc != 0
    except StackError as e:
        stack.failed = True
        print(f"stack: {e}", file=sys.stderr)
    except SystemExit as e:
        # A signal: the normal way to end `up`; for `run` it interrupts the command.
        rc = e.code if isinstance(e.code, int) else 1
        if a.mode == "up" and not stack.failed:
            rc = 0
        else:
            stack.failed = True
    finally:
        stack.stop()
    return rc


if __name__ == "__main__":
    sys.exit(main())
