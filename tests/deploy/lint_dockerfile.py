#!/usr/bin/env python3
"""A small Dockerfile lint for podwait's Dockerfile, in lieu of hadolint (not packaged in Debian).

    lint_dockerfile.py Dockerfile OUT_DIR

Checks the house rules: two stages (debian:bookworm builder, debian:bookworm-slim runtime), every
package installed through scripts/setup.sh with the right profile and none named in the
Dockerfile, the builder running scripts/build.sh --release --no-tests, a numeric non-root USER, an
exec-form ENTRYPOINT of the exporter, no ADD, no `latest`, no `cd` in RUN. Writes each shell-form
RUN to OUT_DIR/run-N.sh (for shellcheck) and the COPY sources of the build context to
OUT_DIR/copy-sources.txt. Prints one line per problem; exits 1 if there is any.
"""

import json
import pathlib
import re
import shlex
import sys

# A package tool in command position (start of the command, or after &&, ||, ; or |).
PACKAGE_TOOLS = re.compile(r"(?:^|&&|\|\||;|\|)\s*(?:sudo\s+)?"
                           r"(apt-get|apt|aptitude|dpkg|pip3?|npm|curl|wget|apk|yum|dnf)(?=\s|$)")


def instructions(text):
    """(line number, keyword, arguments) with continuation lines joined and comments dropped."""
    out = []
    buf, start = "", 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if buf and line.startswith("#"):
            continue
        if not buf:
            start = n
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        keyword, _, args = buf.partition(" ")
        out.append((start, keyword.upper(), args.strip()))
        buf = ""
    return out


def main(argv):
    dockerfile, out_dir = pathlib.Path(argv[0]), pathlib.Path(argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    problems = []
    stages = []  # [{"from": str, "name": str, "ins": [...]}]
    for n, kw, args in instructions(dockerfile.read_text()):
        if kw == "FROM":
            parts = args.split()
            stages.append({"from": parts[0], "name": parts[2] if len(parts) > 2 else "",
                           "ins": []})
            continue
        if not stages:
            problems.append("line %d: %s before FROM" % (n, kw))
            continue
        stages[-1]["ins"].append((n, kw, args))

    if [s["from"] for s in stages] != ["debian:bookworm", "debian:bookworm-slim"]:
        problems.append("expected a debian:bookworm builder and a debian:bookworm-slim runtime, "
                        "got %s" % [s["from"] for s in stages])
    for s in stages:
        if s["from"].endswith(":latest") or ":" not in s["from"]:
            problems.append("FROM %s: pin a tag" % s["from"])
    if len(stages) != 2:
        print("\n".join(problems) or "unexpected stages")
        return 1
    builder, runtime = stages
    if builder["name"].lower() != "builder":
        problems.append("the first stage must be named builder")

    runs = {0: [], 1: []}
    copy_sources = []
    run_no = 0
    for i, stage in enumerate(stages):
        for n, kw, args in stage["ins"]:
            if kw == "ADD":
                problems.append("line %d: use COPY, not ADD" % n)
            if kw == "RUN":
                if args.startswith("["):
                    problems.append("line %d: use the shell form of RUN" % n)
                    continue
                runs[i].append(args)
                run_no += 1
                (out_dir / ("run-%d.sh" % run_no)).write_text("#!/bin/sh\n" + args + "\n")
                for m in PACKAGE_TOOLS.finditer(args):
                    problems.append("line %d: %s in the Dockerfile; packages come from "
                                    "scripts/setup.sh only" % (n, m.group(1)))
                if re.search(r"(^|&&|;)\s*cd\s", args):
                    problems.append("line %d: use WORKDIR, not cd" % n)
            if kw == "WORKDIR" and not args.startswith("/"):
                problems.append("line %d: WORKDIR must be absolute" % n)
            if kw == "COPY" and "--from=" not in args:
                words = shlex.split(args)
                copy_sources += [w for w in words[:-1] if not w.startswith("--")]
            if kw == "COPY" and "--from=" in args and "--from=builder" not in args:
                problems.append("line %d: copy only from the builder stage" % n)

    def called(stage_runs, pattern):
        return any(re.search(pattern, r) for r in stage_runs)

    if not called(runs[0], r"(^|\s)scripts/setup\.sh build(\s|&&|$)"):
        problems.append("the builder must install its packages with scripts/setup.sh build")
    if not called(runs[0], r"(^|\s)scripts/build\.sh --release --no-tests(\s|&&|$)"):
        problems.append("the builder must build with scripts/build.sh --release --no-tests")
    if not called(runs[1], r"setup\.sh runtime(\s|&&|$)"):
        problems.append("the runtime stage must install its packages with setup.sh runtime")
    if called(runs[1], r"setup\.sh (build|test)"):
        problems.append("the runtime stage must not install the build or test profile")

    final = runtime["ins"]
    users = [a for _, kw, a in final if kw == "USER"]
    if not users or not re.fullmatch(r"[1-9][0-9]*(:[1-9][0-9]*)?", users[-1]):
        problems.append("the runtime stage must end as a numeric non-root USER, got %s" % users)
    entry = [a for _, kw, a in final if kw == "ENTRYPOINT"]
    try:
        entry_argv = json.loads(entry[-1]) if entry else None
    except ValueError:
        entry_argv = None
    if not entry_argv or entry_argv[0] != "/usr/local/bin/podwait-exporter":
        problems.append("ENTRYPOINT must be the exec form [\"/usr/local/bin/podwait-exporter\"]")
    if any(kw == "CMD" and not a.startswith("[") for _, kw, a in final):
        problems.append("CMD in shell form needs a shell at run time")
    if any(kw == "SHELL" for _, kw, _ in final):
        problems.append("the runtime stage must not depend on a SHELL")
    if "9877" not in " ".join(a for _, kw, a in final if kw == "EXPOSE"):
        problems.append("EXPOSE 9877 (the default --web.listen-address) is missing")

    (out_dir / "copy-sources.txt").write_text("\n".join(copy_sources) + "\n")
    for p in problems:
        print("FAIL " + p)
    print("lint_dockerfile: %d stage(s), %d RUN, %d problem(s)" % (len(stages), run_no,
                                                                     len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
