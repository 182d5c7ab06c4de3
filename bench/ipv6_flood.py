#!/usr/bin/env python3
"""IPv6 /healthz under clients that hold the relay's connections (BENCHMARKS.md, "IPv6 clients
that hold connections").

  ipv6_flood.py EXPORTER [--clients N]

Starts EXPORTER (a podwait-exporter binary) on ":port" (IPv4 by civetweb, IPv6 through the relay)
with an API server address that refuses connections (the HTTP surface does not need one). Then
opens N IPv6 connections to [::1]:port that send nothing, and GETs /healthz over IPv6 and over
IPv4 (2 s timeout, the kubelet's) 1, 8, 20 and 30 s later; then the same with N connections that
each pipeline 400 requests and never read (a 4 KiB receive buffer, so the answers stay on the
server's side).
"""
import argparse
import http.client
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthz(host, port):
    start = time.time()
    try:
        c = http.client.HTTPConnection(host, port, timeout=2)
        c.request("GET", "/healthz")
        r = c.getresponse()
        r.read()
        c.close()
        return f"{r.status} in {1000 * (time.time() - start):.0f} ms"
    except Exception as e:  # noqa: BLE001 - the answer is what is measured
        return f"unanswered ({type(e).__name__})"


def flood(kind, clients, port):
    held = []
    for _ in range(clients):
        c = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        if kind == "pipeline":
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        c.connect(("::1", port))
        if kind == "pipeline":
            c.setblocking(False)
            try:
                c.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * 400)
            except BlockingIOError:
                pass
        held.append(c)
    start = time.time()
    for at in (1, 8, 20, 30):
        time.sleep(max(0.0, start + at - time.time()))
        print(f"{kind:8s} t={at:2d}s  IPv6 /healthz: {healthz('::1', port):28s} "
              f"IPv4: {healthz('127.0.0.1', port)}", flush=True)
    for c in held:
        c.close()
    time.sleep(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("exporter")
    parser.add_argument("--clients", type=int, default=130)
    args = parser.parse_args()
    port = free_port()
    exporter = subprocess.Popen(
        [args.exporter, f"--web.listen-address=:{port}", "--kube.api-url=http://127.0.0.1:1",
         "--log.level=error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if healthz("127.0.0.1", port).startswith("200"):
                break
            time.sleep(0.1)
        flood("idle", args.clients, port)
        flood("pipeline", args.clients, port)
    finally:
        exporter.terminate()
        exporter.wait()


if __name__ == "__main__":
    main()
