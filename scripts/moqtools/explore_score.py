#!/usr/bin/env python3
"""The mutation score of exhaustive exploration alone, beside that of a seeded random sweep.

Usage: python3 -m moqtools.explore_score MOQSIM SCHEMATA_JSON [--equivalents FILE]
           [--files core/model/] [--sample N --sample-seed S] [--budget 10] [--ops 2]
           [--bound 1] [--cases 2000] [--timeout 120] [--max-seconds S] [--list] [--json OUT]

MOQSIM is a moqsim built with -Dmutants=true -Dschemata=true; SCHEMATA_JSON the generator's
table (build-mutants/core/schemata_mutants.json). Every compiled generated mutant whose file
starts with --files is run twice, each way suite by suite and stopping at the first suite
that kills it:

  sweep    moqsim sweep --suite S --seeds 1 --cases CASES --mutant ID (as scripts/mutate)
  explore  moqsim explore --suite S --ops OPS --bound BOUND --budget BUDGETs --mutant ID

The suites run in `moqsim list --suites` order, except that a suite named as the mutant's
file (resume for core/model/resume.cpp; group for group_state.hpp) comes first. A run over
--timeout seconds, or one that crashes, counts as a kill, as scripts/mutate counts it, and
is recorded as such. Mutants listed in --equivalents are not run; order_weaken mutants are
left out (only ThreadSanitizer can tell them). --sample N runs N of them, drawn with
--sample-seed. --max-seconds stops starting mutants after that long (an interrupt too):
the table then counts the mutants measured and says so.

Prints a line per mutant on stderr, then a Markdown table per file and in total on stdout.
--json OUT writes every mutant's result (rewritten after each mutant). --list prints the
mutants it would run and how many, and stops. Exit 2 on bad input.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

from .mutation import UsageError, read_equivalents, run_sweep, sweep_killer
from .order_mutation import OPERATOR as ORDER_OPERATOR
from .suites import SuitesError, suite_names

FORMAT = "moqsim-explore-score"


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose errors are one line and exit 2, as the other tools' are."""

    def error(self, message):
        raise UsageError(message)


def parse_arguments(argv):
    parser = ArgumentParser(prog="explore_score", description=__doc__.splitlines()[0])
    parser.add_argument("moqsim")
    parser.add_argument("schemata")
    parser.add_argument("--equivalents", help="the reviewed list of equivalent generated mutants")
    parser.add_argument("--files", default="core/model/", help="only mutants of files starting so")
    parser.add_argument("--sample", type=int, help="run this many mutants, drawn at random")
    parser.add_argument("--sample-seed", type=int, help="the draw's seed (with --sample)")
    parser.add_argument("--budget", type=int, default=10, help="each exploration's budget, seconds")
    parser.add_argument("--ops", type=int, default=2)
    parser.add_argument("--bound", type=int, default=1)
    parser.add_argument("--cases", type=int, default=2000, help="sweep cases a suite")
    parser.add_argument("--timeout", type=int, default=120, help="wall seconds a moqsim run may take")
    parser.add_argument("--max-seconds", type=int, help="start no mutant after this many seconds")
    parser.add_argument("--list", action="store_true", help="name the mutants and stop")
    parser.add_argument("--json", metavar="OUT", help="every mutant's result")
    args = parser.parse_args(argv)
    check_arguments(args)
    return args


def check_arguments(args):
    positive = {"--budget": args.budget, "--ops": args.ops, "--cases": args.cases, "--timeout": args.timeout}
    for flag, value in positive.items():
        if value < 1:
            raise UsageError(f"{flag} must be at least 1, not {value}")
    if args.ops > 6:
        raise UsageError(f"--ops takes 1 to 6 operations, not {args.ops}")
    if args.bound < 0:
        raise UsageError(f"--bound must be 0 or more, not {args.bound}")
    if args.max_seconds is not None and args.max_seconds < 1:
        raise UsageError(f"--max-seconds must be at least 1, not {args.max_seconds}")
    if (args.sample is None) != (args.sample_seed is None):
        raise UsageError("--sample and --sample-seed go together (a draw is repeatable only with its seed)")
    if args.sample is not None and args.sample < 1:
        raise UsageError(f"--sample must be at least 1, not {args.sample}")


# ---- the mutants ----


def read_schemata(path):
    """The generator's table: every mutant it made, compiled or not."""
    try:
        with open(path, encoding="utf-8") as source:
            table = json.load(source)
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    if not isinstance(table, dict) or table.get("format") != "moqsim-schemata" or table.get("version") != 1:
        raise UsageError(f"{path}: not a schemata table of version 1")
    return table["mutants"]


def source_path(entry):
    """The mutant's file from the repository root (the table names it from core/)."""
    path = entry["file"]
    return path if path.startswith("core/") else "core/" + path


def select_mutants(table, prefix, equivalents):
    """(to run, equivalent): the compiled mutants of files under `prefix`, order_weaken left out."""
    chosen = [dict(entry, file=source_path(entry)) for entry in table
              if entry["status"] == "compiled" and entry["operator"] != ORDER_OPERATOR]
    chosen = [entry for entry in chosen if entry["file"].startswith(prefix)]
    if not chosen:
        raise UsageError(f"no compiled generated mutant in a file under {prefix}")
    known = {entry.get("key") for entry in table}
    stale = sorted(key for key in equivalents if key not in known)
    if stale:
        raise UsageError(f"the equivalents list names {stale[0]}, which this build does not generate")
    return ([e for e in chosen if e.get("key") not in equivalents], [e for e in chosen if e.get("key") in equivalents])


def draw_sample(mutants, size, seed):
    """`size` of the mutants, drawn with `seed`, in the order drawn: a run stopped early has
    measured a random sample still, not the first files."""
    return random.Random(seed).sample(list(mutants), min(size, len(mutants)))


def suite_order(path, suites):
    """The suites, the one named as `path`'s file first (a `group_state` file's is group)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    named = [s for s in suites if s == stem] or [s for s in suites if stem.startswith(s + "_")]
    first = max(named, key=len) if named else None
    return ([first] if first else []) + [s for s in suites if s != first]


# ---- running ----


def explore_run(moqsim, suite, mutant, args, folder):
    """One suite's exploration: {"end": exhaustive|budget|failure|timeout|crash, "message"}."""
    failure = os.path.join(folder, "failure.json")
    argv = [moqsim, "explore", "--suite", suite, "--ops", str(args.ops), "--bound", str(args.bound),
            "--budget", f"{args.budget}s", "--json", "--failure", failure]
    if mutant:
        argv += ["--mutant", mutant]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=args.timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"end": "timeout", "message": f"over {args.timeout} s"}
    return explore_outcome(out, mutant)


def explore_outcome(out, mutant):
    if out.returncode == 2:
        raise UsageError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"explore exit 2 with {mutant}")
    try:
        result = json.loads(out.stdout)
    except ValueError:
        result = None
    if out.returncode not in (0, 1) or not isinstance(result, dict):
        how = f"signal {-out.returncode}" if out.returncode < 0 else f"exit {out.returncode}"
        return {"end": "crash", "message": f"{how}, {out.stderr.strip()[-200:]}".rstrip(", ")}
    failures = result.get("failures") or []
    if out.returncode == 1 and not failures:
        return {"end": "failure", "message": "exit 1 with no failure in its result"}
    return {"end": result["end"], "message": failures[0]["message"] if failures else ""}


def explore_mutant(moqsim, mutant, suites, args):
    """Explores suite by suite to the first kill: (killer suite or None, ends, message)."""
    ends = {}
    with tempfile.TemporaryDirectory() as folder:
        for suite in suites:
            outcome = explore_run(moqsim, suite, mutant, args, folder)
            ends[suite] = outcome["end"]
            if outcome["end"] in ("failure", "timeout", "crash"):
                return suite, ends, outcome["message"]
    return None, ends, ""


def sweep_mutant(moqsim, mutant, suites, args):
    """Sweeps suite by suite to the first kill: (killer suite or None, how it was killed)."""
    for suite in suites:
        swept = run_sweep(moqsim, mutant, [suite], args.cases, args.timeout)
        if swept:
            first = swept[suite]
            kind = "timeout" if "timeout" in first else "crash" if "exit" in first else "failure"
            return suite, kind, sweep_killer(suite, first)
    return None, None, ""


def measure(moqsim, mutant, suites, args):
    started = time.monotonic()
    sweep_suite, sweep_kind, sweep_how = sweep_mutant(moqsim, mutant["id"], suites, args)
    sweep_seconds = time.monotonic() - started
    started = time.monotonic()
    explore_suite, ends, message = explore_mutant(moqsim, mutant["id"], suites, args)
    return {"id": mutant["id"], "file": mutant["file"], "line": mutant["line"], "operator": mutant["operator"],
            "change": f"{mutant['original']} -> {mutant['replacement'] or '(nothing)'}", "equivalent": False,
            "sweep_killer": sweep_suite, "sweep_kind": sweep_kind, "sweep_how": sweep_how,
            "explore_killer": explore_suite, "explore_kind": ends.get(explore_suite), "explore_message": message,
            "explore_ends": ends, "sweep_seconds": round(sweep_seconds, 2),
            "explore_seconds": round(time.monotonic() - started, 2)}


def equivalent_record(mutant):
    return {"id": mutant["id"], "file": mutant["file"], "line": mutant["line"], "operator": mutant["operator"],
            "equivalent": True}


def baseline(moqsim, suites, args):
    """Every suite with no mutant: its sweep must pass and its exploration find nothing.
    Its ends say which suites' explorations the budget stops even unmutated."""
    ends = {}
    with tempfile.TemporaryDirectory() as folder:
        for suite in suites:
            if run_sweep(moqsim, None, [suite], args.cases, args.timeout):
                raise UsageError(f"the {suite} sweep fails with no mutant on: fix it first")
            outcome = explore_run(moqsim, suite, None, args, folder)
            if outcome["end"] not in ("exhaustive", "budget"):
                raise UsageError(f"the {suite} exploration ends {outcome['end']} with no mutant on")
            ends[suite] = outcome["end"]
    return ends


# ---- the table ----

COLUMNS = ["mutants", "equivalent", "run", "sweep", "explore", "both", "either", "sweep only", "explore only",
           "neither", "explore survivors exhaustive", "explore survivors budget-stopped", "crash or timeout",
           "sweep score", "explore score", "either score", "sweep time", "explore time"]


def tally(results):
    """The table's counts for a group of results."""
    run = [r for r in results if not r["equivalent"]]
    by_sweep = {r["id"] for r in run if r["sweep_killer"]}
    by_explore = {r["id"] for r in run if r["explore_killer"]}
    survivors = [r for r in run if not r["explore_killer"]]
    exhaustive = sum(1 for r in survivors if all(end == "exhaustive" for end in r["explore_ends"].values()))
    counts = {"mutants": len(results), "equivalent": len(results) - len(run), "run": len(run),
              "sweep": len(by_sweep), "explore": len(by_explore), "both": len(by_sweep & by_explore),
              "either": len(by_sweep | by_explore), "sweep only": len(by_sweep - by_explore),
              "explore only": len(by_explore - by_sweep), "neither": len(run) - len(by_sweep | by_explore),
              "explore survivors exhaustive": exhaustive,
              "explore survivors budget-stopped": len(survivors) - exhaustive,
              "crash or timeout": crash_or_timeout(run),
              "sweep time": sum(r["sweep_seconds"] for r in run),
              "explore time": sum(r["explore_seconds"] for r in run)}
    for side in ("sweep", "explore", "either"):
        counts[f"{side} score"] = score(counts[side], len(run))
    return counts


def crash_or_timeout(run):
    """"sweep/explore": how many kills of each side were a crash or a timeout."""
    sweep = sum(1 for r in run if r["sweep_kind"] in ("crash", "timeout"))
    explore = sum(1 for r in run if r["explore_kind"] in ("crash", "timeout"))
    return f"{sweep}/{explore}"


def score(killed, valid):
    """killed / (mutants - equivalents), as a percentage."""
    return f"{100 * killed / valid:.1f}%" if valid else "-"


def cell(column, value):
    if column.endswith("time"):
        return f"{value / 60:.1f} min" if value >= 60 else f"{value:.0f} s"
    return str(value)


def table(results):
    """The Markdown table: a row per file, then the total."""
    files = sorted({r["file"] for r in results})
    lines = ["| file | " + " | ".join(COLUMNS) + " |", "| --- " * (len(COLUMNS) + 1) + "|"]
    for label, group in [(path, [r for r in results if r["file"] == path]) for path in files] + [("total", results)]:
        counts = tally(group)
        name = f"**{label}**" if label == "total" else label
        lines.append(f"| {name} | " + " | ".join(cell(c, counts[c]) for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def disagreements(results):
    """The mutants one side kills and the other does not, as Markdown lines."""
    lines = []
    for r in results:
        if r["equivalent"] or bool(r["sweep_killer"]) == bool(r["explore_killer"]):
            continue
        if r["explore_killer"]:
            lines.append(f"- `{r['id']}` ({r['change']}): explore only, {r['explore_killer']}: "
                         f"{r['explore_message'][:160]}")
        else:
            ends = ", ".join(f"{s} {e}" for s, e in r["explore_ends"].items())
            lines.append(f"- `{r['id']}` ({r['change']}): sweep only, {r['sweep_how']}; explore ends: {ends}")
    return lines


# ---- the run ----


def write_json(path, meta, results):
    if not path:
        return
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        json.dump({"format": FORMAT, "version": 1, "meta": meta, "results": results}, out, indent=1)
        out.write("\n")
    os.replace(path + ".tmp", path)


def progress(number, total, result):
    sweep = result["sweep_how"] or "survived"
    explore = (f"{result['explore_killer']} {result['explore_kind']}" if result["explore_killer"]
               else "survived (" + ", ".join(sorted(set(result["explore_ends"].values()))) + ")")
    print(f"[{number}/{total}] {result['id']}  sweep: {sweep} ({result['sweep_seconds']:.0f} s)  "
          f"explore: {explore} ({result['explore_seconds']:.0f} s)", file=sys.stderr, flush=True)


def run_all(mutants, suites, args, meta, results):
    """Measures each mutant in turn, until done, --max-seconds or an interrupt."""
    started = time.monotonic()
    try:
        for number, mutant in enumerate(mutants, 1):
            if args.max_seconds and time.monotonic() - started > args.max_seconds:
                break
            results.append(measure(args.moqsim, mutant, suite_order(mutant["file"], suites), args))
            meta["measured"] = number
            progress(number, len(mutants), results[-1])
            write_json(args.json, meta, results)
    except KeyboardInterrupt:
        print("explore_score: interrupted; the table counts the mutants measured so far", file=sys.stderr)
    meta["seconds"] = round(time.monotonic() - started, 1)


def list_selection(mutants, equivalents):
    for mutant in mutants:
        print(f"{mutant['id']:<52} {mutant['operator']:<14} {mutant['file']}:{mutant['line']}")
    files = sorted({m["file"] for m in mutants})
    for path in files:
        print(f"{path}: {sum(1 for m in mutants if m['file'] == path)} to run")
    print(f"{len(mutants)} to run, {len(equivalents)} equivalent not run")
    return 0


def summary(meta, results):
    run = [r for r in results if not r["equivalent"]]
    lines = [f"Measured {len(run)} of {meta['selected']} mutants ({meta['selection']})"
             + ("" if len(run) == meta["selected"] else ": stopped early, the counts are of those measured")
             + f"; wall time {meta['seconds'] / 60:.1f} min.",
             f"Sweep: --seeds 1 --cases {meta['cases']}; explore: --ops {meta['ops']} --bound {meta['bound']} "
             f"--budget {meta['budget']}s; each run at most {meta['timeout']} s.",
             "Unmutated explorations: " + ", ".join(f"{s} {e}" for s, e in meta["baseline_ends"].items()) + ".", ""]
    lines += [table(results)]
    odd = disagreements(results)
    if odd:
        lines += [f"Killed by one side only ({len(odd)}):", ""] + odd + [""]
    return "\n".join(lines)


def setup(args):
    if not os.access(args.moqsim, os.X_OK):
        raise UsageError(f"no program at {args.moqsim}")
    equivalents = read_equivalents(args.equivalents)
    mutants, equivalent = select_mutants(read_schemata(args.schemata), args.files, equivalents)
    try:
        suites = suite_names(args.moqsim)
    except SuitesError as error:
        raise UsageError(str(error)) from None
    return mutants, equivalent, suites


def main(argv=None):
    try:
        args = parse_arguments(sys.argv[1:] if argv is None else argv)
        mutants, equivalent, suites = setup(args)
        if args.list:
            return list_selection(mutants, equivalent)
        selection = f"every mutant of {args.files}, without order_weaken"
        if args.sample is not None:
            mutants = draw_sample(mutants, args.sample, args.sample_seed)
            selection = f"a sample of {len(mutants)}, seed {args.sample_seed}, of {selection}"
            equivalent = []  # the draw is of the mutants to run: the equivalents are not in it
        meta = {"selection": selection, "selected": len(mutants), "measured": 0, "suites": suites,
                "cases": args.cases, "ops": args.ops, "bound": args.bound, "budget": args.budget,
                "timeout": args.timeout, "seconds": 0}
        print(f"explore_score: {len(mutants)} mutants; checking every suite with no mutant on", file=sys.stderr)
        meta["baseline_ends"] = baseline(args.moqsim, suites, args)
        results = [equivalent_record(m) for m in equivalent]
        run_all(mutants, suites, args, meta, results)
    except UsageError as error:
        print(f"explore_score: {error}", file=sys.stderr)
        return 2
    write_json(args.json, meta, results)
    print(summary(meta, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
