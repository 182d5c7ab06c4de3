#!/usr/bin/env python3
"""Checks that the includes between exporter/ modules follow docs/DESIGN.md's module picture
(section 7): data flows one way, sources -> state -> evaluation -> metrics and views, and each
module includes only the modules below it. Also checks that wait-for-pd links only the pd, net
and common libraries (read from the build tree's build.ninja).

usage: module_imports.py SOURCE_DIR [BUILD_DIR]
"""
import os
import re
import sys

# module -> the modules it may include (itself always). Kept in step with docs/DESIGN.md.
ALLOWED = {
    "common": set(),
    "model": {"common"},
    "net": {"common"},
    "config": {"model", "common"},
    "kube": {"net", "common"},
    "pd": {"model", "net", "common"},
    "classify": {"model", "common"},
    "state": {"classify", "config", "model", "common"},
    "sources": {"kube", "state", "classify", "config", "model", "net", "common"},
    "evaluate": {"state", "classify", "config", "model", "common"},
    "metrics": {"state", "model", "common"},
    "http": {"metrics", "model", "common"},
    "app": {"sources", "pd", "evaluate", "http", "metrics", "state", "kube", "classify", "config",
            "model", "net", "common"},
    "explain": {"evaluate", "sources", "pd", "http", "metrics", "state", "kube", "classify",
                "config", "model", "net", "common"},
}
# Files outside exporter/<module>/ that follow the same rule.
EXTRA = {"wait-for-pd/main.cpp": {"pd", "net", "common"}}
INCLUDE = re.compile(r'^\s*#\s*include\s+"exporter/([a-z_]+)/')


def check_file(path, rel, module, allowed, errors):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m and m.group(1) != module and m.group(1) not in allowed:
                errors.append(f"{rel}:{n}: {module or rel} must not include exporter/{m.group(1)}/"
                              f" (allowed: {', '.join(sorted(allowed)) or 'nothing'})")


def main():
    src = sys.argv[1]
    build = sys.argv[2] if len(sys.argv) > 2 else None
    errors = []
    exporter = os.path.join(src, "exporter")
    modules = sorted(d for d in os.listdir(exporter) if os.path.isdir(os.path.join(exporter, d)))
    for module in modules:
        if module not in ALLOWED:
            errors.append(f"exporter/{module}/ is not in the module table (docs/DESIGN.md, "
                          "tests/checks/tools/module_imports.py)")
            continue
        for name in sorted(os.listdir(os.path.join(exporter, module))):
            if name.endswith((".h", ".cpp")):
                check_file(os.path.join(exporter, module, name), f"exporter/{module}/{name}",
                           module, ALLOWED[module], errors)
    for rel, allowed in EXTRA.items():
        check_file(os.path.join(src, rel), rel, "", allowed, errors)

    if build:
        ninja = open(os.path.join(build, "build.ninja"), encoding="utf-8").read()
        m = re.search(r"^build wait-for-pd: CXX_EXECUTABLE_LINKER__wait-for-pd_\S*.*?\n"
                      r"(?:  .*\n)*?  LINK_LIBRARIES = (.*)$", ninja, re.M)
        if not m:
            errors.append("build.ninja: no link line for wait-for-pd")
        else:
            libs = set(re.findall(r"libpodwait_([a-z_]+)\.a", m.group(1)))
            if libs != {"pd", "net", "common"}:
                errors.append("wait-for-pd links podwait libraries " + ", ".join(sorted(libs)) +
                              "; it must link only pd, net and common")
    for e in errors:
        print(e)
    print(f"module imports: {len(modules)} modules, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
