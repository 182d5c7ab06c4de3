#!/usr/bin/env python3
"""Good clients against password guessers (BENCHMARKS.md, "Password guessing").

  auth_guessing.py EXPORTER [--guessers N] [--seconds S] [--cost C] [--user known|unknown]

Starts EXPORTER (a podwait-exporter binary) on loopback with a web config of basic auth only
(user "prometheus", a bcrypt hash of cost C of "s3cret", made here with Python's crypt) and an API
server address that refuses connections (the HTTP surface does not need one). Then N threads guess
passwords as fast as the server answers (a new connection per guess, user "prometheus" or an
unknown user), and meanwhile one client times S seconds of good requests, alternating a scrape of
/metrics and a GET of /healthz with the right (already verified, so cached) credentials, a new
connection each, as Prometheus and the kubelet do. Prints the latency percentiles of the good
requests, how many took over 1 s, and the guessers' request rate and status codes.
"""
import argparse
import base64
import collections
import crypt
import http.client
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def get(port, path, auth, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Authorization": auth})
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exporter")
    ap.add_argument("--guessers", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--cost", type=int, default=10)
    ap.add_argument("--user", choices=["known", "unknown"], default="known")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="podwait-auth-bench-")
    hash_ = crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << args.cost))
    with open(os.path.join(tmp, "web.yml"), "w") as f:
        f.write(f"basic_auth_users:\n  prometheus: '{hash_}'\n")
    port = free_port()
    exporter = subprocess.Popen(
        [args.exporter, f"--web.listen-address=127.0.0.1:{port}",
         "--kube.api-url=http://127.0.0.1:1", f"--web.config.file={tmp}/web.yml",
         "--log.level=error"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    good = basic("prometheus", "s3cret")
    try:
        deadline = time.time() + 20
        while True:
            try:
                if get(port, "/healthz", good) == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                raise SystemExit("the exporter did not answer")
            time.sleep(0.1)

        # The guessers run in processes of their own (50 threads each), so that the timed client
        # does not wait for Python's interpreter lock behind them.
        stop = multiprocessing.Event()
        counts = {k: multiprocessing.Value("l", 0) for k in ("401", "429", "other")}

        def guess_process(first):
            def guess(n):
                i = 0
                user = "prometheus" if args.user == "known" else f"nobody{n}"
                while not stop.is_set():
                    i += 1
                    try:
                        status = str(get(port, "/metrics", basic(user, f"guess-{n}-{i}")))
                    except OSError:
                        status = "other"
                    counter = counts.get(status, counts["other"])
                    with counter.get_lock():
                        counter.value += 1
            threads = [threading.Thread(target=guess, args=(n,))
                       for n in range(first, min(first + 50, args.guessers))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        procs = [multiprocessing.Process(target=guess_process, args=(first,))
                 for first in range(0, args.guessers, 50)]
        for p in procs:
            p.start()
        time.sleep(2)  # let the guessers fill the server
        for c in counts.values():
            with c.get_lock():
                c.value = 0
        started = time.time()
        latencies = {"/metrics": [], "/healthz": []}
        failures = collections.Counter()
        while time.time() - started < args.seconds:
            for path in latencies:
                t0 = time.time()
                try:
                    status = get(port, path, good)
                except OSError as e:
                    status = type(e).__name__
                latencies[path].append(time.time() - t0)
                if status != 200:
                    failures[(path, status)] += 1
        elapsed = time.time() - started
        statuses = {k: c.value for k, c in counts.items()}
        stop.set()
        for p in procs:
            p.join(timeout=35)
        print(f"cost {args.cost}, {args.guessers} guessers ({args.user} user), {elapsed:.0f} s")
        for path, values in latencies.items():
            ms = [v * 1000 for v in values]
            print(f"  good {path}: n={len(ms)} p50={percentile(ms, 0.5):.1f} ms "
                  f"p99={percentile(ms, 0.99):.1f} ms max={max(ms):.1f} ms "
                  f"over 1 s: {sum(1 for v in ms if v > 1000)}")
        print(f"  good requests not 200: {dict(failures) or 'none'}")
        total = sum(statuses.values())
        print(f"  guesses: {total / elapsed:.0f}/s, statuses {statuses}")
    finally:
        exporter.terminate()
        exporter.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
