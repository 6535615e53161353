#!/usr/bin/env python3
"""Runs the kill suite once per mutation site, with that one site switched off.

Usage: mutate.py TEST_PROGRAM REPORT_DIR [--site NAME ...] [--timeout SECONDS]
                 [--sweep MOQSIM] [--sweep-cases N]

The test program lists its sites with --list-sites and switches one off with
MOQ_MUTANT=NAME. A site is killed when at least one test case fails (or the program
crashes or times out) with it off. With --sweep, every site is also switched off in a
short seeded sweep of every suite (moqsim sweep --mutant NAME): for each suite, whether its
sweep alone kills the site, and its first failing case with the number of cases run until
it, counted from the first case of the first seed ("resume seed 1 case 37 (38 cases)").
Prints one summary line a suite ("resume sweep kills 14 sites"). Writes REPORT_DIR/mutation.json (the
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reports import write_reports  # noqa: E402
from site_location import site_location  # noqa: E402

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


SUITES = ["waiter", "gate", "group", "track", "resume"]


def run_sweep(moqsim, mutant, cases, timeout):
    """The first failing case of each suite's sweep, as {suite: {seed, case, cases_run}}.

    Each suite stops at its first failure, so cases_run is the count to the first failure."""
    with tempfile.TemporaryDirectory() as folder:
        result = os.path.join(folder, "sweep.json")
        try:
            out = subprocess.run([moqsim, "sweep", "--seeds", "1", "--cases", str(cases), "--mutant", mutant,
                                  "--json", result], capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return {"sweep": {"timeout": timeout}}
        if out.returncode == 2:
            fail(out.stderr.strip())
        if not os.path.exists(result):
            return {"sweep": {"exit": out.returncode}} if out.returncode != 0 else {}
        with open(result) as handle:
            report = json.load(handle)
    firsts = {}
    for suite in report["suites"]:
        if suite["failures"]:
            first = suite["failures"][0]
            firsts[suite["suite"]] = {"seed": first["seed"], "case": first["case"], "cases_run": first["cases_run"]}
    return firsts


def sweep_killer(suite, first):
    if "timeout" in first:
        return f"{suite} (timeout over {first['timeout']} s)"
    if "exit" in first:
        return f"{suite} (exit {first['exit']})"
    return f"{suite} seed {first['seed']} case {first['case']} ({first['cases_run']} cases)"


def sweep_killers(result):
    return [sweep_killer(suite, first) for suite, first in result.get("swept", {}).items()]


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
            "location": site_location(files[path]["source"], site["name"], site["line"]),
            "status": "Ignored" if status == "Survived" and site["survivor_reason"] else status,
            "killedBy": result["killed_by"] + sweep_killers(result),
            "duration": result["ms"],
        }
        reason = result["reason"] or site["survivor_reason"]
        if reason:
            mutant["statusReason"] = reason
        files[path]["mutants"].append(mutant)
        for name in result["killed_by"] + sweep_killers(result):
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


def suite_cell(result, suite):
    first = result.get("swept", {}).get(suite)
    if not first:
        return "-"
    if "seed" not in first:
        return sweep_killer(suite, first).split(" ", 1)[1]
    return f"{first['cases_run']} (seed {first['seed']} case {first['case']})"


def suite_summary(results):
    """One line a suite: how many sites its sweep alone kills."""
    lines = []
    for suite in SUITES:
        kills = sum(1 for _, result in results if suite in result.get("swept", {}))
        lines.append(f"{suite} sweep kills {kills} site{'' if kills == 1 else 's'}")
    return lines


def report_markdown(results):
    lines = ["# Mutation report", "",
             "Each site switched off in turn (`MOQ_MUTANT=name`) against the unit tests and a short "
             "seeded sweep of every property suite. A suite's column: the number of sweep cases run "
             "until its first failure, counted from the first case of the first seed (seed and case "
             "in brackets); `-` where that suite's sweep alone does not kill the site.", "",
             "| site | category | where | verdict | killed by tests | " + " | ".join(SUITES) + " |",
             "| --- | --- | --- | --- | --- | " + " | ".join("---" for _ in SUITES) + " |"]
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
        cells = " | ".join(suite_cell(result, suite) for suite in SUITES)
        lines.append(f"| `{site['name']}` | {site['category']} | {site['file']}:{site['line']} "
                     f"| {verdict} | {killers or '-'} | {cells} |")
    lines += ["", "## Per suite", ""] + [f"- {line}" for line in suite_summary(results)]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program")
    parser.add_argument("report_dir")
    parser.add_argument("--site", action="append", default=[], help="only these sites")
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--sweep", help="moqsim of the same mutants build: sweeps kill too")
    parser.add_argument("--sweep-cases", type=int, default=2000)
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
        killers = ", ".join((result["killed_by"] + sweep_killers(result))[:2]) or result["reason"]
        print(f"[{number:>2}/{len(sites)}] {site['name']:<{width}}  {shown:<22} {killers}", flush=True)
    elapsed_ms = int((time.monotonic() - started) * 1000)

    write_reports(args.report_dir, [("mutation.json", report_json(results, elapsed_ms)),
                                    ("mutation.md", report_markdown(results))])

    killed = sum(1 for _, r in results if r["status"] in ("Killed", "Timeout"))
    explained = [s for s, r in results if r["status"] == "Survived" and s["survivor_reason"]]
    unexplained = [s for s, r in results if r["status"] == "Survived" and not s["survivor_reason"]]
    print(f"mutate: {killed} killed, {len(explained)} survived with a reason, "
          f"{len(unexplained)} survived unexplained, of {len(results)} sites "
          f"({elapsed_ms / 1000:.1f} s); reports in {os.path.relpath(args.report_dir, ROOT)}/")
    for line in suite_summary(results):
        print(f"mutate: {line}")
    for site in unexplained:
        print(f"mutate: unexplained survivor {site['name']} ({site['file']}:{site['line']})")
    sys.exit(1 if unexplained else 0)


if __name__ == "__main__":
    main()
