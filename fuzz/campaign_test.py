#!/usr/bin/env python3
"""fuzz/campaign.py: what it reads from libFuzzer and the sanitizers, on
reports as they print them, then a short campaign over a fuzz build:
campaign_test.py BUILD."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import campaign  # noqa: E402

BUILD = None

UBSAN = """\
/usr/include/flatbuffers/buffer.h:77:25: runtime error: load of misaligned address 0x616000000da4 for type 'const long', which requires 8 byte alignment
    #0 0x55f471edf2f9 in Read /usr/include/flatbuffers/buffer.h:77:25
    #1 0x55f471edf2f9 in operator* /usr/include/flatbuffers/vector.h:70:33
    #2 0x55f471edf2f9 in std::optional<std::vector<long, std::allocator<long> > > accelcheck::conformance::ReadScalars<long, long>(flatbuffers::Vector<long> const*) /work/main/conformance/flatbuffer_read.h:25:15
    #3 0x55f471edc6f1 in accelcheck::edgetpu::(anonymous namespace)::ReadTensor(accelcheck::tflite::Tensor const*) /work/main/conformance/edgetpu/read.cc:282:31
    #11 0x55f471def88a in LLVMFuzzerTestOneInput /work/main/fuzz/edgetpu/edgetpu_fuzzer.cc:84:5
    #12 0x55f471d158c3 in fuzzer::Fuzzer::ExecuteCallback(unsigned char const*, unsigned long) (/b/fuzz/edgetpu_fuzzer+0x25e8c3) (BuildId: 33d6)
"""

UBSAN_OVERFLOW = """\
/work/main/validators/gemini/validate_tiles.cc:416:58: runtime error: signed integer overflow: -9223372036854775808 - 1 cannot be represented in type 'long'
    #0 0x56177851d3bc in accelcheck::gemini::TileInputWindow(accelcheck::gemini::FrontendLayer const&, accelcheck::gemini::Range const&) /work/main/validators/gemini/validate_tiles.cc:416:58
    #1 0x5617784d5ecb in accelcheck::gemini::set::(anonymous namespace)::CheckReceptiveField(accelcheck::gemini::set::Workload const&) /work/main/validators/gemini/validate_set.cc:557:45

SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior /work/main/validators/gemini/validate_tiles.cc:416:58 in
"""

ASAN = """\
=================================================================
==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011 at pc 0x55 bp 0x7ff sp 0x7fe
READ of size 1 at 0x602000000011 thread T0
    #0 0x55d1 in __asan_memcpy (/b/fuzz/pte_fuzzer+0x1)
    #1 0x55d2 in accelcheck::pte::ReadName(std::span<unsigned char const, 18446744073709551615ul>) const /work/main/validators/pte/names.cc:40:7
    #2 0x55d3 in accelcheck::pte::Validate(accelcheck::InputBuffer const&) /work/main/validators/pte/validate.cc:12:3
    #3 0x55d4 in LLVMFuzzerTestOneInput /work/main/fuzz/pte/pte_fuzzer.cc:20:3

0x602000000011 is located 0 bytes to the right of 1-byte region
    #0 0x55e1 in operator new(unsigned long) (/b/fuzz/pte_fuzzer+0x2)
    #1 0x55e2 in accelcheck::Elsewhere() /work/main/x.cc:1:1
"""


class Parsing(unittest.TestCase):
    def test_fork_status(self):
        log = ("INFO: -fork=2: fuzzing in separate process(s)\n"
               "#26968: cov: 5823 ft: 6225 corp: 281 exec/s 3301 oom/timeout/crash: 0/0/0 time: 7s job: 3 dft_time: 0\n"
               "#44582: cov: 5873 ft: 6468 corp: 341 exec/s 3522 oom/timeout/crash: 1/0/2 time: 8s job: 4 dft_time: 0\n"
               "INFO: exiting: 0 time: 9s\n")
        stats = campaign.parse_fork_log(log)
        self.assertEqual(stats["executions"], 44582)
        self.assertEqual(stats["exec_per_second"], 3522)
        self.assertEqual(stats["seconds"], 8)
        self.assertEqual(stats["oom_timeout_crash"], [1, 0, 2])
        self.assertEqual(campaign.parse_fork_log("no status")["executions"], 0)

    def test_inited(self):
        line = "#359\tINITED cov: 1939 ft: 5114 corp: 286/158Kb exec/s: 0 rss: 58Mb\n"
        self.assertEqual(campaign.parse_inited(line), {"cov": 1939, "ft": 5114, "inputs": 286})
        self.assertIsNone(campaign.parse_inited("INFO: nothing"))

    def test_function_names(self):
        self.assertEqual(campaign.short_function(
            "std::optional<std::vector<long, std::allocator<long> > > "
            "accelcheck::conformance::ReadScalars<long, long>(flatbuffers::Vector<long> const*)"),
            "accelcheck::conformance::ReadScalars<long, long>")
        self.assertEqual(campaign.short_function(
            "accelcheck::edgetpu::(anonymous namespace)::ReadTensor(accelcheck::tflite::Tensor const*)"),
            "accelcheck::edgetpu::(anonymous namespace)::ReadTensor")
        self.assertEqual(campaign.short_function("accelcheck::pte::ReadName(int) const"),
                         "accelcheck::pte::ReadName")

    def test_ubsan_signature(self):
        kind, frames = campaign.stack_signature(UBSAN)
        self.assertEqual(kind, "load of misaligned address")
        self.assertEqual(frames, ["Read", "operator*", "accelcheck::conformance::ReadScalars<long, long>"])

    def test_ubsan_kind_before_a_colon_or_a_negative_number(self):
        kind, frames = campaign.stack_signature(UBSAN_OVERFLOW)
        self.assertEqual(kind, "signed integer overflow")
        self.assertEqual(frames, ["accelcheck::gemini::TileInputWindow",
                                  "accelcheck::gemini::set::(anonymous namespace)::CheckReceptiveField"])

    def test_asan_signature_skips_machinery_and_later_stacks(self):
        kind, frames = campaign.stack_signature(ASAN)
        self.assertEqual(kind, "heap-buffer-overflow")
        self.assertEqual(frames, ["accelcheck::pte::ReadName", "accelcheck::pte::Validate"])

    def test_same_bug_other_addresses_one_signature(self):
        moved = UBSAN.replace("0x616000000da4", "0x6160000011a4").replace(":282:31", ":283:9")
        self.assertEqual(campaign.stack_signature(moved), campaign.stack_signature(UBSAN))
        self.assertNotEqual(campaign.stack_signature(ASAN), campaign.stack_signature(UBSAN))


class WorkingDirectory(unittest.TestCase):
    """What a fuzzer writes into its working directory lands beside its log,
    never in the campaign's caller's directory."""

    def test_a_run_works_in_the_directory_of_its_log(self):
        with tempfile.TemporaryDirectory() as work:
            work = Path(work)
            caller, logs = work / "caller", work / "logs"
            caller.mkdir()
            logs.mkdir()
            previous = os.getcwd()
            os.chdir(caller)
            try:
                campaign.run(["sh", "-c", "echo x > crash-stray"], log=logs / "fuzz.log")
            finally:
                os.chdir(previous)
            self.assertEqual(list(caller.iterdir()), [])
            self.assertTrue((logs / "crash-stray").is_file())


# Two bugs behind two first bytes, for the triage of real reports.
CRASHING_TARGET = r"""
#include <cstddef>
#include <cstdint>
#include <cstdlib>

__attribute__((noinline)) void OverflowOnA(const uint8_t* data) {
  char* buffer = static_cast<char*>(std::malloc(4));
  volatile char past = buffer[4 + (data[0] & 0)];
  (void)past;
  std::free(buffer);
}

__attribute__((noinline)) void TrapOnB() { __builtin_trap(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 0 && data[0] == 'A') OverflowOnA(data);
  if (size > 0 && data[0] == 'B') TrapOnB();
  return 0;
}
"""


class RealCrashTriage(unittest.TestCase):
    """campaign.triage on the reports of a target that really crashes: three
    inputs, two bugs, two findings, each reproducer minimised."""

    def test_groups_and_minimises(self):
        clang = shutil.which("clang++")
        if clang is None:
            self.skipTest("no clang++")
        with tempfile.TemporaryDirectory() as work:
            work = Path(work)
            (work / "crash.cc").write_text(CRASHING_TARGET)
            binary = work / "crash_fuzzer"
            subprocess.run([clang, "-g", "-O1", "-fsanitize=fuzzer,address",
                            str(work / "crash.cc"), "-o", str(binary)], check=True)
            artifacts, logs = work / "artifacts", work / "logs"
            artifacts.mkdir()
            logs.mkdir()
            (artifacts / "crash-1").write_bytes(b"A" + b"x" * 40)
            (artifacts / "crash-2").write_bytes(b"A" + b"y" * 90)
            (artifacts / "crash-3").write_bytes(b"B" + b"z" * 60)
            findings = campaign.triage(binary, [], artifacts, logs)
            by_kind = {f["kind"]: f for f in findings}
            self.assertEqual(sorted(by_kind), ["deadly-signal", "heap-buffer-overflow"], findings)
            overflow = by_kind["heap-buffer-overflow"]
            self.assertEqual(overflow["inputs"], 2)
            self.assertEqual(overflow["frames"][0], "OverflowOnA")
            self.assertEqual(by_kind["deadly-signal"]["frames"][0], "TrapOnB")
            for finding in findings:
                minimized = Path(finding["minimized"])
                self.assertLess(minimized.stat().st_size, Path(finding["reproducer"]).stat().st_size)
                replay = subprocess.run([str(binary), str(minimized)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, check=False)
                self.assertNotEqual(replay.returncode, 0, finding)


class ShortCampaign(unittest.TestCase):
    def test_two_targets(self):
        if BUILD is None:
            self.skipTest("no fuzz build given")
        with tempfile.TemporaryDirectory() as out:
            result = subprocess.run(
                [sys.executable, str(Path(campaign.__file__)), "--build", BUILD, "--out", out,
                 "--seconds", "1", "--cpu-seconds", "8", "--jobs", "1", "tensil_model_fuzzer",
                 "neff_fuzzer"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
            output = result.stdout.decode()
            self.assertEqual(result.returncode, 0, output)
            summary = json.loads((Path(out) / "summary.json").read_text())
            self.assertEqual([t["target"] for t in summary["targets"]],
                             ["tensil_model_fuzzer", "neff_fuzzer"])
            self.assertEqual(sorted(summary["never_reached_by_format"]), ["neff", "tensil"])
            for t in summary["targets"]:
                self.assertGreater(t["executions"], 0, t)
                self.assertGreater(t["exec_per_second"], 0, t)
                # One second (and the seeds' loading) cannot give one job
                # eight CPU seconds: the campaign ran on until it had them.
                self.assertGreaterEqual(t["fuzz_runs"], 2, t)
                self.assertGreaterEqual(t["cpu_seconds"], 8, t)
                self.assertLess(t["cpu_seconds"], 2 * t["seconds"], t)
                self.assertGreater(t["exec_per_cpu_second"], 0, t)
                self.assertGreater(t["corpus"]["merged"]["files"], 0, t)
                # The merge keeps a subset of what it was given.
                corpus = t["corpus"]
                self.assertLessEqual(corpus["merged"]["files"], corpus["grown"]["files"] +
                                     corpus["seeds"]["files"] + corpus["regressions"]["files"])
                self.assertGreaterEqual(t["coverage"]["corpus"]["cov"], t["coverage"]["seeds"]["cov"])
                self.assertEqual(t["findings"], [])
                # Every rule is either reached or listed as never reached.
                self.assertTrue(t["rules"]["reached"], t["rules"])
                self.assertFalse(set(t["rules"]["reached"]) & set(t["rules"]["never_reached"]))
                self.assertTrue(Path(t["corpus"]["path"]).is_dir())
            self.assertIn("tensil_model_fuzzer:", (Path(out) / "summary.txt").read_text())


if __name__ == "__main__":
    if len(sys.argv) > 1:
        BUILD = sys.argv.pop(1)
    unittest.main()
