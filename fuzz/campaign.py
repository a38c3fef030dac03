#!/usr/bin/env python3
"""A fuzzing campaign on one machine over the targets of fuzz/targets.txt.

    fuzz/campaign.py --build BUILD --out DIR [--seconds S] [--cpu-seconds C] [--jobs N]
                     [TARGET...]

For each target (all of them by default), in turn: its seeds (fuzz/seeds.sh)
beside the corpus DIR/corpus/<target> it keeps from earlier campaigns, S
seconds of libFuzzer's -fork=N (and more, with --cpu-seconds C, until its
workers have had C seconds of CPU time), then the corpus merged and minimised
(-merge=1), every crash, timeout and out-of-memory input replayed and
deduplicated by its stack, and one reproducer of each minimised
(-minimize_crash=1). DIR/summary.json and DIR/summary.txt give per target the
executions, executions a second, the corpus before and after the merge, the
coverage of the seeds alone and of the merged corpus (libFuzzer's cov and ft
counters), the format's rules the merged corpus reaches and those it never
does, and each distinct finding with its reproducer. Exit 0 when no
target found anything, 1 otherwise, 2 on a usage or build problem.

A finding that is fixed keeps its reproducer in fuzz/regressions/<format>/,
which ctest runs through the target from then on (fuzz/CMakeLists.txt).
"""

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# "#44582: cov: 5873 ft: 6468 corp: 341 exec/s 3522 oom/timeout/crash: 0/0/0 time: 8s ..."
FORK_STATUS = re.compile(r"^#(\d+): cov: (\d+) ft: (\d+) corp: (\d+) exec/s (\d+) "
                         r"oom/timeout/crash: (\d+)/(\d+)/(\d+) time: (\d+)s")
# "#359	INITED cov: 1939 ft: 5114 corp: 286/158Kb ..."
INITED = re.compile(r"INITED cov: (\d+) ft: (\d+) corp: (\d+)/")
# "    #3 0x55f471edc6f1 in accelcheck::edgetpu::ReadTensor(...) /work/main/x/read.cc:282:31"
# or, unsymbolised, "... in fuzzer::PrintStackTrace() (/b/x_fuzzer+0x5b5e8) (BuildId: 0aea...)"
FRAME = re.compile(r"^\s*#(\d+) 0x[0-9a-f]+ in (.+?) (\S+?)(?::\d+)*(?: \(BuildId: \w+\))?$")
# "==123==ERROR: AddressSanitizer: heap-buffer-overflow on ..." or a UBSan
# "file:line:col: runtime error: load of misaligned address 0x...", or
# "... runtime error: signed integer overflow: -9223372036854775808 - 1 ..."
# (its kind ends at a colon or a number, which may be negative).
# "==6662== ERROR: libFuzzer: deadly signal" (kind "deadly-signal").
SANITIZER = re.compile(r"ERROR: (\w+Sanitizer): ([\w-]+)|runtime error: ([^0-9:]+?)(?::| -?\d|$)|"
                       r"ERROR: libFuzzer: ([\w -]+?)(?: \(|$)")
# Frames of the fuzzing machinery, not of the code under test.
MACHINERY = re.compile(r"fuzzer::|__sanitizer|__asan|__ubsan|__interceptor|libc_start|"
                       r"^_start$|^main$|LLVMFuzzerTestOneInput|^__libc|^abort$|^raise$|^__GI_")


def read_targets():
    """(name, format) of every target of fuzz/targets.txt, in its order."""
    targets = []
    for line in (HERE / "targets.txt").read_text().splitlines():
        if re.match(r"^[a-z]", line):
            fields = line.split()
            targets.append((fields[0], fields[1]))
    return targets


def libfuzzer_options(path):
    """The [libfuzzer] section of a target's .options file as -flag=value."""
    flags, section = [], None
    if not path.exists():
        return flags
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "libfuzzer" and "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            if key != "dict":  # given with its full path
                flags.append(f"-{key}={value}")
    return flags


def parse_fork_log(text):
    """Executions, executions a second and the crash counts of a -fork run:
    its last status line."""
    last = None
    for line in text.splitlines():
        match = FORK_STATUS.match(line)
        if match:
            last = match
    if last is None:
        return {"executions": 0, "exec_per_second": 0, "seconds": 0}
    values = [int(v) for v in last.groups()]
    return {"executions": values[0], "exec_per_second": values[4], "seconds": values[8],
            "oom_timeout_crash": values[5:8]}


def parse_inited(text):
    """cov and ft of a -runs=0 replay, or None."""
    match = INITED.search(text)
    if not match:
        return None
    return {"cov": int(match.group(1)), "ft": int(match.group(2)), "inputs": int(match.group(3))}


def short_function(text):
    """A frame's function without its argument list and return type:
    "std::optional<T> ns::(anonymous namespace)::F<A>(int) const" -> "ns::(anonymous namespace)::F<A>"."""
    name = re.sub(r"\s+(const|volatile|&&|&)$", "", text.strip())
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    depth, cut = 0, -1
    for i, c in enumerate(name):
        depth += {"<": 1, "(": 1, ">": -1, ")": -1}.get(c, 0)
        if c == " " and depth == 0:
            cut = i
    return name[cut + 1:]


def stack_signature(text, depth=3):
    """What a finding is, for deduplication: the sanitizer's report kind and
    the first `depth` frames of the code under test, without addresses or
    lines (the same bug reached by two inputs has one signature)."""
    kind = "unknown"
    for line in text.splitlines():
        match = SANITIZER.search(line)
        if match:
            kind = match.group(2) or match.group(3) or match.group(4).replace(" ", "-")
            kind = kind.strip()
            break
    frames = []
    for line in text.splitlines():
        match = FRAME.match(line)
        if not match:
            if frames and not line.strip():
                break  # the first stack only
            continue
        function = short_function(match.group(2))
        if MACHINERY.search(function):
            continue
        frames.append(function)
        if len(frames) == depth:
            break
    return kind, frames


def run(command, log=None, env=None, timeout=None, cwd=None):
    """Runs `command` in `cwd`, by default the directory of `log`; its
    combined output (also written to `log`). libFuzzer writes the input of a
    crash it meets outside -fork's own artifacts (a crashing seed or
    regression, a merge) into its working directory, which must not be the
    caller's."""
    if cwd is None and log is not None:
        cwd = log.parent
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=env, timeout=timeout, cwd=cwd, check=False)
    output = result.stdout.decode("utf-8", "replace")
    if log is not None:
        log.write_text(output)
    return result.returncode, output


def children_cpu_seconds():
    """User and system time of every finished child process and its own
    children (the -fork workers): a campaign's CPU time, which wall time
    times jobs overstates on a busy machine."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def tree_size(directory):
    files = [p for p in directory.rglob("*") if p.is_file()]
    return {"files": len(files), "bytes": sum(p.stat().st_size for p in files)}


def replay_env():
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "symbolize=1:detect_leaks=1:" + env.get("ASAN_OPTIONS", "")
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:" + env.get("UBSAN_OPTIONS", "")
    return env


def triage(binary, options, artifacts, logs):
    """Every artifact replayed, grouped by signature; one reproducer of each
    group minimised."""
    groups = {}
    for artifact in sorted(artifacts.glob("*")):
        if not artifact.is_file() or artifact.name.startswith("minimized-"):
            continue
        _, output = run([str(binary), *options, "-runs=1", str(artifact)], env=replay_env(),
                        timeout=120, cwd=logs)
        kind, frames = stack_signature(output)
        if kind == "unknown" and artifact.name.startswith(("timeout-", "oom-", "slow-unit-")):
            kind = artifact.name.split("-", 1)[0]
        key = kind + "|" + "|".join(frames)
        group = groups.setdefault(key, {"kind": kind, "frames": frames, "inputs": []})
        group["inputs"].append(str(artifact))
    findings = []
    for key, group in groups.items():
        digest = hashlib.sha1(key.encode()).hexdigest()[:12]
        first = Path(group["inputs"][0])
        minimized = artifacts / f"minimized-{digest}"
        if not minimized.exists() and group["kind"] not in ("timeout", "oom", "slow-unit"):
            run([str(binary), *options, "-minimize_crash=1", "-runs=20000",
                 f"-exact_artifact_path={minimized}", str(first)],
                log=logs / f"minimize-{digest}.log", env=replay_env(), timeout=600)
        findings.append({"signature": digest, "kind": group["kind"], "frames": group["frames"],
                         "inputs": len(group["inputs"]), "reproducer": str(first),
                         "minimized": str(minimized) if minimized.exists() else None})
    return findings


def format_rules(accelcheck, fmt):
    """The ids of the rules of format `fmt` (accelcheck rules)."""
    _, output = run([str(accelcheck), "rules", "--output", "json"])
    for entry in json.loads(output)["formats"]:
        if entry["id"] == fmt:
            return {rule["id"] for rule in entry["rules"]}
    return set()


def replay_rules(binary, options, inputs, rule_log, log=None):
    """The rule ids the diagnostics of one -runs=0 replay of `inputs` name
    (fuzz_oracles.h RuleLog), and the replay's output."""
    rule_log.unlink(missing_ok=True)
    _, output = run([str(binary), *options, "-runs=0", *map(str, inputs)], log=log,
                    env=dict(os.environ, ACCELCHECK_FUZZ_RULES=str(rule_log)))
    reached = set(rule_log.read_text().split()) if rule_log.exists() else set()
    return reached, output


def campaign(target, fmt, args, out):
    fuzz_dir = args.build / "fuzz"
    binary = fuzz_dir / target
    if not binary.exists():
        raise SystemExit(f"campaign.py: {binary} is missing: build the fuzz targets first")
    corpus = out / "corpus" / target
    seeds = out / "seeds" / target
    artifacts = out / "findings" / target
    logs = out / "logs" / target
    for directory in (corpus, artifacts, logs):
        directory.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(HERE / "seeds.sh"), str(args.build / "tools" / "accelcheck"), target,
                    str(seeds)], check=True, stdout=subprocess.DEVNULL)
    options = libfuzzer_options(fuzz_dir / f"{target}.options")
    regressions = HERE / "regressions" / fmt
    inputs = [str(seeds)] + ([str(regressions)] if regressions.is_dir() else [])

    _, seeded = run([str(binary), *options, "-runs=0", *inputs], log=logs / "seeds.log")
    corpus_before = tree_size(corpus)
    started = time.monotonic()
    cpu_started = children_cpu_seconds()
    # One run of --seconds, then, while the workers have had less CPU time
    # than --cpu-seconds (a busy machine), runs of what is missing.
    executions, runs, seconds = 0, 0, args.seconds
    while True:
        _, fork_log = run([str(binary), *options, f"-dict={fuzz_dir / (target + '.dict')}",
                           f"-fork={args.jobs}", f"-max_total_time={seconds}",
                           "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1",
                           f"-rss_limit_mb={args.rss_limit_mb}",
                           f"-artifact_prefix={artifacts}/", str(corpus), *inputs],
                          log=logs / f"fuzz{'' if runs == 0 else runs}.log")
        executions += parse_fork_log(fork_log)["executions"]
        runs += 1
        missing = args.cpu_seconds - (children_cpu_seconds() - cpu_started)
        if missing <= 0:
            break
        seconds = max(5, int(missing / args.jobs) + 1)
    wall = time.monotonic() - started
    cpu = children_cpu_seconds() - cpu_started
    grown = tree_size(corpus)

    # The corpus merged into the inputs that keep its coverage.
    merged = out / "corpus" / f".{target}.merged"
    shutil.rmtree(merged, ignore_errors=True)
    merged.mkdir()
    run([str(binary), *options, "-merge=1", str(merged), str(corpus), *inputs],
        log=logs / "merge.log")
    shutil.rmtree(corpus)
    merged.rename(corpus)
    # The merged corpus replayed: its coverage, and the rules it reaches.
    reached, final = replay_rules(binary, options, [corpus], logs / "rules.txt",
                                  logs / "corpus.log")
    rules = format_rules(args.build / "tools" / "accelcheck", fmt)

    seeds_cov, corpus_cov = parse_inited(seeded), parse_inited(final)
    return {
        "target": target,
        "format": fmt,
        "seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "jobs": args.jobs,
        "fuzz_runs": runs,
        "executions": executions,
        "exec_per_second": round(executions / wall) if wall > 0 else 0,
        "exec_per_cpu_second": round(executions / cpu) if cpu > 0 else 0,
        "corpus": {"before": corpus_before, "grown": grown, "merged": tree_size(corpus),
                   "seeds": tree_size(seeds),
                   "regressions": tree_size(regressions) if regressions.is_dir() else
                   {"files": 0, "bytes": 0},
                   "path": str(corpus)},
        "coverage": {"seeds": seeds_cov, "corpus": corpus_cov,
                     "new_cov": (corpus_cov["cov"] - seeds_cov["cov"])
                                if seeds_cov and corpus_cov else None,
                     "new_ft": (corpus_cov["ft"] - seeds_cov["ft"])
                               if seeds_cov and corpus_cov else None},
        "rules": {"reached": sorted(reached & rules), "core_reached": sorted(
            r for r in reached if r.startswith("core.")),
                  "never_reached": sorted(rules - reached)},
        "findings": triage(binary, options, artifacts, logs),
        "logs": str(logs),
    }


def never_reached_by_format(results):
    """Per format, the rules none of its targets in `results` reached."""
    never = {}
    for r in results:
        unreached = set(r["rules"]["never_reached"])
        never[r["format"]] = never.get(r["format"], unreached) & unreached
    return {fmt: sorted(rules) for fmt, rules in never.items()}


def text_summary(results):
    lines = []
    for r in results:
        cov = r["coverage"]
        lines.append(
            f"{r['target']}: {r['executions']} executions in {r['seconds']} s on {r['jobs']} "
            f"jobs, {r['cpu_seconds']} CPU seconds ({r['exec_per_second']}/s, "
            f"{r['exec_per_cpu_second']} a CPU second); corpus {r['corpus']['merged']['files']} inputs, "
            f"{r['corpus']['merged']['bytes']} bytes after the merge "
            f"({r['corpus']['grown']['files']} before); cov {cov['corpus']['cov'] if cov['corpus'] else '?'}"
            f" (+{cov['new_cov']} over the seeds), ft {cov['corpus']['ft'] if cov['corpus'] else '?'}"
            f" (+{cov['new_ft']}); {len(r['rules']['reached'])} of the format's rules reached; "
            f"{len(r['findings'])} distinct findings")
        if r["rules"]["never_reached"]:
            lines.append(f"  never reached: {' '.join(r['rules']['never_reached'])}")
        for f in r["findings"]:
            lines.append(f"  {f['kind']} [{f['signature']}] x{f['inputs']}: "
                         f"{' < '.join(f['frames']) or '(no frames)'}")
            lines.append(f"    reproducer {f['minimized'] or f['reproducer']}")
    for fmt, never in never_reached_by_format(results).items():
        lines.append(f"{fmt}: {len(never)} rules no target of the format reached"
                     + (f": {' '.join(never)}" if never else ""))
    return "\n".join(lines) + "\n"


def main():
    targets = read_targets()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, required=True,
                        help="a fuzz build (-DACCELCHECK_BUILD_FUZZERS=ON)")
    parser.add_argument("--out", type=Path, required=True,
                        help="the campaign's directory: corpora, findings, logs, summary")
    parser.add_argument("--seconds", type=int, default=3600, help="per target (default 3600)")
    parser.add_argument("--cpu-seconds", type=int, default=0,
                        help="per target: fuzz on until the workers had this much CPU time")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="libFuzzer -fork processes (default: the cores)")
    parser.add_argument("--rss-limit-mb", type=int, default=2048)
    parser.add_argument("targets", nargs="*", help="default: every target of fuzz/targets.txt")
    args = parser.parse_args()
    known = dict(targets)
    chosen = args.targets or [name for name, _ in targets]
    unknown = [t for t in chosen if t not in known]
    if unknown or args.seconds < 1 or args.jobs < 1 or args.cpu_seconds < 0:
        parser.error(f"unknown targets {unknown}" if unknown else
                     "--seconds and --jobs are >= 1, --cpu-seconds >= 0")
    # Absolute, for the fuzzers run in their logs' directories.
    args.build, args.out = args.build.resolve(), args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for target in chosen:
        results.append(campaign(target, known[target], args, args.out))
        # Written after each target, so that a long campaign shows its progress.
        summary = {"targets": results, "never_reached_by_format": never_reached_by_format(results)}
        (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        (args.out / "summary.txt").write_text(text_summary(results))
    sys.stdout.write(text_summary(results))
    return 1 if any(r["findings"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
