#!/usr/bin/env python3
"""Compares the fixed operation mix with swarm testing on the mutation sites.

Usage: python3 -m moqtools.mix_compare MOQSIM [--cases N] [--seed S] [--out FILE]

MOQSIM is the moqsim of a build with mutants (scripts/mutate builds build-mutants/). For
every mutation site and each mix, runs one sweep of every suite (seed S, N cases a suite,
each suite stopping at its first failure) with the site switched off, and reports per mix:
the sites some sweep kills, the sites each suite's sweep kills, and the median and 90th
percentile of the sweep cases to the first failure (the fewest over the suites, per site).
Writes FILE (Markdown) when asked. Exit 2 on bad input.
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile

MIXES = ["fixed", "swarm"]


def fail(message):
    print(f"mix_compare: {message}", file=sys.stderr)
    sys.exit(2)


def sites(moqsim):
    out = subprocess.run([moqsim, "list", "--sites"], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        fail(out.stderr.strip() or "moqsim list --sites failed")
    # One indented line a site: name, category, where; a heading above them.
    names = [line.split()[0] for line in out.stdout.splitlines() if line.startswith("  ") and line.strip()]
    if not names:
        fail("no mutation sites listed")
    return names


def first_failures(moqsim, site, mix, seed, cases):
    """{suite: cases run to its first failure} of one sweep of every suite."""
    with tempfile.TemporaryDirectory() as folder:
        result = os.path.join(folder, "sweep.json")
        out = subprocess.run([moqsim, "sweep", "--seeds", str(seed), "--cases", str(cases), "--mix", mix,
                              "--mutant", site, "--json", result], capture_output=True, text=True, check=False)
        if out.returncode == 2:
            fail(out.stderr.strip())
        if not os.path.exists(result):
            return {}
        with open(result) as handle:
            report = json.load(handle)
    return {suite["suite"]: suite["failures"][0]["cases_run"] for suite in report["suites"] if suite["failures"]}


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[max(0, int(round(fraction * len(ordered))) - 1)] if ordered else None


def summary(results, names):
    firsts = [min(results[name].values()) for name in names if results[name]]
    per_suite = {}
    for name in names:
        for suite in results[name]:
            per_suite[suite] = per_suite.get(suite, 0) + 1
    return {
        "killed": len(firsts),
        "median": statistics.median(firsts) if firsts else None,
        "p90": percentile(firsts, 0.9),
        "per_suite": per_suite,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("moqsim")
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out")
    args = parser.parse_args()
    if not os.access(args.moqsim, os.X_OK):
        fail(f"'{args.moqsim}' is not a program")
    if args.cases < 1 or args.seed < 1:
        fail("--cases and --seed must be at least 1")
    names = sites(args.moqsim)
    results = {mix: {} for mix in MIXES}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        jobs = {pool.submit(first_failures, args.moqsim, name, mix, args.seed, args.cases): (mix, name)
                for mix in MIXES for name in names}
        for job in concurrent.futures.as_completed(jobs):
            mix, name = jobs[job]
            results[mix][name] = job.result()
    lines = [f"# Fixed mix against swarm testing ({len(names)} mutation sites, seed {args.seed}, "
             f"{args.cases} cases a suite)", "",
             "| mix | sites a sweep kills | median cases to the first failure | 90th percentile | kills by suite |",
             "| --- | --- | --- | --- | --- |"]
    for mix in MIXES:
        found = summary(results[mix], names)
        suites = ", ".join(f"{suite} {count}" for suite, count in sorted(found["per_suite"].items()))
        lines.append(f"| {mix} | {found['killed']} | {found['median']} | {found['p90']} | {suites} |")
    only = {mix: [name for name in names if results[mix][name] and not results[other][name]]
            for mix, other in (("fixed", "swarm"), ("swarm", "fixed"))}
    lines += ["", f"Killed by the fixed mix only: {', '.join(only['fixed']) or 'none'}.",
              f"Killed by the swarm only: {', '.join(only['swarm']) or 'none'}."]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        temporary = args.out + ".tmp"
        with open(temporary, "w") as handle:
            handle.write(text)
        os.replace(temporary, args.out)


if __name__ == "__main__":
    main()
