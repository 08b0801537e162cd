#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host tests of tools/trace/enpu-trace-json: the two captures from the
VM committed in data/ (tracefs and trace-cmd report text) convert into
traces that check_trace.py accepts, and synthetic lines pin down the
parser and the timeline rules one by one. Ends with
"test-trace: N passed, N failed".
"""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "tools", "trace", "enpu-trace-json")


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


tj = load("enpu_trace_json", SCRIPT)
check = load("check_trace", os.path.join(HERE, "check_trace.py"))

TRACEFS = " enpu-trace-load-127     [000] d..1.     4.199883: "
REPORT = " enpu-trace-load-133   [000]    10.017930: "


def events(lines):
    return tj.convert(list(tj.parse(lines)))["traceEvents"]


def names(evs, ph):
    return [e["name"] for e in evs if e["ph"] == ph]


class Captures(unittest.TestCase):
    def check_capture(self, name):
        with open(os.path.join(HERE, "data", name), encoding="utf-8") as f:
            doc = tj.convert(list(tj.parse(f)))
        failures = [what for ok, what in check.check_events(doc, True)
                    if not ok]
        self.assertEqual([], failures)

    def test_tracefs_capture_from_the_vm_converts(self):
        self.check_capture("vm-tracefs.txt")

    def test_trace_cmd_report_capture_from_the_vm_converts(self):
        self.check_capture("vm-trace-cmd.txt")

    def test_debug_kernel_capture_with_shared_timestamps_converts(self):
        # make check-debug, 2026-12-03: job 3's done (CPU 0) printed
        # before its run (CPU 1), both at 68.102061.
        self.check_capture("vm-tracefs-debug-kernel.txt")


class Parser(unittest.TestCase):
    def test_tracefs_line_with_flags_column(self):
        (ts, event, fields), = tj.parse(
            [TRACEFS + "enpu_job_queue: job=1 ctx=2 prio=0 seqno=7"])
        self.assertEqual(4199883000, ts)
        self.assertEqual("enpu_job_queue", event)
        self.assertEqual({"job": 1, "ctx": 2, "prio": 0, "seqno": 7}, fields)

    def test_trace_cmd_report_line_without_flags(self):
        (ts, event, fields), = tj.parse(
            [REPORT + "enpu_job_done:        job=5 ctx=1 prio=0 "
             "error=-115 cycles=205039513"])
        self.assertEqual(10017930000, ts)
        self.assertEqual(-115, fields["error"])
        self.assertEqual(205039513, fields["cycles"])

    def test_nanosecond_timestamps(self):
        (ts, _, _), = tj.parse(
            [" a-1 [001] 12.000000123: enpu_job_run: job=1 ctx=0 prio=1 "
             "level=1 queue=1"])
        self.assertEqual(12000000123, ts)

    def test_task_names_with_dashes_and_spaces(self):
        (_, _, fields), = tj.parse(
            [" kworker/u4:1-my task-55 [001] 1.5: enpu_job_run: job=9 "
             "ctx=3 prio=1 level=1 queue=1"])
        self.assertEqual(9, fields["job"])

    def test_comments_other_events_and_unknown_enpu_events_are_skipped(self):
        self.assertEqual([], list(tj.parse([
            "# tracer: nop",
            " a-1 [000] 1.0: sched_switch: prev_comm=a",
            " a-1 [000] 1.0: enpu_job_frobnicate: job=1 ctx=1",
            "",
        ])))

    def test_an_event_without_a_job_is_an_error_naming_the_line(self):
        with self.assertRaisesRegex(tj.TraceError, "line 2: .*job="):
            list(tj.parse(["# x", " a-1 [000] 1.0: enpu_job_run: ctx=1"]))


class Timeline(unittest.TestCase):
    def test_a_run_is_a_slice_from_run_to_done_with_cycles(self):
        evs = events([
            TRACEFS.replace("4.199883", "1.000000") +
            "enpu_job_queue: job=1 ctx=2 prio=1 seqno=1",
            TRACEFS.replace("4.199883", "1.000010") +
            "enpu_job_run: job=1 ctx=2 prio=1 level=1 queue=1",
            TRACEFS.replace("4.199883", "1.000510") +
            "enpu_job_done: job=1 ctx=2 prio=1 error=0 cycles=500000",
        ])
        begin = [e for e in evs if e["ph"] == "b" and e["name"] == "job 1"]
        end = [e for e in evs if e["ph"] == "e" and e["name"] == "job 1"]
        self.assertEqual(1, len(begin))
        self.assertEqual(500.0, end[0]["ts"] - begin[0]["ts"])
        self.assertEqual(500000, begin[0]["args"]["cycles"])
        self.assertEqual(["submit job=1", "done job=1"], names(evs, "i"))
        thread = [e for e in evs if e["name"] == "thread_name"]
        self.assertEqual([{"name": "ctx 2 prio 1"}],
                         [e["args"] for e in thread])

    def test_a_preempted_run_and_its_resumed_run_are_two_slices(self):
        evs = events([
            " a-1 [0] 1.0: enpu_job_run: job=3 ctx=1 prio=0 level=0 queue=0",
            " a-1 [0] 1.1: enpu_job_preempt: job=3 ctx=1 prio=0 level=0",
            " a-1 [0] 1.2: enpu_job_done: job=3 ctx=1 prio=0 error=-115 "
            "cycles=7",
            " a-1 [0] 1.3: enpu_job_resume: job=3 ctx=1 prio=0 level=0",
            " a-1 [0] 1.3: enpu_job_run: job=3 ctx=1 prio=0 level=0 queue=0",
            " a-1 [0] 1.4: enpu_job_done: job=3 ctx=1 prio=0 error=0 "
            "cycles=9",
        ])
        self.assertEqual(["job 3 (preempted)", "job 3"], names(evs, "b"))
        resumed = [e["args"]["resumed"] for e in evs if e["ph"] == "b"]
        self.assertEqual([False, True], resumed)
        self.assertEqual(["preempt job=3", "done job=3"], names(evs, "i"))

    def test_a_job_that_never_ran_ends_its_queued_slice_at_done(self):
        evs = events([
            " a-1 [0] 1.0: enpu_job_queue: job=4 ctx=1 prio=1 seqno=1",
            " a-1 [0] 2.0: enpu_job_done: job=4 ctx=1 prio=1 error=-125 "
            "cycles=0",
        ])
        self.assertEqual(["queued job=4"], names(evs, "b"))
        self.assertEqual(["queued job=4"], names(evs, "e"))
        done = [e for e in evs if e["name"] == "done job=4"]
        self.assertEqual(-125, done[0]["args"]["error"])

    def test_a_done_before_its_run_at_the_same_instant_ends_that_run(self):
        evs = events([
            " a-1 [1] 1.0: enpu_job_queue: job=3 ctx=0 prio=1 seqno=1",
            " b-0 [0] 2.0: enpu_job_done: job=3 ctx=0 prio=1 error=0 "
            "cycles=8",
            " b-0 [0] 2.0: enpu_job_done: job=5 ctx=0 prio=1 error=-125 "
            "cycles=0",
            " a-1 [1] 2.0: enpu_job_run: job=3 ctx=0 prio=1 level=1 queue=1",
            " a-1 [1] 3.0: enpu_job_run: job=5 ctx=0 prio=1 level=1 queue=1",
        ])
        self.assertEqual(["queued job=3", "job 3"], names(evs, "b"))
        self.assertEqual(["queued job=3", "job 3"], names(evs, "e"))
        self.assertEqual(["submit job=3", "done job=3", "done job=5"],
                         names(evs, "i"))

    def test_a_run_before_its_queue_at_the_same_instant_ends_the_queue(self):
        evs = events([
            " a-1 [1] 1.0: enpu_job_run: job=2 ctx=0 prio=1 level=1 queue=1",
            " a-1 [0] 1.0: enpu_job_queue: job=2 ctx=0 prio=1 seqno=1",
            " a-1 [0] 1.5: enpu_job_done: job=2 ctx=0 prio=1 error=0 "
            "cycles=8",
        ])
        queued_end = [e["ts"] for e in evs
                      if e["ph"] == "e" and e["name"] == "queued job=2"]
        self.assertEqual([0.0], queued_end)  # at the run, not at the done
        self.assertEqual(["queued job=2", "job 2"], names(evs, "b"))

    def test_unsorted_input_is_ordered_by_time(self):
        evs = events([
            " a-1 [1] 2.0: enpu_job_done: job=1 ctx=0 prio=1 error=0 "
            "cycles=1",
            " a-1 [0] 1.0: enpu_job_run: job=1 ctx=0 prio=1 level=1 queue=1",
        ])
        self.assertEqual(["job 1"], names(evs, "b"))


class Program(unittest.TestCase):
    def run_script(self, *args, text=""):
        return subprocess.run([sys.executable, SCRIPT, *args], input=text,
                              capture_output=True, text=True, check=False)

    def test_writes_json_to_a_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "t.json")
            result = self.run_script(
                os.path.join(HERE, "data", "vm-tracefs.txt"), "-o", out)
            self.assertEqual(0, result.returncode, result.stderr)
            with open(out, encoding="utf-8") as f:
                self.assertIn("traceEvents", json.load(f))

    def test_a_trace_without_enpu_events_fails_with_a_message(self):
        result = self.run_script(text="# tracer: nop\n")
        self.assertEqual(1, result.returncode)
        self.assertIn("no enpu_job_* events", result.stderr)

    def test_a_missing_file_fails_naming_it(self):
        result = self.run_script("/nonexistent/trace.txt")
        self.assertEqual(1, result.returncode)
        self.assertIn("/nonexistent/trace.txt", result.stderr)



if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(
        suite)
    failed = len(result.failures) + len(result.errors)
    print(f"test-trace: {result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
