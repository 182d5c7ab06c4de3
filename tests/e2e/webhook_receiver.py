#!/usr/bin/env python3
"""A minimal Alertmanager webhook receiver for tests: appends every POSTed notification to a file
as one JSON line, {"received": <unix time>, "path": <request path>, "payload": <the body>}.

    webhook_receiver.py --listen 127.0.0.1:0 --port-file F --out alerts.jsonl

Port 0 picks a free port, written to --port-file once listening. Stops on SIGTERM or SIGINT.
Answers 400 to a body that is not JSON (and records nothing), 200 otherwise.
"""

import argparse
import http.server
import json
import os
import signal
import sys
import threading
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--listen", default="127.0.0.1:0")
    p.add_argument("--port-file")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    host, _, port = a.listen.rpartition(":")
    lock = threading.Lock()
    out = open(a.out, "a", encoding="utf-8")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 -- http.server's naming
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            try:
                payload = json.loads(body)
            except ValueError:
                self.send_response(400)
                self.end_headers()
                return
            record = {"received": time.time(), "path": self.path, "payload": payload}
            with lock:
                out.write(json.dumps(record, sort_keys=True) + "\n")
                out.flush()
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"ok\n")

        def log_message(self, fmt, *args):
            sys.stderr.write("webhook: " + (fmt % args) + "\n")

    server = http.server.ThreadingHTTPServer((host or "127.0.0.1", int(port)), Handler)
    server.daemon_threads = True

    def on_signal(_signum, _frame):
        threading.Thread(target=server.shutdown, daemon=True).start()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(server.server_address[1]))
        os.replace(tmp, a.port_file)
    server.serve_forever(poll_interval=0.2)
    server.server_close()
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
