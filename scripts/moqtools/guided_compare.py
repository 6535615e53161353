#!/usr/bin/env python3
"""The guided search side by side with the blind strategies (docs/TESTING.md, "Guided search").

Usage: python3 -m moqtools.guided_compare MOQSIM GUIDED [--sites all|none|A,B] [--seconds 20]
           [--generated N --schemata JSON [--sample-seed S] [--equivalents FILE]]
           [--probe-seconds 60] [--suites all|A,B] [--ways all|A,B] [--jobs 2] [--earlier LOG]
           [--json OUT] [--markdown OUT]

MOQSIM and GUIDED are the moqsim and fuzz/suite_guided of one build with -Dfuzz=true and
-Dmutants=true (scripts/fuzz builds build-guided/). Two measures:

  cases to the first failure   for every mutation site that a short sweep reaches (the
      suite that evaluates it most often is its suite), each way runs that suite with the
      site switched off until it fails or --seconds pass:
        fifo    moqsim sweep --strategy fifo
        random  moqsim sweep --strategy random --mix fixed   (the default sweep)
        pct     moqsim sweep --strategy pct
        pos     moqsim sweep --strategy pos
        surw    moqsim sweep --strategy surw (each case run twice: its trial counts events)
        swarm   moqsim sweep --mix swarm
        guided  fuzz/suite_guided (libFuzzer, -seed=1), from fuzz/corpus/suite-NAME/ in
                its order (fuzz/corpus/suite-NAME.order)
      and counts the cases it ran (a sweep's cases, the guided search's executions, the
      failing one included). A way that did not fail in time is censored: it counts as
      more than any number in the medians and 90th percentiles. --generated N does the
      same for N generated mutants of core/model/ drawn with --sample-seed (default 1) from
      the build's table (build-guided/core/schemata_mutants.json), leaving out those
      --equivalents lists, order_weaken's and the half the guided corpus's order learned
      from (moqtools.guided_corpus); each runs against the suite of its file.
  probes reached     every suite for --probe-seconds each way: the probes its runs hit.

The tables add "best blind way", each mutant's fewest cases over the blind ways measured
(a choice no sweep can make before it runs), and how often guided needed fewer cases than
that, or at most half.

--ways runs only the ways it names (a way not run is taken from --earlier, the standard
error of an earlier run, or left out of the tables). Prints a line per run on stderr. --json OUT keeps every number; --markdown OUT the tables.
Exit 2 on bad input.
"""

import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

from . import guided_corpus

WAYS = ("fifo", "random", "pct", "pos", "surw", "swarm", "guided")
BLIND = {"fifo": ["--strategy", "fifo", "--mix", "fixed"],
         "random": ["--strategy", "random", "--mix", "fixed"],
         "pos": ["--strategy", "pos", "--mix", "fixed"],
         "surw": ["--strategy", "surw", "--mix", "fixed"],
         "pct": ["--strategy", "pct", "--mix", "fixed"],
         "swarm": ["--strategy", "random", "--mix", "swarm"]}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class UsageError(Exception):
    pass


def run(command, env=None, timeout=None):
    merged = dict(os.environ)
    merged.update(env or {})
    return subprocess.run(command, capture_output=True, text=True, env=merged, timeout=timeout, check=False)


# A run that ended without its result (the mutant crashed the process, as a null
# dereference does): the way neither found nor missed it.
CRASHED = ("crashed", 0)


# The suite whose operations drive a site's code most directly, by the site's first word;
# a site of another word goes to the suite whose short sweep evaluates it most per case
# (which may only pass through it: the fanout suite evaluates every group site).
SUITE_OF_SITE = {"group": "group", "track": "track", "resume": "resume", "idle": "gate", "cell": "gate",
                 "waiters": "waiter", "task": "runtime", "runtime": "runtime", "pool": "runtime",
                 "clock": "runtime", "fanout": "fanout", "subscriber": "fanout"}


def suite_of_sites(moqsim, suites):
    """Each reached site's suite (SUITE_OF_SITE, else the sweep that evaluates it most)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "hits.json")
        done = run([moqsim, "sweep", "--suite", ",".join(suites), "--seeds", "1", "--cases", "200",
                    "--site-hits", path])
        if done.returncode != 0 or not os.path.exists(path):
            raise UsageError(f"the site-hits sweep failed: {done.stderr.strip() or done.stdout.strip()}")
        with open(path, encoding="utf-8") as file:
            hits = json.load(file)
    chosen = {}
    for site in hits["sites"]:
        name = site["name"]
        best = max(hits["suites"], key=lambda entry: entry["evaluations"].get(name, 0) / max(entry["run"], 1))
        if best["evaluations"].get(name, 0) > 0:
            chosen[name] = SUITE_OF_SITE.get(name.split(".")[0], best["suite"])
    return chosen


def sample_generated(schemata, count, seed, equivalents):
    """{id: suite} for `count` generated mutants of core/model/ drawn with `seed`, none of
    them one the guided corpus's order learned from (moqtools.guided_corpus)."""
    try:
        chosen = guided_corpus.generated_mutants(schemata, equivalents)
    except guided_corpus.UsageError as error:
        raise UsageError(str(error)) from None
    names = sorted(name for name in chosen if not guided_corpus.learned_from(name))
    random.Random(seed).shuffle(names)
    return {name: chosen[name] for name in sorted(names[:count])}


def blind_cases(moqsim, way, suite, site, seconds):
    with tempfile.TemporaryDirectory() as folder:
        result = os.path.join(folder, "sweep.json")
        done = run([moqsim, "sweep", "--suite", suite, *BLIND[way], "--mutant", site, "--duration", f"{seconds}s",
                    "--seeds", "1-1000000",
                    "--shrink-seconds", "0", "--recheck", "0", "--max-failures", "1", "--case-timeout", "5s",
                    "--json", result], timeout=seconds + 60)
        if not os.path.exists(result):
            print(f"{site} ({suite}) {way} wrote no result: " + " | ".join(done.stderr.strip().splitlines()[-3:]),
                  file=sys.stderr, flush=True)
            return CRASHED
        with open(result, encoding="utf-8") as file:
            entry = json.load(file)["suites"][0]
    return entry["run"] if entry["failed"] > 0 else None, entry["run"]


def guided_environment(suite, folder, site=None):
    env = {"MOQ_FUZZ_SUITE": suite, "MOQ_FUZZ_FINDINGS": folder, "MOQ_FUZZ_PROBES": os.path.join(folder, "probes.json")}
    if site:
        env["MOQ_MUTANT"] = site
    return env


def guided_command(guided, suite, folder, seconds):
    """The search from the suite's corpus in its order (moqtools.guided_corpus)."""
    work = os.path.join(folder, "corpus")
    os.makedirs(work, exist_ok=True)
    seeds = os.path.join(folder, "seeds")
    guided_corpus.write_atomically(seeds, ",".join(guided_corpus.seed_list(guided_corpus.CORPUS, suite)))
    return [guided, "-seed=1", "-entropic=0", f"-max_total_time={seconds}", "-max_len=8192", "-timeout=5",
            f"-artifact_prefix={folder}/", "-print_final_stats=1", "-shuffle=0", "-prefer_small=0",
            f"-seed_inputs=@{seeds}", work]


# The search writes every input it keeps: in memory where the machine has a folder there.
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") else None


def guided_cases(guided, suite, site, seconds):
    with tempfile.TemporaryDirectory(dir=SCRATCH) as folder:
        done = run(guided_command(guided, suite, folder, seconds), env=guided_environment(suite, folder, site),
                   timeout=seconds + 60)
        found = re.search(r"guided failure after (\d+) executions", done.stderr)
        ran = re.findall(r"stat::number_of_executed_units: *(\d+)", done.stderr)
        if found:
            return int(found.group(1)), int(found.group(1))
        if done.returncode != 0:
            print(f"{site} ({suite}) guided stopped without a failure: " +
                  " | ".join(done.stderr.strip().splitlines()[-4:]), file=sys.stderr, flush=True)
            return CRASHED
        return None, int(ran[-1]) if ran else 0


def probes_reached(moqsim, guided, way, suite, seconds):
    with tempfile.TemporaryDirectory(dir=SCRATCH) as folder:
        if way == "guided":
            run(guided_command(guided, suite, folder, seconds), env=guided_environment(suite, folder),
                timeout=seconds * 4 + 120)
            path = os.path.join(folder, "probes.json")
            if not os.path.exists(path):
                return None  # the search stopped without its exit hook: a finding, a hang
            with open(path, encoding="utf-8") as file:
                hits = json.load(file)["hits"]
        else:
            path = os.path.join(folder, "probes.json")
            run([moqsim, "sweep", "--suite", suite, *BLIND[way], "--duration", f"{seconds}s", "--recheck", "0",
                 "--seeds", "1-1000000",
                 "--probes", path, "--keep-going", "--shrink-seconds", "0"], timeout=seconds * 4 + 120)
            if not os.path.exists(path):
                return None
            with open(path, encoding="utf-8") as file:
                hits = json.load(file)["suites"][0]["hits"]
    return sorted(name for name, count in hits.items() if count > 0)


LOGGED = re.compile(r"^(\S+) \((\w+)\) (\w+): (?:failed at case ([\d,]+)|no failure in ([\d,]+)|(crashed|hung))$")


def earlier_rows(path):
    """{site: row} of every site an earlier run's log reports, with the ways it reports."""
    rows = {}
    with open(path, encoding="utf-8") as file:
        for line in file:
            found = LOGGED.match(line.strip())
            if not found:
                continue
            site, suite, way, failed_at, ran, stopped = found.groups()
            row = rows.setdefault(site, {"site": site, "suite": suite})
            if failed_at:
                row[way] = {"cases": int(failed_at.replace(",", "")), "ran": int(failed_at.replace(",", ""))}
            elif ran:
                row[way] = {"cases": None, "ran": int(ran.replace(",", ""))}
            else:
                row[way] = {"cases": "crashed", "ran": 0}
    return rows


def quantile(values, fraction):
    """The fraction's quantile of cases, a censored run (None) counted as infinite."""
    ordered = sorted(math.inf if value is None else value for value in values)
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


def shown(value):
    if value is None:
        return "-"
    return "not found" if value == math.inf else f"{value:,}"


def best_blind(row):
    """The fewest cases any blind way measured needed on the row's mutant (None: none found it)."""
    found = [row[way]["cases"] for way in BLIND if way in row and isinstance(row[way]["cases"], int)]
    return min(found) if found else None


def blind_ways(ways):
    """The blind ways among `ways`: their best is a column where two or more were measured."""
    return [way for way in ways if way in BLIND]


def summary_rows(title, rows, ways):
    lines = [f"| {title} | way | found | median cases to the first failure | 90th percentile |",
             "| --- | --- | ---: | ---: | ---: |"]
    columns = [(way, [row[way]["cases"] for row in rows]) for way in ways]
    if len(blind_ways(ways)) >= 2:
        columns.append(("best blind way", [best_blind(row) for row in rows]))
    for way, values in columns:
        found = sum(value is not None for value in values)
        lines.append(f"| {len(rows)} | {way} | {found} | {shown(quantile(values, 0.5))} | "
                     f"{shown(quantile(values, 0.9))} |")
    return lines


def markdown(report):
    crashed = [row["site"] for row in report["sites"] if row.get("crashed")]
    rows = [row for row in report["sites"] if not row.get("crashed")]
    ways = [way for way in WAYS if rows and all(way in row for row in rows)]
    sites = [row for row in rows if not row["site"].startswith("gen.")]
    generated = [row for row in rows if row["site"].startswith("gen.")]
    lines = []
    for title, group in (("sites", sites), ("generated mutants", generated), ("all", rows)):
        if group:
            lines += summary_rows(title, group, ways) + [""]
    if "guided" in ways and blind_ways(ways) and rows:
        halves = sum(isinstance(row["guided"]["cases"], int) and
                     (best_blind(row) is None or 2 * row["guided"]["cases"] <= best_blind(row)) for row in rows)
        fewer = sum(isinstance(row["guided"]["cases"], int) and
                    (best_blind(row) is None or row["guided"]["cases"] < best_blind(row)) for row in rows)
        lines += [f"Guided needed fewer cases than every blind way on {fewer} of {len(rows)} mutants, and at most "
                  f"half the best blind way's on {halves}.", ""]
    if crashed:
        lines += [f"Left out, a way crashed on them: {', '.join(crashed)}.", ""]
    lines += ["| site | suite | " + " | ".join(ways) + " |", "| --- | --- |" + " ---: |" * len(ways)]
    for row in rows:
        cells = [f"> {row[way]['ran']:,}" if row[way]["cases"] is None else
                 "crashed" if row[way]["cases"] == "crashed" else shown(row[way]["cases"]) for way in ways]
        lines.append(f"| `{row['site']}` | {row['suite']} | " + " | ".join(cells) + " |")
    if report["probes"]:
        probe_ways = [way for way in WAYS if all(way in found for found in report["probes"].values())]
        lines += ["", f"Probes reached in {report['probe_seconds']} s a suite:", "",
                  "| suite | " + " | ".join(probe_ways) + " |", "| --- |" + " ---: |" * len(probe_ways)]
        for suite, found in report["probes"].items():
            lines.append(f"| {suite} | " + " | ".join(str(len(found[way])) for way in probe_ways) + " |")
        union = {way: set() for way in probe_ways}
        for found in report["probes"].values():
            for way in probe_ways:
                union[way] |= set(found[way])
        lines.append("| every suite | " + " | ".join(str(len(union[way])) for way in probe_ways) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="guided_compare")
    parser.add_argument("moqsim")
    parser.add_argument("guided")
    parser.add_argument("--sites", default="all")
    parser.add_argument("--generated", type=int, default=0)
    parser.add_argument("--schemata")
    parser.add_argument("--sample-seed", type=int, default=1)
    parser.add_argument("--equivalents")
    parser.add_argument("--suites", default="all")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--probe-seconds", type=int, default=60)
    parser.add_argument("--ways", default="all")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--earlier", help="a log of an earlier run (its standard error): each way it measured "
                        "on a site or mutant is taken from it, not run again")
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    args = parser.parse_args(argv)
    try:
        for program in (args.moqsim, args.guided):
            if not os.access(program, os.X_OK):
                raise UsageError(f"{program} is not a program")
        listed = run([args.moqsim, "list", "--suites"]).stdout.split()
        suites = listed if args.suites == "all" else args.suites.split(",")
        if unknown := [suite for suite in suites if suite not in listed]:
            raise UsageError(f"unknown suite {unknown[0]} (moqsim list --suites)")
        chosen = suite_of_sites(args.moqsim, suites) if args.sites != "none" else {}
        if args.sites not in ("all", "none"):
            names = args.sites.split(",")
            if missing := [name for name in names if name not in chosen]:
                raise UsageError(f"no short sweep reaches site {missing[0]}")
            chosen = {name: chosen[name] for name in names}
        chosen = {name: suite for name, suite in chosen.items() if suite in suites}
        if args.generated:
            if not args.schemata:
                raise UsageError("--generated needs --schemata (the build's core/schemata_mutants.json)")
            generated = sample_generated(args.schemata, args.generated, args.sample_seed, args.equivalents)
            chosen.update({name: suite for name, suite in generated.items() if suite in suites})
        ways = WAYS if args.ways == "all" else tuple(args.ways.split(","))
        if unknown := [way for way in ways if way not in WAYS]:
            raise UsageError(f"unknown way {unknown[0]} (one of {', '.join(WAYS)})")
        known = earlier_rows(args.earlier) if args.earlier else {}
        report = {"seconds": args.seconds, "probe_seconds": args.probe_seconds, "sites": [], "probes": {}}

        def one_site(site):
            suite = chosen[site]
            row = dict(known.get(site, {"site": site, "suite": suite}))
            for way in ways:
                if way in row:
                    continue  # measured by the earlier run
                try:
                    if way == "guided":
                        cases, ran = guided_cases(args.guided, suite, site, args.seconds)
                    else:
                        cases, ran = blind_cases(args.moqsim, way, suite, site, args.seconds)
                except subprocess.TimeoutExpired:
                    cases, ran = CRASHED  # a run that never ended: the mutant hangs it
                row[way] = {"cases": cases, "ran": ran}
                if cases is None:
                    said = f"no failure in {ran:,}"
                else:
                    said = "crashed" if cases == "crashed" else f"failed at case {cases:,}"
                print(f"{site} ({suite}) {way}: {said}", file=sys.stderr, flush=True)
            row["crashed"] = any(row[way]["cases"] == "crashed" for way in WAYS if way in row)
            return row

        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            report["sites"] = list(pool.map(one_site, sorted(chosen)))
            if args.probe_seconds > 0:
                jobs = {(suite, way): pool.submit(probes_reached, args.moqsim, args.guided, way, suite,
                                                  args.probe_seconds) for suite in suites for way in ways}
                for (suite, way), job in jobs.items():
                    reached = job.result()
                    report["probes"].setdefault(suite, {})[way] = reached if reached is not None else []
                    print(f"probes {suite} {way}: " + (str(len(reached)) if reached is not None else "no count"),
                          file=sys.stderr, flush=True)
        text = markdown(report)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as file:
                json.dump(report, file, indent=1, default=lambda value: None)
        if args.markdown:
            with open(args.markdown, "w", encoding="utf-8") as file:
                file.write(text)
        print(text, end="")
    except (UsageError, OSError, subprocess.TimeoutExpired, json.JSONDecodeError, KeyError) as error:
        print(f"guided_compare: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
