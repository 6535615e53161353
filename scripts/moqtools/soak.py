#!/usr/bin/env python3
"""scripts/soak: every suite under every strategy and mix, interleaved, for a while.

Usage (python3 -m moqtools.soak, or this file run by itself, as the image does):
  soak.py [DURATION] [--seed N] [--state FILE] [--reports DIR] [--moqsim PATH]
          [--mutant NAME] [--cases N] [--shrink-seconds N]
  soak.py --merge SHARD.json... [--state FILE] [--reports DIR] [--moqsim PATH]

A soak runs rounds until DURATION (default 10m; s, m or h) is up: each round takes the
next fresh seed and runs one slice of it for each combination of a suite (every suite
`moqsim list --suites` names), a strategy of five (fifo, random, pct, pos, surw) and a mix of two
(fixed, swarm): `moqsim sweep --suite S --strategy X --mix M --seeds SEED --keep-going` (the suite's
own case count, or --cases N), whose failures go into buckets. The first round runs
whole, so every combination runs at least once; after it, the time is checked between
slices.

Seeds: from --seed N, else from where the last soak stopped (the state file, default
DIR/soak-state.json), else from 10,000,000 (far from the seeds the tests use). The
state file then holds the seed after the last one this soak used.

Shards (as `moqsim shard` reads the variables moqsim sweep reads: GTEST_TOTAL_SHARDS/
GTEST_SHARD_INDEX, a Kubernetes Indexed Job's, a Slurm array's): shard I of N takes the seeds
START + r*N + I and writes only DIR/soak-shard-I-of-N.json; `--merge` joins every
shard's file into the reports and moves the state on.

Reports (DIR, default reports/; scripts/moqtools/soak_report.py): soak.json, soak.md and
soak.html (the cases run per suite, strategy and mix; every bucket with its replay
command and the timeline of its smallest case), the buckets' smallest cases in
DIR/soak-cases/ID.json and their timelines in DIR/soak-cases/ID.html. Exit status: 0
no bucket, 1 a bucket (a failure), 2 bad usage (one line on stderr).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    # Run as a file (the image runs /usr/local/lib/moqsim/moqtools/soak.py): its package
    # is the folder it is in.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    __package__ = "moqtools"  # noqa: A001

from .reports import write_reports
from .shards import ShardError, shard_from_environment
from .soak_report import MIXES, STRATEGIES, TimelineError, report, summary_line
from .suites import SuitesError, suite_names



def combinations(suites):
    """Every (suite, strategy, mix) a round runs, in its order."""
    return [(suite, strategy, mix) for suite in suites for strategy in STRATEGIES for mix in MIXES]
FIRST_SEED = 10_000_000
MAX_DURATION = 30 * 24 * 3600  # as moqsim --duration
FORMAT = "moqsim-soak"


class UsageError(Exception):
    pass


def parse_duration(text):
    """'90s', '10m', '2h' in seconds, as moqsim's --duration reads them."""
    match = re.fullmatch(r"([0-9]+)([smh])", text)
    seconds = int(match.group(1)) * {"s": 1, "m": 60, "h": 3600}[match.group(2)] if match else 0
    if not 1 <= seconds <= MAX_DURATION:
        raise UsageError(f"a duration is a whole number of seconds, minutes or hours up to 720h (90s, 10m, 2h), "
                         f"not '{text}'")
    return seconds


def whole_number(text, what):
    if not re.fullmatch(r"[0-9]+", text) or int(text) >= 2**64:
        raise UsageError(f"{what} takes a whole number, not '{text}'")
    return int(text)


# ---- the state: where the next soak starts ----

def read_state(path):
    """The next seed the state file records; None if there is no file."""
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text())
        seed = state["next_seed"]
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
            raise ValueError(f"next_seed {seed!r} is not a seed")
        return seed
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(f"{path}: not a soak state file ({error}): remove it or give --seed") from None


def write_state(path, next_seed):
    write_reports(str(path.parent), [(path.name, json.dumps({"next_seed": next_seed}) + "\n")])


# ---- buckets, joined as `moqsim merge` joins them (runner/buckets.hpp) ----

def same_shape(known, bucket):
    """Found apart (another shard, another slice): one kind of failure if its message reads the same."""
    return ("shape" in known and known.get("shape") == bucket.get("shape") and
            all(known[field] == bucket[field] for field in ("suite", "rule", "check")))


def join_buckets(into, more):
    """`into` (a list of buckets) with `more` joined as `moqsim merge` joins them: one of an
    id there, or of its suite, rule, check and shape, adds its count and names, keeps the
    earlier first and the smaller (fewer steps, then earlier) smallest case, whose id and
    signature go with it."""
    for bucket in more:
        known = next((k for k in into if k["id"] == bucket["id"]), None) or \
            next((k for k in into if same_shape(k, bucket)), None)
        if known is None:
            into.append(json.loads(json.dumps(bucket)))
            continue
        known["count"] += bucket["count"]
        known["strategies"] = sorted(set(known["strategies"]) | set(bucket["strategies"]))
        known["mixes"] = sorted(set(known["mixes"]) | set(bucket["mixes"]))
        if (bucket["first"]["seed"], bucket["first"]["case"]) < (known["first"]["seed"], known["first"]["case"]):
            known["first"] = bucket["first"]
        size = (bucket["smallest"]["steps"], bucket["smallest"]["seed"], bucket["smallest"]["case"])
        if size < (known["smallest"]["steps"], known["smallest"]["seed"], known["smallest"]["case"]):
            for field in ("smallest", "id", "signature"):
                known[field] = bucket[field]


# ---- running ----

def child_environment(shard_variables):
    """This environment without the shard variables: each slice runs whole."""
    return {k: v for k, v in os.environ.items() if k not in shard_variables and k != "MOQ_SEED"}


def run_slice(args, suite, strategy, mix, seed, work, buckets):
    """One slice: the suite's cases of `seed` under the strategy and mix, the buckets so far
    known to it (their failures count into them unshrunk); its result."""
    result, known = work / "slice.json", work / "known.json"
    known.write_text(json.dumps({"buckets": buckets}))
    command = [args.moqsim, "sweep", "--suite", suite, "--strategy", strategy, "--mix", mix, "--seeds", str(seed),
               "--keep-going", "--json", str(result), "--shrink-seconds", str(args.shrink_seconds),
               "--known-buckets", str(known)]
    if args.cases:
        command += ["--cases", str(args.cases)]
    if args.mutant:
        command += ["--mutant", args.mutant]
    run = subprocess.run(command, env=child_environment(args.shard.variables), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, check=False)
    if run.returncode not in (0, 1) or not result.exists():
        lines = run.stderr.strip().splitlines()
        raise UsageError(f"{' '.join(command[:10])} ... stopped with status {run.returncode}: "
                         f"{lines[-1] if lines else 'no message'}")
    return json.loads(result.read_text())


def soak(args, start):
    """Rounds of slices until the duration is up; this shard's result."""
    index, total = args.shard.index, args.shard.total
    combos = {combo: {"suite": combo[0], "strategy": combo[1], "mix": combo[2], "slices": 0, "seeds": None,
                      "cases": 0, "failed": 0, "seconds": 0.0} for combo in combinations(args.suites)}
    buckets = []
    started = time.monotonic()
    deadline = started + args.duration
    rounds = 0
    with tempfile.TemporaryDirectory() as work_dir:
        while rounds == 0 or time.monotonic() < deadline:
            seed = start + rounds * total + index
            rounds += 1
            for combo in combinations(args.suites):
                if rounds > 1 and time.monotonic() >= deadline:
                    break
                result = run_slice(args, *combo, seed, Path(work_dir), buckets)
                entry, suite = combos[combo], result["suites"][0]
                entry["slices"] += 1
                entry["seeds"] = [entry["seeds"][0] if entry["seeds"] else seed, seed]
                entry["cases"] += suite["run"]
                entry["failed"] += suite["failed"]
                entry["seconds"] += suite["seconds"]
                join_buckets(buckets, result.get("buckets", []))
            cases = sum(c["cases"] for c in combos.values())
            left = max(0.0, deadline - time.monotonic())
            print(f"soak: round {rounds} (seed {seed}): {cases} cases, {len(buckets)} buckets, {left:.0f} s left",
                  flush=True)
    return {"format": FORMAT, "version": 1, "duration_seconds": args.duration,
            "seconds": round(time.monotonic() - started, 3), "mutant": args.mutant,
            "seeds": {"first": start, "next": start + rounds * total}, "shard": {"index": index, "total": total},
            "rounds": rounds, "combinations": list(combos.values()), "buckets": buckets}


# ---- shards joined ----

def read_shard(path, suites):
    try:
        result = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise UsageError(f"{path}: cannot read a soak shard ({error})") from None
    if not isinstance(result, dict) or result.get("format") != FORMAT or result.get("version") != 1:
        raise UsageError(f"{path}: not a soak shard ({FORMAT} version 1)")
    try:
        shard, seeds = result["shard"], result["seeds"]
        if not 0 <= shard["index"] < shard["total"] or len(result["combinations"]) != len(combinations(suites)):
            raise ValueError("shard or combinations")
        for field in ("first", "next"):
            if not isinstance(seeds[field], int):
                raise ValueError(f"seeds.{field}")
    except (KeyError, TypeError, ValueError) as error:
        raise UsageError(f"{path}: a soak shard without its fields ({error})") from None
    return result


def merge(paths, suites):
    shards = [(path, read_shard(path, suites)) for path in paths]
    first_path, first = shards[0]
    total = first["shard"]["total"]
    seen = {}
    for path, shard in shards:
        for field in ("duration_seconds", "mutant"):
            if shard[field] != first[field]:
                raise UsageError(f"{path} and {first_path} are shards of different soaks: {field} "
                                 f"{shard[field]!r} and {first[field]!r}")
        if shard["seeds"]["first"] != first["seeds"]["first"] or shard["shard"]["total"] != total:
            raise UsageError(f"{path} and {first_path} are shards of different soaks: seeds or shard count")
        index = shard["shard"]["index"]
        if index in seen:
            raise UsageError(f"{path}: shard {index} of {total} again ({seen[index]} is that shard)")
        seen[index] = path
    missing = [i for i in range(total) if i not in seen]
    if missing:
        raise UsageError(f"shards {', '.join(map(str, missing))} of {total} missing: nothing merged")
    merged = dict(first, shard={"merged": total, "total": total}, buckets=[])
    merged["seconds"] = max(shard["seconds"] for _, shard in shards)
    merged["rounds"] = sum(shard["rounds"] for _, shard in shards)
    merged["seeds"] = {"first": first["seeds"]["first"], "next": max(s["seeds"]["next"] for _, s in shards)}
    combos = [dict(c) for c in first["combinations"]]
    buckets = []
    for _, shard in shards:
        join_buckets(buckets, shard["buckets"])
        if shard is first:
            continue
        for mine, theirs in zip(combos, shard["combinations"]):
            for field in ("slices", "cases", "failed", "seconds"):
                mine[field] += theirs[field]
            seeds = [s for s in (mine["seeds"], theirs["seeds"]) if s]
            mine["seeds"] = [min(s[0] for s in seeds), max(s[1] for s in seeds)] if seeds else None
    merged["combinations"] = combos
    merged["buckets"] = buckets
    return merged


# ---- the command ----

class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def arguments(argv):
    parser = Parser(prog="scripts/soak", add_help=True)
    parser.add_argument("duration", nargs="?")
    parser.add_argument("--seed")
    parser.add_argument("--state")
    parser.add_argument("--reports", default="reports")
    parser.add_argument("--moqsim", default="build/cli/moqsim")
    parser.add_argument("--mutant")
    parser.add_argument("--cases")
    parser.add_argument("--shrink-seconds", default="30")
    parser.add_argument("--merge", nargs="+", metavar="SHARD")
    args = parser.parse_args(argv)
    if args.merge and (args.duration or args.seed or args.mutant or args.cases):
        raise UsageError("--merge joins shards: it takes no DURATION, --seed, --mutant or --cases")
    args.duration = parse_duration(args.duration or "10m")
    args.cases = whole_number(args.cases, "--cases") if args.cases else None
    if args.cases == 0:
        raise UsageError("--cases must be at least 1")
    args.shrink_seconds = whole_number(args.shrink_seconds, "--shrink-seconds")
    args.seed = whole_number(args.seed, "--seed") if args.seed else None
    args.reports = Path(args.reports)
    args.state = Path(args.state) if args.state else args.reports / "soak-state.json"
    if not os.access(args.moqsim, os.X_OK):
        raise UsageError(f"no moqsim at {args.moqsim}")
    args.suites = suite_names(args.moqsim)
    return args


def main(argv):
    try:
        args = arguments(argv[1:])
        if args.merge:
            result = merge(args.merge, args.suites)
        else:
            args.shard = shard_from_environment(args.moqsim, os.environ)
            index, total = args.shard.index, args.shard.total
            start = args.seed if args.seed is not None else read_state(args.state)
            start = FIRST_SEED if start is None else start
            result = soak(args, start)
            if total > 1:
                name = f"soak-shard-{index}-of-{total}.json"
                write_reports(str(args.reports), [(name, json.dumps(result, indent=1) + "\n")])
                print(f"soak: {summary_line(result)}; shard {index} of {total} written to {args.reports / name} "
                      f"(scripts/soak --merge joins the shards)")
                return 1 if result["buckets"] else 0
        report(result, args.reports, args.moqsim)
        write_state(args.state, result["seeds"]["next"])
        return 1 if result["buckets"] else 0
    except (UsageError, ShardError, SuitesError, TimelineError) as error:
        print(f"soak: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
