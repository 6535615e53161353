#!/usr/bin/env python3
"""Runs the kill suite once per mutation site, with that one site switched off.

Usage: mutate.py TEST_PROGRAM REPORT_DIR [--site NAME ...] [--timeout SECONDS]
                 [--sweep MOQSIM] [--sweep-cases N]

The test program lists its sites with --list-sites and switches one off with
MOQ_MUTANT=NAME. A site is killed when at least one test case fails (or the program
crashes or times out) with it off. With --sweep, every site is also switched off in a
short seeded sweep of every suite (moqsim sweep --mutant NAME), and the first failing
case of each suite is named as a killer too ("resume seed 1 case 37"). Writes REPORT_DIR/mutation.json (the
mutation-testing report schema, version 2, which the standard HTML viewer renders) and
REPORT_DIR/mutation.md. Exits 1 when a site survives without a written reason, 2 on bad
input.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FAILED_CASE = re.compile(r"^TEST CASE:\s+(.+?)\s*$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def fail(message):
    print(f"mutate: {message}", file=sys.stderr)
    sys.exit(2)


def list_sites(program):
    out = subprocess.run([program, "--list-sites"], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        fail(f"{program} --list-sites failed: {out.stderr.strip()}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def run_suite(program, mutant, timeout):
    env = dict(os.environ)
    env.pop("MOQ_MUTANT", None)
    if mutant:
        env["MOQ_MUTANT"] = mutant
    started = time.monotonic()
    try:
        out = subprocess.run([program, "--no-intro", "--no-version", "--no-colors"], env=env,
                             capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"status": "Timeout", "killed_by": [], "reason": f"over {timeout} s",
                "ms": int((time.monotonic() - started) * 1000)}
    ms = int((time.monotonic() - started) * 1000)
    failed = []
    for line in ANSI.sub("", out.stdout).splitlines():
        match = FAILED_CASE.match(line)
        if match and match.group(1) not in failed:
            failed.append(match.group(1))
    if out.returncode < 0:
        return {"status": "Killed", "killed_by": failed, "reason": f"signal {-out.returncode}", "ms": ms}
    if out.returncode == 2 and not failed and "unknown mutant" in out.stderr:
        fail(out.stderr.strip())
    if out.returncode != 0:
        return {"status": "Killed", "killed_by": failed, "reason": f"exit {out.returncode}", "ms": ms}
    return {"status": "Survived", "killed_by": [], "reason": "", "ms": ms}


def run_sweep(moqsim, mutant, cases, timeout):
    """Kills by the property sweeps: the first failing (suite, seed, case) of each suite."""
    with tempfile.TemporaryDirectory() as folder:
        result = os.path.join(folder, "sweep.json")
        try:
            out = subprocess.run([moqsim, "sweep", "--seeds", "1", "--cases", str(cases), "--mutant", mutant,
                                  "--keep-going", "--json", result], capture_output=True, text=True,
                                 timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return [f"sweep (timeout over {timeout} s)"]
        if out.returncode == 2:
            fail(out.stderr.strip())
        if not os.path.exists(result):
            return [f"sweep (exit {out.returncode})"] if out.returncode != 0 else []
        with open(result) as handle:
            report = json.load(handle)
    killers = []
    for suite in report["suites"]:
        if suite["failures"]:
            first = suite["failures"][0]
            killers.append(f"{suite['suite']} seed {first['seed']} case {first['case']}")
    return killers


def write_atomically(path, text):
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".mutation-")
    with os.fdopen(handle, "w") as out:
        out.write(text)
    os.replace(temporary, path)


def report_json(results, elapsed_ms):
    files = {}
    tests = {}
    for site, result in results:
        path = site["file"]
        if path not in files:
            try:
                with open(os.path.join(ROOT, path)) as source:
                    text = source.read()
            except OSError:
                text = ""
            files[path] = {"language": "cpp", "source": text, "mutants": []}
        status = result["status"]
        mutant = {
            "id": site["name"],
            "mutatorName": site["category"],
            "description": f"{site['name']} switched off",
            "location": {"start": {"line": site["line"], "column": 1},
                         "end": {"line": site["line"] + 1, "column": 1}},
            "status": "Ignored" if status == "Survived" and site["survivor_reason"] else status,
            "killedBy": result["killed_by"] + result.get("swept", []),
            "duration": result["ms"],
        }
        reason = result["reason"] or site["survivor_reason"]
        if reason:
            mutant["statusReason"] = reason
        files[path]["mutants"].append(mutant)
        for name in result["killed_by"] + result.get("swept", []):
            tests[name] = {"id": name, "name": name}
    return json.dumps({
        "schemaVersion": "2",
        "thresholds": {"high": 90, "low": 70},
        "projectRoot": ".",
        "files": files,
        "testFiles": {"core/tests": {"tests": sorted(tests.values(), key=lambda t: t["id"])}},
        "framework": {"name": "moqsim mutate"},
        "performance": {"setup": 0, "initialRun": 0, "mutation": elapsed_ms},
    }, indent=1) + "\n"


def report_markdown(results):
    lines = ["# Mutation report", "",
             "Each site switched off in turn (`MOQ_MUTANT=name`) against the unit tests and a short "
             "seeded sweep of every property suite.", "",
             "| site | category | where | verdict | killed by tests | killed by sweeps |",
             "| --- | --- | --- | --- | --- | --- |"]
    for site, result in results:
        verdict = result["status"].lower()
        if result["status"] == "Survived" and site["survivor_reason"]:
            verdict = "survived (explained)"
        killers = ", ".join(f"`{name}`" for name in result["killed_by"][:3])
        if len(result["killed_by"]) > 3:
            killers += f" and {len(result['killed_by']) - 3} more"
        if not killers and result["status"] == "Survived":
            killers = site["survivor_reason"] or "**nothing**"
        elif not killers and result["reason"] != "by the sweep":
            killers = result["reason"]
        swept = ", ".join(result.get("swept", [])) or "-"
        lines.append(f"| `{site['name']}` | {site['category']} | {site['file']}:{site['line']} "
                     f"| {verdict} | {killers} | {swept} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program")
    parser.add_argument("report_dir")
    parser.add_argument("--site", action="append", default=[], help="only these sites")
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--sweep", help="moqsim of the same mutants build: sweeps kill too")
    parser.add_argument("--sweep-cases", type=int, default=300)
    args = parser.parse_args()
    if not os.access(args.program, os.X_OK):
        fail(f"no test program at {args.program}")

    sites = list_sites(args.program)
    if not sites:
        fail("the test program lists no mutation sites")
    known = {site["name"] for site in sites}
    for name in args.site:
        if name not in known:
            fail(f"unknown mutant '{name}' (scripts/mutate --list names them)")
    if args.site:
        sites = [site for site in sites if site["name"] in args.site]

    baseline = run_suite(args.program, None, args.timeout)
    if baseline["status"] != "Survived":
        fail(f"the tests fail with no mutant ({baseline['reason']}): fix them first")

    started = time.monotonic()
    results = []
    width = max(len(site["name"]) for site in sites)
    for number, site in enumerate(sites, 1):
        result = run_suite(args.program, site["name"], args.timeout)
        if args.sweep:
            swept = run_sweep(args.sweep, site["name"], args.sweep_cases, args.timeout)
            if swept and result["status"] == "Survived":
                result = {"status": "Killed", "killed_by": [], "reason": "by the sweep", "ms": result["ms"]}
            result["swept"] = swept
        results.append((site, result))
        shown = result["status"].lower()
        if result["status"] == "Survived" and site["survivor_reason"]:
            shown = "survived (explained)"
        killers = ", ".join((result["killed_by"] + result.get("swept", []))[:2]) or result["reason"]
        print(f"[{number:>2}/{len(sites)}] {site['name']:<{width}}  {shown:<22} {killers}", flush=True)
    elapsed_ms = int((time.monotonic() - started) * 1000)

    write_atomically(os.path.join(args.report_dir, "mutation.json"), report_json(results, elapsed_ms))
    write_atomically(os.path.join(args.report_dir, "mutation.md"), report_markdown(results))

    killed = sum(1 for _, r in results if r["status"] in ("Killed", "Timeout"))
    explained = [s for s, r in results if r["status"] == "Survived" and s["survivor_reason"]]
    unexplained = [s for s, r in results if r["status"] == "Survived" and not s["survivor_reason"]]
    print(f"mutate: {killed} killed, {len(explained)} survived with a reason, "
          f"{len(unexplained)} survived unexplained, of {len(results)} sites "
          f"({elapsed_ms / 1000:.1f} s); reports in {os.path.relpath(args.report_dir, ROOT)}/")
    for site in unexplained:
        print(f"mutate: unexplained survivor {site['name']} ({site['file']}:{site['line']})")
    sys.exit(1 if unexplained else 0)


if __name__ == "__main__":
    main()
