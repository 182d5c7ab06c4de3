"""A headless chromium driven over the Chrome DevTools Protocol (CDP), standard library only.

Chromium is started with --remote-debugging-pipe: it reads commands from fd 3 and writes answers
and events to fd 4, each message JSON ended by a NUL byte (the transport Playwright and Puppeteer
use). One page (a target attached with flatten: true) is enough for the status page's tests:

    with Browser(chromium, profile_dir, size="1024,700") as b:
        b.open(url)
        b.evaluate("document.title")
        b.wait_for("document.body.dataset.refreshes >= 2", timeout=20)

Every wait is bounded; JavaScript exceptions and console/log errors (a Content-Security-Policy
violation among them) are collected in b.problems.
"""

import fcntl
import json
import os
import queue
import subprocess
import threading
import time


class CdpError(Exception):
    """A command failed, the browser went away, or a wait timed out."""


class Browser:
    def __init__(self, chromium, profile, size="1280,900", log_path=os.devnull):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def pipes():  # in the child: fd 3 is what chromium reads, fd 4 what it writes
            # Out of the way first: either end may be fd 3 or 4 itself.
            r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self._log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars", "--remote-debugging-pipe",
             f"--user-data-dir={profile}", f"--window-size={size}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, close_fds=False,
            preexec_fn=pipes)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next_id = 0
        self._answers = {}
        self._answered = threading.Condition()
        self.events = queue.Queue()
        self.problems = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.call("Target.attachToTarget",
                                  {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable", session=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except CdpError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()

    # ------------------------------------------------------------------------------------------

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_chrome, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                with self._answered:
                    self._answers[None] = "closed"
                    self._answered.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                self._dispatch(json.loads(raw))

    def _dispatch(self, msg):
        if "id" in msg:
            with self._answered:
                self._answers[msg["id"]] = msg
                self._answered.notify_all()
            return
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = params["exceptionDetails"]
            self.problems.append("exception: " + d.get("exception", {}).get("description", d.get("text", "")))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.problems.append("log: " + params["entry"]["text"])
        elif method == "Runtime.consoleAPICalled" and params["type"] == "error":
            self.problems.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                        for a in params["args"]))
        self.events.put(msg)

    def call(self, method, params=None, session=False, timeout=30):
        with self._answered:
            self._next_id += 1
            mid = self._next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self._session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._answered:
            while mid not in self._answers:
                if None in self._answers:
                    raise CdpError(f"{method}: the browser closed the pipe")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CdpError(f"{method}: no answer within {timeout}s")
                self._answered.wait(left)
            answer = self._answers.pop(mid)
        if "error" in answer:
            raise CdpError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    # ------------------------------------------------------------------------------------------

    def open(self, url, timeout=30):
        """Navigates and waits until the page has loaded (its script has run)."""
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'",
                      timeout=timeout)

    def evaluate(self, expression, timeout=30):
        """The value of a JavaScript expression in the page (promises awaited)."""
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True}, session=True, timeout=timeout)
        if "exceptionDetails" in r:
            raise CdpError(f"{expression}: {r['exceptionDetails'].get('text')} "
                           f"{r['result'].get('description', '')}")
        return r["result"].get("value")

    def wait_for(self, expression, timeout=30, interval=0.1):
        """Waits until a JavaScript expression is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
                if value:
                    return value
                last = value
            except CdpError as e:
                last = e
            time.sleep(interval)
        raise CdpError(f"not within {timeout}s: {expression} (last: {last})")

    def screenshot(self, path):
        import base64  # noqa: PLC0415 - only here
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
