#!/usr/bin/env python3
"""ci_definitions_test.py SOURCE_DIR ACCELCHECK WORK_DIR

The GitHub Action (action.yml) and the pre-commit hook (.pre-commit-hooks.yaml):
both parse, declare what README.md shows, and the action's validate step, run
with bash as the runner would (no network, no other step), writes the SARIF
report and the exit code. Exits 77 (skipped) without python3-yaml.
"""
import json
import os
import re
import shutil
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("python3-yaml is not installed")
    sys.exit(77)

VALID_ARCH = {
    "data_type": "FP16BP8", "array_size": 8, "dram0_depth": 1024, "dram1_depth": 1024,
    "local_depth": 256, "accumulator_depth": 256, "simd_registers_depth": 1,
    "stride0_depth": 8, "stride1_depth": 8, "number_of_threads": 1, "thread_queue_depth": 8,
}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def read(source, name):
    with open(os.path.join(source, name), encoding="utf-8") as f:
        return f.read()


def check_action(action, text):
    check(action["runs"]["using"] == "composite", "action.yml is not a composite action")
    inputs = action["inputs"]
    for name in ("paths", "args", "strict", "srcroot", "sarif-file", "upload-sarif", "deb"):
        check(name in inputs, f"action.yml lacks the input {name}")
    steps = action["runs"]["steps"]
    for step in steps:
        if "run" not in step:
            continue
        check(step.get("shell") == "bash", f"step {step['name']!r} does not run in bash")
        syntax = subprocess.run(["bash", "-n", "-c", step["run"]], capture_output=True, text=True)
        check(syntax.returncode == 0, f"step {step['name']!r}: {syntax.stderr}")
    for used in re.findall(r"inputs\.([\w-]+)", text):
        check(used in inputs, f"action.yml uses the undeclared input {used}")
    uploads = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    check(len(uploads) == 1, "action.yml does not upload with github/codeql-action/upload-sarif")


def check_hooks(hooks):
    by_id = {hook["id"]: hook for hook in hooks}
    hook = by_id.get("accelcheck-validate")
    check(hook is not None, "no hook accelcheck-validate")
    check(hook["language"] == "system", "the hook's language is not system")
    check(hook["entry"] == "accelcheck validate", "the hook's entry is not accelcheck validate")
    files = re.compile(hook["files"])
    for name in ("m.pte", "m.ptd", "dir/m.tmodel", "a.tarch"):
        check(files.search(name), f"the hook skips {name}")
    for name in ("package.json", "m.pte.txt", "notes.md"):
        check(not files.search(name), f"the hook checks {name}")


def check_readme(source):
    readme = read(source, "README.md")
    for text in ("action.yml", ".pre-commit-hooks.yaml", "id: accelcheck-validate"):
        check(text in readme, f"README.md does not show {text}")


def run_validate_step(action, accelcheck, work, paths, strict, srcroot=""):
    """Runs the validate step's script; returns its outputs as a dict."""
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "validate")
    outputs = os.path.join(work, "github_output")
    open(outputs, "w").close()
    env = dict(os.environ, ACCELCHECK=accelcheck, GITHUB_OUTPUT=outputs, PATHS=paths,
               ARGS="", STRICT=strict, SRCROOT=srcroot, SARIF=os.path.join(work, "report.sarif"))
    subprocess.run(["bash", "-c", step["run"]], env=env, cwd=work, check=True)
    with open(outputs, encoding="utf-8") as f:
        return dict(line.strip().split("=", 1) for line in f if "=" in line)


def check_validate_step(action, accelcheck, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "models"))
    with open(os.path.join(work, "models", "a.tarch"), "w", encoding="utf-8") as f:
        json.dump(VALID_ARCH, f)
    with open(os.path.join(work, "b.tarch"), "w", encoding="utf-8") as f:
        json.dump(dict(VALID_ARCH, array_size=0), f)

    clean = run_validate_step(action, accelcheck, work, "models/", "false")
    check(clean.get("exit-code") == "0", f"a valid architecture: {clean}")
    check(clean.get("sarif-written") == "true", "no SARIF report for a valid architecture")

    broken = run_validate_step(action, accelcheck, work, "models/\n b.tarch", "true", srcroot=work)
    check(broken.get("exit-code") == "1", f"a broken architecture: {broken}")
    with open(os.path.join(work, "report.sarif"), encoding="utf-8") as f:
        results = json.load(f)["runs"][0]["results"]
    check([r["ruleId"] for r in results] == ["tensil.arch.positive"], f"SARIF results {results}")
    location = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    check((location.get("uri"), location.get("uriBaseId")) == ("b.tarch", "SRCROOT"),
          f"the srcroot input does not make URIs relative to the checkout: {location}")


def main():
    source, accelcheck, work = sys.argv[1:4]
    action_text = read(source, "action.yml")
    action = yaml.safe_load(action_text)
    check_action(action, action_text)
    check_hooks(yaml.safe_load(read(source, ".pre-commit-hooks.yaml")))
    check_readme(source)
    check_validate_step(action, accelcheck, work)
    print("action.yml and .pre-commit-hooks.yaml as README.md shows them")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAILED: {e}")
        sys.exit(1)
