#!/usr/bin/env python3
"""simulate --svg read as XML: the time axis, the legend and the L2 scales of a
schedule, and a schedule that deadlocks drawn with --allow-invalid.

usage: svg_test.py ACCELCHECK WORK_DIR
"""
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
UNITS = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def run(exe, args, expect):
    proc = subprocess.run([exe] + args, capture_output=True, text=True)
    if proc.returncode != expect:
        sys.exit(f"{' '.join(args)}: exit {proc.returncode}, expected {expect}\n{proc.stderr}")
    return proc


def ids(root):
    return {g.get("id"): g for g in root.iter(SVG + "g") if g.get("id")}


def texts(element, cls=None):
    return [t.text or "" for t in element.iter(SVG + "text") if cls is None or t.get("class") == cls]


def count(label):
    """'2.5k' -> 2500: an axis label."""
    match = re.fullmatch(r"([0-9.]+)([kMGTP]?)B?", label)
    check(match is not None, f"axis label {label!r} is not a count")
    return float(match.group(1)) * UNITS[match.group(2)] if match else 0


def check_schedule(svg_path, simulation):
    root = ET.parse(svg_path).getroot()  # raises on XML that is not well-formed
    check(root.tag == SVG + "svg", f"{svg_path}: root is {root.tag}")
    groups = ids(root)
    for part in ("gantt", "time-axis", "legend", "l2"):
        check(part in groups, f"{svg_path}: no group {part}")
    ticks = [count(t) for t in texts(groups["time-axis"], "tick-label")]
    check(len(ticks) >= 3, f"{svg_path}: {len(ticks)} ticks on the time axis")
    check(ticks == sorted(ticks) and ticks[0] == 0, f"{svg_path}: ticks {ticks}")
    check(ticks[-1] >= simulation["total_cycles"] * 0.75, f"{svg_path}: ticks {ticks} end early")
    check("time (cycles)" in texts(groups["time-axis"]), f"{svg_path}: the axis has no title")
    legend = texts(groups["legend"])
    layers = {w["layer_name"] for core in simulation["cores"] for w in core["workloads"]}
    for layer in layers:
        check(layer in legend, f"{svg_path}: layer {layer} not in the legend {legend}")
    for direction in ("DRAM store (L2 to DRAM)", "DRAM load (DRAM to L2)"):
        check(direction in legend, f"{svg_path}: {direction!r} not in the legend")
    plots = [g for g in groups["l2"] if g.get("class") == "l2-plot"]
    check(len(plots) == len(simulation["cores"]), f"{svg_path}: {len(plots)} L2 plots")
    scales = []
    for plot, core in zip(plots, simulation["cores"]):
        scale = [g for g in plot if g.get("class") == "l2-scale"]
        check(len(scale) == 1, f"{svg_path}: core {core['core_id']} has {len(scale)} scales")
        top = int(scale[0].get("data-max-bytes"))
        scales.append(top)
        check(top >= core["peak_l2_bytes"], f"{svg_path}: scale {top} under the peak")
        labels = [count(t) for t in texts(scale[0], "tick-label")]
        check(labels[0] == 0 and labels[-1] == top, f"{svg_path}: scale labels {labels}")
    if groups["l2"].get("data-scale") == "shared":
        check(len(set(scales)) == 1, f"{svg_path}: a shared scale differs: {scales}")
    return groups


def main():
    exe, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ir = os.path.join(work, "net.json")
    frontend = os.path.join(work, "net.frontend.json")
    run(exe, ["generate", "gemini", "--mesh", "2x2", "--layers", "conv,pool,conv,add,fc",
              "-o", ir], 0)
    svg, sim_json = os.path.join(work, "net.svg"), os.path.join(work, "net.sim.json")
    run(exe, ["simulate", ir, "--frontend", frontend, "--svg", svg, "-o", sim_json], 0)
    groups = check_schedule(svg, json.load(open(sim_json)))
    check("deadlock" not in groups, "a schedule that runs to the end has a deadlock group")

    # Core 0 first waits for the last output of core 1, which waits for core 0.
    doc = json.load(open(ir))
    doc["0"][0]["ifmap"][0]["transfer_id"].append(doc["1"][-1]["ofmap"][0]["transfer_id"])
    bad = os.path.join(work, "deadlock.json")
    json.dump(doc, open(bad, "w"))
    bad_svg, bad_json = os.path.join(work, "deadlock.svg"), os.path.join(work, "deadlock.sim.json")
    for stale in (bad_svg, bad_json):
        if os.path.exists(stale):
            os.remove(stale)
    refused = run(exe, ["simulate", bad, "--svg", bad_svg, "-o", bad_json], 1)
    check("nothing simulated" in refused.stderr and not os.path.exists(bad_svg),
          "an invalid IR is simulated without --allow-invalid")
    run(exe, ["simulate", bad, "--allow-invalid", "--svg", bad_svg, "-o", bad_json], 1)
    simulation = json.load(open(bad_json))
    check(simulation["deadlock"] and simulation["wait_cycle"], f"no wait cycle: {simulation}")
    groups = check_schedule(bad_svg, simulation)
    check("deadlock" in groups, "a deadlock is not drawn")
    if "deadlock" in groups:
        deadlock = groups["deadlock"]
        blocked = [r for r in deadlock.iter(SVG + "rect") if r.get("class") == "blocked"]
        stopped = [c for c in simulation["cores"] if "blocked_at" in c]
        check(len(blocked) == len(stopped) > 0, f"{len(blocked)} blocked bars, {len(stopped)} cores stopped")
        waits = [p for p in deadlock.iter(SVG + "path") if p.get("class") == "wait"]
        check(len(waits) >= 2, f"{len(waits)} wait-for arrows between cores")
        caption = texts(deadlock, "caption")
        check(caption and "wait-for cycle" in caption[0], f"caption {caption}")
        check("blocked: waits for ever" in texts(groups["legend"]), "the legend has no blocked bar")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
