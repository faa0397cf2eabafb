#!/usr/bin/python3
"""Print one line describing how meson built libldem in BUILD: the buildtype and the
optimization-relevant flags jager.c was compiled with (for bench_contact's report)."""
import json
import os
import sys

build = sys.argv[1] if len(sys.argv) > 1 else "build"
info = []
try:
    with open(os.path.join(build, "meson-info", "intro-buildoptions.json")) as f:
        opts = {o["name"]: o["value"] for o in json.load(f)}
    info.append("meson buildtype=%s (optimization=%s, debug=%s, b_ndebug=%s, b_lto=%s)"
                % (opts.get("buildtype"), opts.get("optimization"), opts.get("debug"),
                   opts.get("b_ndebug"), opts.get("b_lto")))
except (OSError, ValueError) as e:
    info.append("meson options unreadable (%s)" % e)
try:
    with open(os.path.join(build, "compile_commands.json")) as f:
        for e in json.load(f):
            if e["file"].endswith(os.path.join("contact", "jager.c")):
                keep = [a for a in e["command"].split()
                        if a.startswith(("-O", "-g", "-march", "-mtune", "-f", "-DNDEBUG"))
                        and not a.startswith(("-fdiagnostics", "-fPIC"))]
                info.append("jager.c: " + " ".join(keep))
                break
except (OSError, ValueError):
    pass
print("; ".join(info))
