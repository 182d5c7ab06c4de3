"""Part of status_page_test.sh: the status page live in chromium (driven over CDP, cdp.py) on the
demo scenario, as an on-call uses it:

- its script renders from /api/v1/pods what the exporter renders (the same markup, compared for
  the plain page and its filters), and nothing it does breaks its Content-Security-Policy;
- nothing red inside "Expected waits" (the computed colours);
- an expected group the user opened stays open, with its rows loaded and refreshed, and the
  scroll position stays, across in-place refreshes that bring new data (the scenario moves on);
- ?namespace=&pod= (where alerts link) opens that pod's class, reason, evidence and what holds it;
- with the API server gone (the simulator stopped) the open page says so first, in place, with
  no all-clear; a page loaded then says so too; with the exporter gone, the open page says it
  could not refresh;
- an exporter that never reached its API server says "No data yet", never "No waiting pods".

usage: status_page_live.py BUILD_DIR ARTIFACTS (CHROMIUM in the environment)
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

from cdp import Browser, CdpError  # noqa: E402
from stack import Stack, StackError, free_port, wait_for  # noqa: E402

build, artifacts = sys.argv[1:3]
chromium = os.environ["CHROMIUM"]
failed = 0
BAD = "rgb(198, 40, 40)"  # --bad


def check(cond, what):
    global failed
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failed += 1


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


# The rendered parts, with what moves by itself between two renderings (relative times, the
# evaluation's time) left out.
SNAPSHOT = """(() => {
  const norm = (h) => h.replace(/(<time[^>]*>)[^<]*(<\\/time>)/g, '$1$2')
                       .replace(/ for \\d[\\dhms]*/g, ' for N');
  return {status: norm(document.getElementById('status').innerHTML),
          main: norm(document.getElementById('main').innerHTML),
          evaluated: document.getElementById('evaluated').textContent.replace(/\\d[\\dhms]* ago/, 'N ago'),
          title: document.title,
          refreshes: Number(document.body.dataset.refreshes || 0)};
})()"""


def same_from_json(b, url, what, attempts=3):
    """The page as served, then as its script renders it from the JSON view. The data may move
    between the two (a PD probe answers): then again, a few times."""
    for attempt in range(attempts):
        b.open(url)
        served = b.evaluate(SNAPSHOT)
        b.wait_for("Number(document.body.dataset.refreshes || 0) >= 1", timeout=15)
        rendered = b.evaluate(SNAPSHOT)
        diff = [k for k in ("status", "main", "evaluated", "title") if served[k] != rendered[k]]
        if served["refreshes"] == 0 and not diff:
            break
    check(served["refreshes"] == 0 and not diff,
          f"{what}: the script renders what the exporter rendered ({len(served['main'])} bytes of "
          f"<main>, attempt {attempt + 1}; differ: {diff})")
    for k in diff:
        a, c = served[k], rendered[k]
        i = next((i for i in range(min(len(a), len(c))) if a[i] != c[i]), min(len(a), len(c)))
        print(f"  {k} served:   ...{a[max(0, i - 120):i + 160]}\n  {k} rendered: ...{c[max(0, i - 120):i + 160]}")


def red_inside_expected(b):
    return b.evaluate(f"""[...document.querySelectorAll('section.expected, section.expected *')]
      .filter((e) => getComputedStyle(e).color === '{BAD}' ||
                     getComputedStyle(e).backgroundColor === '{BAD}')
      .map((e) => e.outerHTML.slice(0, 80))""")


def open_group_survives_refreshes(b, s, url):
    group = "details[data-rows='?namespace=demo&cluster=demo&class=dependency']"
    b.open(url + "?refresh=1")
    check(b.evaluate(f"!document.querySelector(\"{group}\").open && "
                     f"!document.querySelector(\"{group} table\")"),
          "the demo's dependency group is served collapsed, without its rows")
    b.evaluate(f"document.querySelector(\"{group} summary\").click()")
    rows = b.wait_for(f"""(() => {{ const r = document.querySelectorAll("{group} tbody tr");
        return r.length && [...r].map((tr) => tr.querySelector('.pod').textContent + ' ' +
                                              tr.querySelector('.reason').textContent); }})()""")
    check(len(rows) >= 5, f"opening it loads its rows: {rows}")
    y = b.evaluate("window.scrollTo(0, 150); window.scrollY")
    check(y > 0, f"the page scrolls (scrollY {y})")
    before = b.evaluate("Number(document.body.dataset.refreshes || 0)")
    s.sim_advance(to="pd-ready")  # PD elects a leader: the dependency pods' reasons change
    after = b.wait_for(f"""(() => {{
        const d = document.querySelector("{group}");
        if (!d || Number(document.body.dataset.refreshes) < {before} + 2) return null;
        const r = [...d.querySelectorAll('tbody tr')].map((tr) =>
          tr.querySelector('.pod').textContent + ' ' + tr.querySelector('.reason').textContent);
        return JSON.stringify(r) !== JSON.stringify({json.dumps(rows)}) &&
               {{open: d.open, rows: r, y: window.scrollY,
                 pd: document.querySelector('section.expected .dep').textContent}};
      }})()""", timeout=30)
    check(after["open"] and after["rows"] and after["y"] == y,
          f"after in-place refreshes with new data the group is still open with its new rows "
          f"and the scroll stays at {y}: {after}")
    b.screenshot(os.path.join(artifacts, "status-page-open-group-refreshed.png"))


def pod_link(b, url):
    b.open(url + "?namespace=shop&pod=shop-tikv-2")
    card = b.evaluate("(document.querySelector('section.pod') || {}).innerText || ''")
    check(all(w in card for w in ("capacity", "needs attention", "max_node_group_size",
                                  "NotTriggerScaleUp", "what holds it", "pd: ready", "since")),
          f"?namespace=shop&pod=shop-tikv-2 opens the pod: {card!r}")
    check(b.evaluate("document.querySelectorAll('main tbody tr').length") == 1,
          "and only its row")


def no_all_clear(b, what):
    state = b.evaluate("""({banner: (document.querySelector('#status .nodata') || {}).innerText || '',
        ok: document.querySelectorAll('.summary .ok').length,
        summary: document.querySelector('.summary').innerText,
        colour: getComputedStyle(document.querySelector('.summary span')).color,
        empty: document.body.innerText.includes('No waiting pods'),
        first: document.getElementById('status').firstElementChild.className})""")
    check(state["first"] == "nodata" and "not an all-clear" in state["banner"] and
          state["ok"] == 0 and not state["empty"] and state["colour"] != "rgb(31, 138, 76)",
          f"{what}: the page says so first and shows no all-clear: {state}")
    return state


def api_unreachable(b, s, url):
    b.open(url + "?refresh=1")
    n = b.evaluate("Number(document.body.dataset.refreshes || 0)")
    next(p for p in s.processes if p.name == "sim").stop()
    b.wait_for(f"Number(document.body.dataset.refreshes || 0) > {n} && "
               "!!document.querySelector('#status .nodata')", timeout=30)
    state = no_all_clear(b, "API server stopped, page open (refreshed in place)")
    check("The API server is unreachable" in state["banner"] and s.sim_url[7:] in state["banner"]
          and "The last data arrived" in state["banner"],
          "it names the API server, since when, and the last data's age")
    b.screenshot(os.path.join(artifacts, "status-page-api-unreachable.png"))
    b.open(url)
    no_all_clear(b, "API server stopped, page loaded")
    # The exporter itself gone: the open page cannot refresh, and says so first.
    b.open(url + "?refresh=1")
    next(p for p in s.processes if p.name == "exporter").stop()
    gone = b.wait_for("(document.querySelector('#status > #refresh-failed:first-child') || {})"
                      ".innerText", timeout=20)
    check("could not refresh" in gone and "not an all-clear" in gone and
          b.evaluate("document.querySelectorAll('.summary .ok').length") == 0,
          f"the exporter stopped, page open: it says it could not refresh: {gone!r}")


def never_reached(b):
    """An exporter whose API server never answered (a closed port)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    port = free_port()
    log = open(os.path.join(tempfile.mkdtemp(), "exporter.log"), "wb")
    proc = subprocess.Popen([os.path.join(build, "podwait-exporter"),
                             f"--web.listen-address=127.0.0.1:{port}",
                             f"--kube.api-url=http://127.0.0.1:{closed}"],
                            stdout=log, stderr=log)
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_for(lambda: urllib.request.urlopen(url + "healthz", timeout=2).status == 200, 20,
                 "the exporter without an API server")
        time.sleep(1.5)  # its reflectors have tried
        b.open(url)
        state = no_all_clear(b, "API server never reached")
        check("No data yet" in state["banner"] and "No data yet" in state["summary"] and
              "The API server is unreachable" in state["banner"],
              f"it says there is no data yet: {state['summary']!r}")
        b.screenshot(os.path.join(artifacts, "status-page-no-data-yet.png"))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def main():
    with Stack(build_dir=build, manual=True, components=("sim", "exporter")) as s, \
            Browser(chromium, tempfile.mkdtemp(), size="900,600",
                    log_path=os.path.join(artifacts, "chromium-status-page-live.log")) as b:
        url = s.exporter_url + "/"
        wait_for(lambda: any(p["pod"] == "shop-tikv-2" for p in get_json(url + "api/v1/pods")["pods"]),
                 30, "the demo classified")
        for q in ("", "class=dependency", "namespace=shop&pod=shop-tikv-2", "namespace=nosuch",
                  "cluster=demo-demo"):
            same_from_json(b, url + "?refresh=2" + ("&" + q if q else ""), "?" + q)
        b.open(url)
        red = red_inside_expected(b)
        check(b.evaluate("document.querySelectorAll('section.expected .dep.not_ready').length") > 0
              and not red, f"nothing red inside Expected waits (demo's PD is not ready): {red}")
        pod_link(b, url)
        open_group_survives_refreshes(b, s, url)
        api_unreachable(b, s, url)
        never_reached(b)
        # Requests to the stopped exporter fail on purpose; anything else is a problem.
        problems = [p for p in b.problems if "Failed to load resource: net::" not in p]
        check(not problems, f"no script error or policy violation: {problems[:3]}")
        # The control: a page whose policy blocks its script is reported, so the check above
        # could fail.
        b.problems.clear()
        b.call("Page.navigate", {"url": "data:text/html,<meta http-equiv='Content-Security-Policy' "
                                        "content=\"script-src 'none'\"><script>document.title="
                                        "'ran'</script>"}, session=True)
        b.wait_for("location.protocol === 'data:' && document.readyState === 'complete'")
        time.sleep(0.5)
        check(b.evaluate("document.title") != "ran" and
              any("Content Security Policy" in p for p in b.problems),
              f"the control page's blocked script is reported: {b.problems[:1]}")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (StackError, CdpError) as e:
        print(f"FAIL: {e}")
        sys.exit(1)
