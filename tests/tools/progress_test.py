#!/usr/bin/env python3
"""The progress line on standard error: drawn for a run longer than two seconds
when standard error is a terminal, never with --quiet, never into a pipe.

usage: progress_test.py ACCELCHECK WORK_DIR
"""
import os
import subprocess
import sys

ERASE = "\r\x1b[K"


def start(exe, args, terminal):
    """Starts `accelcheck args`; standard error is a new terminal when asked."""
    if not terminal:
        return subprocess.Popen([exe] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE), None
    master, slave = os.openpty()
    proc = subprocess.Popen([exe] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=slave)
    os.close(slave)
    return proc, master


def finish(proc, master):
    """What the command wrote on standard error, and its exit code."""
    if master is None:
        err = proc.communicate()[1]
        return err.decode(), proc.returncode
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the command closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return b"".join(chunks).decode(errors="replace"), proc.wait()


def main():
    exe, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ir = os.path.join(work, "long.json")
    # Three seconds or more of execution: convolutions of 32 channels over 128 x 128.
    subprocess.run([exe, "generate", "gemini", "--layers", "28", "--channels", "32", "--height",
                    "128", "--width", "128", "-q", "-o", ir], check=True)
    command = ["run", ir, "--frontend", os.path.join(work, "long.frontend.json")]
    # The three runs at once: each takes the same time.
    runs = {"terminal": start(exe, command, True),
            "quiet": start(exe, command + ["--quiet"], True),
            "pipe": start(exe, command, False)}
    results = {name: finish(*run) for name, run in runs.items()}
    failures = []
    for name, (err, code) in results.items():
        if code != 0:
            failures.append(f"{name}: exit {code}: {err!r}")
    err = results["terminal"][0]
    if ERASE + "accelcheck run: layers and workloads " not in err:
        failures.append(f"no progress line on a terminal: {err[-300:]!r}")
    if not err.endswith(ERASE):
        failures.append(f"the progress line is not erased at the end: {err[-100:]!r}")
    for name in ("quiet", "pipe"):
        if results[name][0]:
            failures.append(f"{name}: standard error is {results[name][0][:300]!r}")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
