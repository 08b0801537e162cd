#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Converts a trace with tools/trace/enpu-trace-json (run as a program,
as a user would) and checks the JSON: well-formed trace events, balanced
slices, one track per context, submit/run/done for every job, and with
--expect-preemption a preempted run followed by a resumed one of the same
job. Prints each check and "NAME: N passed, N failed"; exits 1 on any
failure.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONVERTER = os.path.join(HERE, "..", "..", "tools", "trace", "enpu-trace-json")


def convert(path):
    result = subprocess.run([sys.executable, CONVERTER, path],
                            capture_output=True, text=True, check=False)
    return result.returncode, result.stdout, result.stderr


def check_events(doc, expect_preemption):
    """Yields (ok, description) for every check of a converted trace."""
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    yield isinstance(events, list) and len(events) > 0, \
        "traceEvents is a non-empty list"
    if not isinstance(events, list):
        return
    yield doc.get("displayTimeUnit") in ("ns", "ms"), "displayTimeUnit set"
    fields_ok = all(
        isinstance(e, dict) and e.get("ph") in ("i", "b", "e", "M") and
        isinstance(e.get("name"), str) and isinstance(e.get("pid"), int) and
        isinstance(e.get("tid"), int) and
        (e["ph"] == "M" or (isinstance(e.get("ts"), (int, float)) and
                            e["ts"] >= 0))
        for e in events)
    yield fields_ok, "every event has ph, name, pid, tid and ts >= 0"

    opened = {}
    slices = []
    balanced = True
    for e in sorted((e for e in events if e.get("ph") in ("b", "e")),
                    key=lambda e: (e["ts"], e["ph"] != "b")):
        key = (e.get("id"), e["name"], e["tid"])
        if e["ph"] == "b":
            balanced &= key not in opened
            opened[key] = e
        elif key in opened:
            begin = opened.pop(key)
            slices.append((begin, e))
        else:
            balanced = False
    yield balanced and not opened, \
        f"slices balanced ({len(slices)} closed, {len(opened)} left open)"

    threads = {e["tid"]: e["args"].get("name") for e in events
               if e.get("ph") == "M" and e["name"] == "thread_name"}
    used = {e["tid"] for e in events if e.get("ph") != "M"}
    yield used <= set(threads), f"every context track named ({len(threads)})"
    yield len(threads) >= (3 if expect_preemption else 1), \
        "contexts of the workload present"

    def numbered(pattern):
        return collections.Counter(
            int(m.group(1)) for e in events
            if e.get("ph") == "i" and (m := re.fullmatch(pattern, e["name"])))

    submits = numbered(r"submit job=(\d+)")
    dones = numbered(r"done job=(\d+)")
    preempts = numbered(r"preempt job=(\d+)")
    runs = collections.defaultdict(list)
    for begin, end in slices:
        match = re.fullmatch(r"job (\d+)( \(preempted\))?", begin["name"])
        if match:
            runs[int(match.group(1))].append(
                (begin["ts"], end["ts"], bool(match.group(2)),
                 begin.get("args", {})))
    yield len(submits) > 0 and set(submits) == set(dones), \
        f"every submitted job is done once ({len(submits)} jobs)"
    yield all(v == 1 for v in dones.values()), "no job done twice"
    yield all(runs.get(job) for job in submits), "every job has a run slice"
    yield all(s <= e for v in runs.values() for s, e, _, _ in v), \
        "run slices end after they start"
    yield all(a.get("cycles") is not None for v in runs.values()
              for _, _, _, a in v), "run slices carry the device's cycles"
    if expect_preemption:
        resumed = [job for job, v in runs.items()
                   if len(v) >= 2 and v[0][2] and not v[-1][2] and
                   v[-1][3].get("resumed")]
        yield len(preempts) > 0, f"preempt requests ({sum(preempts.values())})"
        yield len(resumed) > 0, \
            f"a preempted run resumed later (jobs {resumed})"
        yield all(job in runs and any(p for _, _, p, _ in runs[job])
                  for job in resumed), "resumed jobs were preempted first"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--name", default="trace")
    parser.add_argument("--expect-preemption", action="store_true")
    args = parser.parse_args()
    passed = failed = 0
    status, out, err = convert(args.trace)
    checks = [(status == 0, f"converter exits 0 ({err.strip()})")]
    try:
        doc = json.loads(out)
        checks.append((True, "output is JSON"))
        checks.extend(check_events(doc, args.expect_preemption))
    except json.JSONDecodeError as error:
        checks.append((False, f"output is JSON ({error})"))
    for ok, what in checks:
        print(("ok - " if ok else "not ok - ") + what)
        passed += ok
        failed += not ok
    print(f"{args.name}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
