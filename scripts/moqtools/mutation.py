#!/usr/bin/env python3
"""Runs the kill suite once per mutant: the hand-placed sites and the generated mutants.

Usage: python3 -m moqtools.mutation TEST_PROGRAM MOQSIM REPORT_DIR [--site NAME ...]
           [--only sites|generated] [--operator NAME ...] [--changed REV] [-j N] [--sweep-cases N]
           [--timeout-factor F] [--equivalents FILE] [--schemata FILE] [--threads-build DIR] [--list]
       python3 -m moqtools.mutation --merge REPORT_DIR SHARD.json ...

First, one run with no mutant on takes the coverage (moqtools/mutant_coverage.py): the
unit tests with --mutant-coverage and each suite's short seeded sweep with --site-hits
say which mutants each test and each sweep evaluates. A mutant runs only against those
that reach it; one that nothing reaches is NoCoverage and does not run.

Hand-placed sites (MOQ_SITE, listed by TEST_PROGRAM --list-sites) are switched off one
at a time with MOQ_MUTANT=NAME, against the unit tests and the sweeps (of the suites
`moqsim list --suites` names) that reach them; each suite's sweep stops at its own first
failure, so each suite's column says whether that suite alone kills the site, and after
how many cases.

Generated mutants (gen.FILE:LINE:COLUMN.OPERATOR, listed by TEST_PROGRAM
--list-generated; those the generator left out are in the --schemata file as
CompileError) are switched on one at a time: first the unit tests that reach them (those
that killed in the last run first, REPORT_DIR/mutation-killers.json), then the sweeps
suite by suite, then the saved cases of corpus/ (`moqsim corpus`), stopping at the first
kill. Every step has a time budget (a few times
its own run without a mutant); a mutant that runs over it is a Timeout, which counts as
killed.

Mutants run in parallel (-j, default the number of cores). A shard named in the
environment, as `moqsim shard` reads it (moqsim sweep's variables: GTEST_TOTAL_SHARDS /
GTEST_SHARD_INDEX, TEST_TOTAL_SHARDS / TEST_SHARD_INDEX, Kubernetes' JOB_COMPLETION_INDEX
with MOQSIM_SHARD_COUNT, Slurm's SLURM_ARRAY_TASK_*), runs only this shard's share and
writes REPORT_DIR/mutation-shard-INDEX-of-TOTAL.json; --merge joins such files into the
reports. --changed REV keeps the mutants on lines changed since REV (git diff -U0), and
lists apart the survivors new since REV: those whose key (moqtools.mutants.stable_key) the
sources at REV, parsed, do not have.
--operator NAME keeps the generated mutants of that operator (repeatable).

The order_weaken mutants (a memory order weakened to relaxed) change nothing a run on one
thread can see: they run in --threads-build, a ThreadSanitizer schemata build, against
the programs that run the core on real threads (moqtools/order_mutation.py), and their
score is given apart. Without --threads-build they are left out, and naming them is an
error.

The equivalents file lists generated mutants no test can kill, one a line: the mutant's
key (file, operator, function, column and line text; no line number) and the reason;
they are not run and are reported as Ignored with that reason. A listed key that no
longer exists is an error.

Writes REPORT_DIR/mutation.json (the mutation-testing report schema, version 2) and
REPORT_DIR/mutation.md. Exits 1 when a hand-placed site survives without a written
reason, 2 on bad input.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

from .mutant_coverage import Coverage, CoverageError, History, history_path, doctest_filter
from .order_mutation import OPERATOR as ORDER_OPERATOR, OrderBudget, OrderError, is_order, run_order_mutant
from .reports import write_reports
from .shards import ShardError, shard_from_environment
from .site_location import site_location
from .suites import SuitesError, suite_names

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FAILED_CASE = re.compile(r"^TEST CASE:\s+(.+?)\s*$")
TESTS_RUN = re.compile(r"test cases:\s*\d+\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
DETECTED = ("Killed", "Timeout")
STATUSES = ("Killed", "Timeout", "Survived", "NoCoverage", "CompileError", "Ignored")
UNDETECTED = ("Survived", "NoCoverage")
# The child processes run whole: this run's own shard (the variables `moqsim shard` names,
# set by run()) and mutant settings stay here.
PRIVATE_VARIABLES = ["MOQ_MUTANT", "GTEST_SHARD_STATUS_FILE", "TEST_SHARD_STATUS_FILE"]
TIMEOUT_FLOOR = 5.0  # seconds: a busy machine's scheduling noise is no hang
CHEAP_TEST_SECONDS = 0.005  # a unit test under this runs in the first batch of a mutant's tests
LIKELY_KILLERS = 3  # the last run's best killers among a mutant's tests, tried alone first
RESULTS_FORMAT = "moqsim-mutate"


class UsageError(Exception):
    pass


def fail(message):
    print(f"mutate: {message}", file=sys.stderr)
    sys.exit(2)


def take_shard(moqsim):
    """This run's shard as `moqsim shard` reads the environment; its variables are kept
    from every program this run starts from then on."""
    try:
        shard = shard_from_environment(moqsim, os.environ)
    except ShardError as error:
        raise UsageError(str(error)) from None
    PRIVATE_VARIABLES.extend(name for name in shard.variables if name not in PRIVATE_VARIABLES)
    return shard


def swept_suites(moqsim):
    """The suites each mutant's sweeps run: every one `moqsim list --suites` names."""
    try:
        return suite_names(moqsim)
    except SuitesError as error:
        raise UsageError(str(error)) from None


def list_mutants(mutants):
    """--list: one line a mutant; exit status 0."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `scripts/mutate --list | head` is no error
    for mutant in mutants:
        where = f"{mutant['file']}:{mutant['line']}"
        change = f"{mutant['original']} -> {mutant['replacement'] or '(nothing)'}" if mutant["kind"] == "generated" else ""
        print(f"{mutant['id']:<52} {mutant['operator']:<13} {where:<30} {change}"[:200].rstrip())
    return 0


def child_environment(mutant):
    env = {k: v for k, v in os.environ.items() if k not in PRIVATE_VARIABLES}
    if mutant:
        env["MOQ_MUTANT"] = mutant
    return env


def json_lines(program, flag):
    out = subprocess.run([program, flag], capture_output=True, text=True, errors="replace", check=False,
                         env=child_environment(None))
    if out.returncode != 0:
        raise UsageError(f"{program} {flag} failed: {out.stderr.strip()}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


# ---- the mutants ----


def hand_sites(program):
    return [{"kind": "site", "id": site["name"], "operator": site["category"], "file": site["file"],
             "line": site["line"], "column": 1, "end_line": site["line"], "end_column": 1,
             "original": "", "replacement": "", "survivor_reason": site["survivor_reason"]}
            for site in json_lines(program, "--list-sites")]


def generated_mutants(program, schemata_file):
    """The generated mutants the program holds, and those the generator left out."""
    compiled = json_lines(program, "--list-generated")
    mutants = [{"kind": "generated", **m, "end_line": m["line"], "end_column": m["column"]} for m in compiled]
    if schemata_file and os.path.exists(schemata_file):
        with open(schemata_file, encoding="utf-8") as source:
            table = json.load(source)
        if table.get("format") != "moqsim-schemata" or table.get("version") != 1:
            raise UsageError(f"{schemata_file}: not a schemata table of version 1")
        extents = {m["id"]: m for m in table["mutants"]}
        for mutant in mutants:
            entry = extents.get(mutant["id"])
            if entry:
                mutant["end_line"], mutant["end_column"] = entry["end_line"], entry["end_column"]
                mutant["key"] = entry.get("key", "")
        known = {m["id"] for m in mutants}
        for entry in table["mutants"]:
            if entry["status"] != "compiled" and entry["id"] not in known:
                mutants.append({"kind": "generated", "id": entry["id"], "file": entry["file"],
                                "line": entry["line"], "column": entry["column"], "end_line": entry["end_line"],
                                "end_column": entry["end_column"], "operator": entry["operator"],
                                "original": entry["original"], "replacement": entry["replacement"],
                                "key": entry.get("key", ""), "compile_error": entry.get("error", "does not compile")})
    return mutants


KEY = r'(?P<file>\S+) (?P<operator>\w+) (?P<function>\S+) (?P<column>\d+(?:#\d+)?) (?P<text>"(?:[^"\\]|\\.)*")'
# A generated mutant's key (moqtools.mutants.stable_key) alone, and as an entry of the
# equivalents list: the key, then the reason.
KEY_ALONE = re.compile(f"^{KEY}$")
LISTED = re.compile(f"^{KEY}\\s+(?P<reason>\\S.*)$")


def read_equivalents(path):
    """{key: reason} from the reviewed list of equivalent generated mutants. An entry is a
    mutant's key (moqtools.mutants.stable_key: FILE OPERATOR FUNCTION COLUMN "LINE TEXT",
    no line number, so an edit elsewhere in the file keeps it) and the reason."""
    listed = {}
    if not path:
        return listed
    try:
        with open(path, encoding="utf-8") as source:
            lines = source.read().splitlines()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from error
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        found = LISTED.match(line)
        try:
            text = json.loads(found["text"]) if found else None
        except ValueError:
            text = None
        if text is None:
            raise UsageError(f"{path}:{number}: want a generated mutant's key "
                             f'(FILE OPERATOR FUNCTION COLUMN "LINE TEXT") and a reason')
        key = line[:found.end("text")]
        if key in listed:
            raise UsageError(f"{path}:{number}: {key} is listed twice")
        listed[key] = found["reason"].strip()
    return listed


def changed_lines(revision):
    """{file: set of line numbers} changed since `revision` (on this side of the diff)."""
    check = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "--quiet", revision + "^{commit}"],
                           capture_output=True, text=True, errors="replace", check=False)
    if check.returncode != 0:
        raise UsageError(f"--changed: no commit '{revision}'")
    out = subprocess.run(["git", "-C", ROOT, "diff", "-U0", "--no-color", revision, "--", "core"],
                         capture_output=True, text=True, errors="replace", check=False)
    if out.returncode != 0:
        raise UsageError(f"git diff {revision} failed: {out.stderr.strip()}")
    lines = {}
    current = None
    for line in out.stdout.splitlines():
        if line.startswith("+++ "):
            current = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and current:
            match = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            start, count = int(match.group(1)), int(match.group(2) or 1)
            lines.setdefault(current, set()).update(range(start, start + count))
    return lines


def keys_at(revision):
    """The keys of every generated mutant of the sources at `revision` (parsed, not built):
    a survivor whose key is not among them is new since then."""
    from . import mutants as generator  # libclang, needed only here
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", ROOT, "archive", "--format=tar", revision, "core", "oracle"],
                                 capture_output=True, check=False)
        if archive.returncode != 0:
            raise UsageError(f"git archive {revision} failed: {archive.stderr.decode(errors='replace').strip()}")
        unpacked = subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, capture_output=True,
                                  check=False)
        if unpacked.returncode != 0:
            raise UsageError(f"cannot unpack the sources of {revision}: {unpacked.stderr.decode(errors='replace')}")
        try:
            return {point.key for point in generator.generated_points(folder)}
        except generator.UsageError as error:
            raise UsageError(f"the sources of {revision}: {error}") from None


def mark_new_survivors(runs, old_keys):
    """Marks each generated survivor whose key the old sources did not have."""
    for mutant, result in runs:
        if mutant["kind"] == "generated" and result["status"] == "Survived" and mutant.get("key") not in old_keys:
            result["new_survivor"] = True


def touches(mutant, changed):
    lines = changed.get(mutant["file"], set())
    return any(line in lines for line in range(mutant["line"], mutant["end_line"] + 1))


# ---- running ----


def run_units(program, mutant, timeout, first_failure_only, tests=None):
    """The unit tests with `mutant` on: all of them, or only `tests` (names)."""
    argv = [program, "--no-intro", "--no-version", "--no-colors"]
    if first_failure_only:
        argv.append("--abort-after=1")
    if tests is not None:
        argv.append("--test-case=" + doctest_filter(tests))
    started = time.monotonic()
    tried = len(tests) if tests is not None else 0
    try:
        out = subprocess.run(argv, env=child_environment(mutant), capture_output=True, text=True, errors="replace",
                             timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"status": "Timeout", "killed_by": [], "reason": f"unit tests over {timeout:.0f} s",
                "ms": int((time.monotonic() - started) * 1000), "tries": tried}
    ms = int((time.monotonic() - started) * 1000)
    text = ANSI.sub("", out.stdout)
    counted = TESTS_RUN.search(text)
    if counted:
        tried = int(counted.group(1)) + int(counted.group(2))
    failed = []
    for line in text.splitlines():
        match = FAILED_CASE.match(line)
        if match and match.group(1) not in failed:
            failed.append(match.group(1))
    if out.returncode == 2 and not failed and "unknown mutant" in out.stderr:
        raise UsageError(out.stderr.strip())
    if out.returncode < 0:
        return {"status": "Killed", "killed_by": failed, "reason": f"unit tests: signal {-out.returncode}", "ms": ms,
                "tries": tried}
    if out.returncode != 0:
        return {"status": "Killed", "killed_by": failed, "reason": f"unit tests: exit {out.returncode}", "ms": ms,
                "tries": tried}
    return {"status": "Survived", "killed_by": [], "reason": "", "ms": ms, "tries": tried}


def run_sweep(moqsim, mutant, suites, cases, timeout, site_hits=None, env=None):
    """The first failing case of each suite's sweep, as {suite: {seed, case, cases_run}}
    ({suite: {timeout}} or {suite: {exit}} when it hung or crashed before a result).

    Each suite stops at its first failure, so cases_run is the count to that failure.
    site_hits: a file for the sweep's counts of every site and generated mutant."""
    with tempfile.TemporaryDirectory() as folder:
        result = os.path.join(folder, "sweep.json")
        argv = [moqsim, "sweep", "--suite", ",".join(suites), "--seeds", "1", "--cases", str(cases), "--json", result]
        if mutant:
            argv += ["--mutant", mutant]
        if site_hits:
            argv += ["--site-hits", site_hits]
        key = suites[0] if len(suites) == 1 else "sweep"
        try:
            out = subprocess.run(argv, env=env or child_environment(None), capture_output=True, text=True,
                                 errors="replace",
                                 timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return {key: {"timeout": timeout}}
        if out.returncode == 2:
            raise UsageError(out.stderr.strip() or f"moqsim sweep exit 2 with {mutant}")
        if not os.path.exists(result):
            return {key: {"exit": out.returncode}} if out.returncode != 0 else {}
        with open(result, encoding="utf-8") as handle:
            report = json.load(handle)
    firsts = {}
    for suite in report["suites"]:
        if suite["failures"]:
            first = suite["failures"][0]
            firsts[suite["suite"]] = {"seed": first["seed"], "case": first["case"], "cases_run": first["cases_run"]}
    return firsts


CORPUS_FAILED = re.compile(r"^corpus: (\S+) FAILED: (.*)$", re.MULTILINE)


def run_corpus(moqsim, mutant, timeout):
    """`moqsim corpus` (every saved case of corpus/) with `mutant` on: the first case that
    fails, as a killer's name, or "" when every case passes."""
    try:
        out = subprocess.run([os.path.abspath(moqsim), "corpus", "--mutant", mutant], cwd=ROOT,
                             env=child_environment(None), capture_output=True, text=True, errors="replace",
                             timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"corpus (over {timeout:.0f} s)"
    if out.returncode == 2:
        raise UsageError(out.stderr.strip() or f"moqsim corpus exit 2 with {mutant}")
    if out.returncode == 0:
        return ""
    failed = CORPUS_FAILED.search(out.stdout + out.stderr)
    if failed:
        return f"corpus {os.path.basename(failed.group(1))} ({failed.group(2).split(':', 1)[0]})"
    code = out.returncode
    return f"corpus ({'signal ' + str(-code) if code < 0 else 'exit ' + str(code)})"


def try_corpus(result, moqsim, mutant):
    """The saved cases of corpus/ (a few hundredths of a second in all), each a short
    history that once failed, which a sweep's random draw may never make again: True when
    one kills `mutant`, recorded in `result`."""
    result["tries"] += 1
    killer = run_corpus(moqsim, mutant, TIMEOUT_FLOOR)
    if killer:
        result.update(status="Timeout" if "(over" in killer else "Killed", killer=killer, killed_by=[killer],
                      credit=("suite", "corpus"))
    return bool(killer)


def sweep_killer(suite, first):
    if "timeout" in first:
        return f"{suite} sweep (over {first['timeout']:.0f} s)"
    if "exit" in first:
        code = first["exit"]
        return f"{suite} sweep ({'signal ' + str(-code) if code < 0 else 'exit ' + str(code)})"
    return f"{suite} seed {first['seed']} case {first['case']}"


class Budget:
    """Time budgets: a few times each step's own run without a mutant."""

    def __init__(self, factor, coverage):
        self.factor = factor
        self.coverage = coverage
        self.sweeps = {suite: self.of(seconds) for suite, seconds in coverage.suites.items()}

    def of(self, seconds):
        return max(TIMEOUT_FLOOR, self.factor * seconds)

    def units(self, tests):
        return self.of(sum(self.coverage.tests[name] for name in tests))

    def all_sweeps(self, suites):
        return sum(self.sweeps[suite] for suite in suites)


def measure_baseline(program, moqsim, cases, factor, suites):
    """One run of everything with no mutant on: each step's time, and which mutants each
    test and each suite's sweep reaches (scripts/moqtools/mutant_coverage.py)."""
    coverage = Coverage()
    # Counting from the start of each program: a value its static initialisation computes
    # is evaluated before any test.
    counting = dict(child_environment(None), MOQ_COUNT_MUTANTS="1")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "tests.jsonl")
        try:
            out = subprocess.run([program, "--no-intro", "--no-version", "--no-colors", "--mutant-coverage", path],
                                 env=counting, capture_output=True, text=True, errors="replace", timeout=600,
                                 check=False)
        except subprocess.TimeoutExpired:
            raise UsageError("the unit tests with no mutant ran over 600 s: fix them first") from None
        if out.returncode != 0:
            raise UsageError(f"the unit tests fail with no mutant (exit {out.returncode}): fix them first\n"
                             + (out.stderr.strip() or out.stdout.strip()[-2000:]))
        try:
            coverage.add_tests(path)
            for suite in suites:
                hits = os.path.join(folder, f"{suite}.json")
                started = time.monotonic()
                failures = run_sweep(moqsim, None, [suite], cases, 600, site_hits=hits, env=counting)
                if failures:
                    raise UsageError(f"the {suite} sweep fails with no mutant: fix it first")
                coverage.add_suite(suite, time.monotonic() - started, hits)
        except CoverageError as error:
            raise UsageError(str(error)) from None
    return Budget(factor, coverage)


def no_coverage(result):
    result.update(status="NoCoverage", killed_by=[], killer="", cases_to_kill=None, tries=0, ms=0,
                  reason="no unit test and no sweep evaluates it")
    return result


def killer_test(killed_by, tests):
    """The test a unit-test kill is credited to: the first failing one among `tests`
    (None for a crash or a timeout, which names no test)."""
    return next((name for name in killed_by if name in tests), None)


def confirm_survivor(result, mutant_id, program, moqsim, cases, budget, suites_run):
    """A survivor of the tests and sweeps that reach it, run once more against every unit
    test and every other suite's sweep: the coverage credits a value a test computes once a
    process (a function's static) to the first test that computes it, so a later test that
    reads it can see the mutant without evaluating its switch. Marks a kill found this way
    (`outside_coverage`), so the report can count them."""
    units = run_units(program, mutant_id, budget.units(list(budget.coverage.tests)), True)
    result["tries"] += units.pop("tries")
    if units["status"] == "Survived":
        others = [suite for suite in budget.coverage.suites if suite not in suites_run]
        for suite in others:
            result["tries"] += 1
            swept = run_sweep(moqsim, mutant_id, [suite], cases, budget.sweeps[suite])
            if swept:
                first = swept[suite]
                killer = sweep_killer(suite, first)
                units = {"status": "Timeout" if "timeout" in first else "Killed", "killed_by": [killer],
                         "reason": killer, "cases_to_kill": first.get("cases_run")}
                result["credit"] = ("suite", suite)
                break
    if units["status"] == "Survived":
        return result
    result.update(status=units["status"], killed_by=units["killed_by"], outside_coverage=True,
                  cases_to_kill=units.get("cases_to_kill"))
    result["killer"] = result["killed_by"][0] if result["killed_by"] else units["reason"]
    result["reason"] = f"{result['killer']}, outside the coverage (a test or sweep that does not evaluate it)"
    return result


def run_site(site, program, moqsim, cases, budget, history):
    """A hand-placed site: the unit tests that reach it, then every suite's sweep that
    reaches it (each to its first failure, so each suite's column says whether it kills)."""
    started = time.monotonic()
    tests, suites = budget.coverage.reaching(site["id"], history)
    result = {"reached_by": tests + suites, "swept": {}}
    if not tests and not suites:
        return no_coverage(result)
    if tests:
        result.update(run_units(program, site["id"], budget.units(tests), False, tests))
    else:
        result.update(status="Survived", killed_by=[], reason="", tries=0)
    if result["status"] != "Survived":
        found = killer_test(result["killed_by"], tests)
        if found:
            result["credit"] = ("test", found)
    swept = run_sweep(moqsim, site["id"], suites, cases, budget.all_sweeps(suites)) if suites else {}
    result["tries"] += len(suites)
    if swept and result["status"] == "Survived":
        result.update(status="Killed", reason="by the sweep")
        killer = next((suite for suite in suites if suite in swept), None)  # the history's order
        if killer:
            result["credit"] = ("suite", killer)
    result["swept"] = swept
    killers = result["killed_by"] + [sweep_killer(s, f) for s, f in swept.items()]
    result["killer"] = killers[0] if killers else ""
    first = next((f for f in swept.values() if "cases_run" in f), None)
    result["cases_to_kill"] = None if result["killed_by"] or not first else first["cases_run"]
    if result["status"] == "Survived":
        confirm_survivor(result, site["id"], program, moqsim, cases, budget, suites)
    result["ms"] = int((time.monotonic() - started) * 1000)
    return result


def run_generated(mutant, program, moqsim, cases, budget, history):
    """A generated mutant: the unit tests that reach it (the last run's killers first),
    then the sweeps that reach it, suite by suite, to the first kill; a survivor once more
    against everything (confirm_survivor)."""
    started = time.monotonic()
    tests, suites = budget.coverage.reaching(mutant["id"], history)
    result = {"reached_by": tests + suites, "killer": "", "cases_to_kill": None}
    if not tests and not suites:
        # The saved cases of corpus/ take no part in the coverage run: a short history that
        # once failed may reach what no test and no sweep does.
        result.update(status="Survived", killed_by=[], reason="", tries=0)
        if try_corpus(result, moqsim, mutant["id"]):
            result["ms"] = int((time.monotonic() - started) * 1000)
            return result
        return no_coverage(result)
    result.update(status="Survived", killed_by=[], reason="", tries=0)
    # The likely killers in a run of their own first, then the cheap tests, then the slow
    # ones (the threads' stress tests): doctest runs a filter's tests in its own order,
    # not in the order named.
    likely = [name for name in tests if history.tests.get(name, 0) > 0][:LIKELY_KILLERS]
    rest = [name for name in tests if name not in likely]
    cheap = [name for name in rest if budget.coverage.tests[name] < CHEAP_TEST_SECONDS]
    for batch in (likely, cheap, [name for name in rest if name not in cheap]):
        if not batch:
            continue
        units = run_units(program, mutant["id"], budget.units(batch), True, batch)
        result["tries"] += units.pop("tries")
        if units["status"] != "Survived":
            result.update(units)
            result["killer"] = result["killed_by"][0] if result["killed_by"] else result["reason"]
            found = killer_test(result["killed_by"], batch)
            if found:
                result["credit"] = ("test", found)
            result["ms"] = int((time.monotonic() - started) * 1000)
            return result
    for suite in suites:
        result["tries"] += 1
        swept = run_sweep(moqsim, mutant["id"], [suite], cases, budget.sweeps[suite])
        if not swept:
            continue
        first = swept[suite]
        result["status"] = "Timeout" if "timeout" in first else "Killed"
        result["killer"] = sweep_killer(suite, first)
        result["killed_by"] = [result["killer"]]
        result["cases_to_kill"] = first.get("cases_run")
        result["credit"] = ("suite", suite)
        break
    if result["status"] == "Survived":
        try_corpus(result, moqsim, mutant["id"])
    if result["status"] == "Survived":
        confirm_survivor(result, mutant["id"], program, moqsim, cases, budget, suites)
    result["ms"] = int((time.monotonic() - started) * 1000)
    return result


def run_all(mutants, program, moqsim, cases, budgets, jobs, equivalents, history):
    """Runs every mutant (in parallel), printing one line each as it finishes; the
    weakened orders last, under ThreadSanitizer (budgets: the Budget, and the
    OrderBudget or None when no order mutant runs)."""
    budget, order_budget = budgets
    results = [None] * len(mutants)
    pending = []
    for number, mutant in enumerate(mutants):
        if mutant.get("compile_error"):
            results[number] = {"status": "CompileError", "killed_by": [], "killer": "", "cases_to_kill": None,
                               "reason": mutant["compile_error"], "ms": 0, "tries": 0}
        elif mutant.get("key") in equivalents:
            results[number] = {"status": "Ignored", "killed_by": [], "killer": "", "cases_to_kill": None,
                               "reason": equivalents[mutant["key"]], "ms": 0, "tries": 0}
        else:
            pending.append(number)
    pending.sort(key=lambda number: is_order(mutants[number]))
    lock = threading.Lock()
    done = [len(mutants) - len(pending)]
    width = max((len(m["id"]) for m in mutants), default=10)

    def one(number):
        mutant = mutants[number]
        if mutant["kind"] == "site":
            result = run_site(mutant, program, moqsim, cases, budget, history)
        elif is_order(mutant):
            try:
                result = run_order_mutant(mutant, order_budget)
            except OrderError as error:
                raise UsageError(str(error)) from None
        else:
            result = run_generated(mutant, program, moqsim, cases, budget, history)
        with lock:
            done[0] += 1
            print(f"[{done[0]:>4}/{len(mutants)}] {mutant['id']:<{width}}  {shown_status(mutant, result):<22} "
                  f"{result['killer'] or result['reason']}", flush=True)
        return number, result

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for number, result in pool.map(one, pending):
            results[number] = result
    return results


def shown_status(mutant, result):
    if result["status"] in UNDETECTED and mutant.get("survivor_reason"):
        return "survived (explained)"
    return result["status"].lower()


# ---- reports ----


def report_status(mutant, result):
    if result["status"] in UNDETECTED and mutant.get("survivor_reason"):
        return "Ignored"
    return result["status"]


def report_json(runs, elapsed_ms):
    files = {}
    tests = {}
    for mutant, result in runs:
        path = mutant["file"]
        if path not in files:
            try:
                with open(os.path.join(ROOT, path), encoding="utf-8") as source:
                    text = source.read()
            except OSError:
                text = ""
            files[path] = {"language": "cpp", "source": text, "mutants": []}
        killers = result["killed_by"] + [sweep_killer(s, f) for s, f in result.get("swept", {}).items()]
        killers = list(dict.fromkeys(killers))
        if mutant["kind"] == "site":
            description = f"{mutant['id']} switched off"
            location = site_location(files[path]["source"], mutant["id"], mutant["line"])
        else:
            description = f"{mutant['original']} -> {mutant['replacement'] or '(nothing)'}"
            location = {"start": {"line": mutant["line"], "column": mutant["column"]},
                        "end": {"line": mutant["end_line"], "column": mutant["end_column"]}}
        entry = {"id": mutant["id"], "mutatorName": mutant["operator"], "description": description,
                 "location": location, "status": report_status(mutant, result), "killedBy": killers,
                 "coveredBy": result.get("reached_by", []), "duration": result["ms"]}
        if mutant["kind"] == "generated":
            entry["replacement"] = mutant["replacement"]
        reason = result["reason"] or mutant.get("survivor_reason", "")
        if result["cases_to_kill"] is not None:
            reason = f"{result['killer']} ({result['cases_to_kill']} sweep cases to the first failure)"
        if reason:
            entry["statusReason"] = reason
        files[path]["mutants"].append(entry)
        for name in killers + result.get("reached_by", []):
            tests[name] = {"id": name, "name": name}
    return json.dumps({
        "schemaVersion": "2",
        "thresholds": {"high": 90, "low": 70},
        "projectRoot": ".",
        "files": dict(sorted(files.items())),
        "testFiles": {"core/tests": {"tests": sorted(tests.values(), key=lambda t: t["id"])}},
        "framework": {"name": "moqsim mutate"},
        "performance": {"setup": 0, "initialRun": 0, "mutation": elapsed_ms},
    }, indent=1) + "\n"


def counts(results):
    tally = {status: 0 for status in STATUSES}
    for status in results:
        tally[status] += 1
    valid = len(results) - tally["Ignored"] - tally["CompileError"]
    detected = tally["Killed"] + tally["Timeout"]
    tally["all"] = len(results)
    tally["score"] = f"{100 * detected / valid:.1f}%" if valid else "-"
    return tally


def count_row(label, tally):
    return (f"| {label} | {tally['all']} | {tally['Killed']} | {tally['Timeout']} | {tally['Survived']} | "
            f"{tally['NoCoverage']} | {tally['CompileError']} | {tally['Ignored']} | {tally['score']} |")


COUNT_HEADER = ["| {} | mutants | killed | timeout | survived | no coverage | compile error | ignored | score |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]


def suite_cell(result, suite):
    first = result.get("swept", {}).get(suite)
    if not first:
        return "-"
    if "seed" not in first:
        return sweep_killer(suite, first).split(" ", 2)[2]
    return f"{first['cases_run']} (seed {first['seed']} case {first['case']})"


def suite_summary(site_runs, suites):
    """One line a suite: how many sites its sweep alone kills."""
    lines = []
    for suite in suites:
        kills = sum(1 for _, result in site_runs if suite in result.get("swept", {}))
        lines.append(f"{suite} sweep kills {kills} site{'' if kills == 1 else 's'}")
    return lines


def source_line(path, line, cache={}):  # noqa: B006 - a cache across calls
    if path not in cache:
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8") as source:
                cache[path] = source.read().splitlines()
        except OSError:
            cache[path] = []
    lines = cache[path]
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def cell(text):
    return text.replace("|", "\\|").replace("`", "'")


def site_section(site_runs, suites):
    lines = ["## Hand-placed sites", "",
             "Each site switched off in turn (`MOQ_MUTANT=name`) against the unit tests and the short "
             "seeded sweeps that reach it. A suite's column: the number of sweep cases run "
             "until its first failure, counted from the first case of the first seed (seed and case "
             "in brackets); `-` where that suite's sweep alone does not kill the site.", "",
             "| site | category | where | verdict | killed by tests | " + " | ".join(suites) + " |",
             "| --- | --- | --- | --- | --- | " + " | ".join("---" for _ in suites) + " |"]
    for site, result in site_runs:
        verdict = shown_status(site, result)
        killers = ", ".join(f"`{name}`" for name in result["killed_by"][:3])
        if len(result["killed_by"]) > 3:
            killers += f" and {len(result['killed_by']) - 3} more"
        if not killers and result["status"] == "Survived":
            killers = site["survivor_reason"] or "**nothing**"
        elif not killers and result["reason"] != "by the sweep":
            killers = result["reason"]
        cells = " | ".join(suite_cell(result, suite) for suite in suites)
        lines.append(f"| `{site['id']}` | {site['operator']} | {site['file']}:{site['line']} "
                     f"| {verdict} | {killers or '-'} | {cells} |")
    lines += ["", "### Per suite", ""] + [f"- {line}" for line in suite_summary(site_runs, suites)]
    return lines


def generated_section(runs, suites, changed=None):
    lines = ["## Generated mutants", "",
             "Each generated mutant switched on in turn: the unit tests, then the sweeps suite by suite "
             "(" + ", ".join(suites) + "), stopping at the first kill. Score: (killed + timeout) / "
             "(mutants - ignored - compile errors).", ""]
    by_file = {}
    by_operator = {}
    for mutant, result in runs:
        by_file.setdefault(mutant["file"], []).append(result["status"])
        by_operator.setdefault(mutant["operator"], []).append(result["status"])
    lines += [COUNT_HEADER[0].format("file"), COUNT_HEADER[1]]
    lines += [count_row(f"{path}", counts(statuses)) for path, statuses in sorted(by_file.items())]
    lines += ["", COUNT_HEADER[0].format("operator"), COUNT_HEADER[1]]
    lines += [count_row(name, counts(statuses)) for name, statuses in sorted(by_operator.items())]

    by_kill = [r for _, r in runs if r["status"] in DETECTED]
    units = sum(1 for r in by_kill if r["cases_to_kill"] is None and r["status"] == "Killed")
    sweeps = [r["cases_to_kill"] for r in by_kill if r["cases_to_kill"] is not None]
    timeouts = sum(1 for r in by_kill if r["status"] == "Timeout")
    lines += ["", f"Killed by the unit tests: {units}; by a sweep: {len(sweeps)}"
              + (f" (median {sorted(sweeps)[len(sweeps) // 2]} cases to the first failure, at most {max(sweeps)})"
                 if sweeps else "") + f"; timeouts: {timeouts}."]

    survivors = [(m, r) for m, r in runs if r["status"] == "Survived"]
    if changed:
        new = [m for m, r in survivors if r.get("new_survivor")]
        lines += ["", f"### Survivors new since {changed} ({len(new)})", "",
                  f"Survivors whose mutant the sources at {changed} did not have (its line's text, or its "
                  f"function, is new): what the change left untested. The others were there before it.", ""]
        lines += [f"- `{m['id']}`: `{cell(source_line(m['file'], m['line']))}`" for m in new] or ["None."]
    lines += ["", f"### Survivors ({len(survivors)})", ""]
    if survivors:
        lines += ["Each with the tests and sweeps that reach it: where a survivor's killer should be.", "",
                  "| mutant | change | source line | reached by |", "| --- | --- | --- | --- |"]
        for mutant, result in survivors:
            change = f"`{cell(mutant['original'])}` → `{cell(mutant['replacement']) or '(nothing)'}`"
            lines.append(f"| `{mutant['id']}` | {change} | `{cell(source_line(mutant['file'], mutant['line']))}` "
                         f"| {cell(reached_cell(result))} |")
    uncovered = [(m, r) for m, r in runs if r["status"] == "NoCoverage"]
    if uncovered:
        lines += ["", f"### No coverage ({len(uncovered)})", "",
                  "No unit test and no sweep evaluates these; they were not run.", "",
                  "| mutant | change | source line |", "| --- | --- | --- |"]
        for mutant, _ in uncovered:
            change = f"`{cell(mutant['original'])}` → `{cell(mutant['replacement']) or '(nothing)'}`"
            lines.append(f"| `{mutant['id']}` | {change} | `{cell(source_line(mutant['file'], mutant['line']))}` |")
    ignored = [(m, r) for m, r in runs if r["status"] == "Ignored"]
    if ignored:
        lines += ["", f"### Ignored as equivalent ({len(ignored)})", "", "| mutant | reason |", "| --- | --- |"]
        lines += [f"| `{m['id']}` | {cell(r['reason'])} |" for m, r in ignored]
    broken = [(m, r) for m, r in runs if r["status"] == "CompileError"]
    if broken:
        lines += ["", f"### Compile errors ({len(broken)})", "", "| mutant | error |", "| --- | --- |"]
        lines += [f"| `{m['id']}` | {cell(r['reason'])} |" for m, r in broken]
    return lines


def reached_cell(result, shown=4):
    reached = result.get("reached_by", [])
    text = ", ".join(reached[:shown])
    return text + (f" and {len(reached) - shown} more" if len(reached) > shown else "")


def tries_line(runs, meta):
    """The (test or sweep, mutant) runs made, against every test and sweep on every mutant run."""
    runs = [(m, r) for m, r in runs if not is_order(m)]
    made = sum(r.get("tries", 0) for _, r in runs)
    ran = sum(1 for _, r in runs if r["status"] not in ("Ignored", "CompileError"))
    every = ran * (meta.get("tests", 0) + len(meta["suites"]))
    outside = sum(1 for _, r in runs if r.get("outside_coverage"))
    return (f"Tries: {made:,} (test or sweep, mutant) runs, against {every:,} for every one of the "
            f"{meta.get('tests', 0)} unit tests and {len(meta['suites'])} sweeps on each of the {ran:,} mutants "
            f"run or found uncovered. Every survivor of its coverage ran once more against everything; "
            f"{outside} of them were killed that way.")


def split_runs(runs):
    """(sites, generated but the weakened orders, weakened orders): the orders are scored apart."""
    return ([(m, r) for m, r in runs if m["kind"] == "site"],
            [(m, r) for m, r in runs if m["kind"] == "generated" and not is_order(m)],
            [(m, r) for m, r in runs if is_order(m)])


ORDER_LABEL = f"{ORDER_OPERATOR} (ThreadSanitizer, scored apart)"


def order_section(orders):
    lines = ["## Weakened memory orders (ThreadSanitizer)", "",
             "Each `order_weaken` mutant switched on in turn in the ThreadSanitizer schemata build, against the "
             "stress tests that reach it, one at a time, then the runtime's tests and `session_fanout --test`, "
             "to the first race report or failure. Scored apart from the other generated mutants.", "",
             "| mutant | change | source line | verdict | why |", "| --- | --- | --- | --- | --- |"]
    for mutant, result in orders:
        change = f"`{cell(mutant['original'])}` → `{cell(mutant['replacement'])}`"
        lines.append(f"| `{mutant['id']}` | {change} | `{cell(source_line(mutant['file'], mutant['line']))}` "
                     f"| {result['status'].lower()} | {cell(result['reason'] or result['killer'])} |")
    return lines


def report_markdown(runs, meta):
    sites, generated, orders = split_runs(runs)
    lines = ["# Mutation report", "",
             f"Run {meta['when']}: {meta['selection']}; {meta['jobs']} jobs, wall time "
             f"{meta['elapsed_ms'] / 1000:.0f} s.", "", tries_line(runs, meta), ""]
    lines += [COUNT_HEADER[0].format("kind"), COUNT_HEADER[1]]
    if generated:
        lines.append(count_row("generated", counts([r["status"] for _, r in generated])))
    if sites:
        lines.append(count_row("hand-placed sites", counts([report_status(m, r) for m, r in sites])))
    if orders:
        lines.append(count_row(ORDER_LABEL, counts([r["status"] for _, r in orders])))
    if generated:
        survivors = {}
        for mutant, result in generated:
            if result["status"] == "Survived":
                survivors[mutant["file"]] = survivors.get(mutant["file"], 0) + 1
        if survivors:
            lines += ["", "Surviving generated mutants by file: " +
                      ", ".join(f"{path} {n}" for path, n in sorted(survivors.items(), key=lambda kv: -kv[1])) + "."]
    if sites:
        lines += [""] + site_section(sites, meta["suites"])
    if generated:
        lines += [""] + generated_section(generated, meta["suites"], meta.get("changed"))
    if orders:
        lines += [""] + order_section(orders)
    return "\n".join(lines) + "\n"


def write_all_reports(report_dir, runs, meta):
    write_reports(report_dir, [("mutation.json", report_json(runs, meta["elapsed_ms"])),
                               ("mutation.md", report_markdown(runs, meta))])


def summarise(runs, meta, report_dir):
    sites, generated, orders = split_runs(runs)
    if sites:
        killed = sum(1 for _, r in sites if r["status"] in DETECTED)
        explained = sum(1 for m, r in sites if r["status"] in UNDETECTED and m["survivor_reason"])
        unexplained = unexplained_sites(runs)
        uncovered = sum(1 for _, r in sites if r["status"] == "NoCoverage")
        print(f"mutate: sites: {killed} killed, {explained} survived with a reason, "
              f"{len(unexplained)} survived unexplained ({uncovered} reached by nothing), of {len(sites)}")
        for line in suite_summary(sites, meta["suites"]):
            print(f"mutate: {line}")
    if generated:
        tally = counts([r["status"] for _, r in generated])
        print(f"mutate: generated: {tally['Killed']} killed, {tally['Timeout']} timeout, {tally['Survived']} "
              f"survived, {tally['NoCoverage']} no coverage, {tally['CompileError']} compile errors, "
              f"{tally['Ignored']} ignored, of {tally['all']}; score {tally['score']}"
              + (f" (without {ORDER_OPERATOR})" if orders else ""))
    if orders:
        tally = counts([r["status"] for _, r in orders])
        print(f"mutate: {ORDER_OPERATOR} under ThreadSanitizer: {tally['Killed']} killed, {tally['Timeout']} timeout, "
              f"{tally['Survived']} survived, {tally['NoCoverage']} no coverage, {tally['CompileError']} compile "
              f"errors, {tally['Ignored']} ignored, of {tally['all']}; score {tally['score']}")
    if meta.get("changed"):
        new = [m["id"] for m, r in generated if r.get("new_survivor")]
        print(f"mutate: {len(new)} survivor{'' if len(new) == 1 else 's'} new since {meta['changed']}"
              + (": " + ", ".join(new) if new else ""))
    print(f"mutate: {tries_line(runs, meta)}")
    print(f"mutate: {meta['selection']}, {meta['elapsed_ms'] / 1000:.1f} s; reports in "
          f"{os.path.relpath(report_dir, ROOT)}/")
    unexplained = unexplained_sites(runs)
    for site in unexplained:
        print(f"mutate: unexplained survivor {site['id']} ({site['file']}:{site['line']})")
    return 1 if unexplained else 0


# ---- commands ----


def merge(report_dir, paths):
    runs = []
    elapsed = 0
    seen = set()
    for path in paths:
        try:
            with open(path, encoding="utf-8") as source:
                shard = json.load(source)
        except (OSError, ValueError) as error:
            raise UsageError(f"cannot read {path}: {error}") from error
        if not isinstance(shard, dict) or shard.get("format") != RESULTS_FORMAT or shard.get("version") != 1:
            raise UsageError(f"{path}: not a mutate shard of version 1")
        for mutant, result in shard["runs"]:
            if mutant["id"] in seen:
                raise UsageError(f"{path}: {mutant['id']} is in two shards")
            seen.add(mutant["id"])
            runs.append((mutant, result))
        elapsed = max(elapsed, shard["meta"]["elapsed_ms"])
    meta = {"when": datetime.date.today().isoformat(), "selection": f"{len(paths)} shards merged: {len(runs)} mutants",
            "jobs": shard["meta"]["jobs"], "elapsed_ms": elapsed, "suites": shard["meta"]["suites"],
            "tests": shard["meta"].get("tests", 0)}
    write_all_reports(report_dir, runs, meta)
    return summarise(runs, meta, report_dir)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="TEST_PROGRAM MOQSIM REPORT_DIR, or with --merge REPORT_DIR SHARD...")
    parser.add_argument("--merge", action="store_true")
    parser.add_argument("--site", action="append", default=[], help="only these mutants (sites or generated)")
    parser.add_argument("--only", choices=["sites", "generated"])
    parser.add_argument("--operator", action="append", default=[], help="only generated mutants of this operator")
    parser.add_argument("--changed", metavar="REV", help="only mutants on lines changed since REV")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--sweep-cases", type=int, default=2000)
    parser.add_argument("--timeout-factor", type=float, default=5.0)
    parser.add_argument("--equivalents", help="the reviewed list of equivalent generated mutants")
    parser.add_argument("--schemata", help="the generator's table (schemata_mutants.json), for CompileErrors")
    parser.add_argument("--threads-build", metavar="DIR",
                        help=f"a ThreadSanitizer schemata build, where the {ORDER_OPERATOR} mutants run")
    parser.add_argument("--list", action="store_true", help="name the mutants and stop")
    args = parser.parse_args()
    try:
        if args.merge:
            sys.exit(merge(args.paths[0], args.paths[1:]))
        if len(args.paths) != 3:
            raise UsageError("want TEST_PROGRAM MOQSIM REPORT_DIR")
        if args.jobs < 1 or args.sweep_cases < 1 or args.timeout_factor <= 0:
            raise UsageError("-j, --sweep-cases and --timeout-factor must be positive")
        sys.exit(run(args, *args.paths))
    except UsageError as error:
        fail(str(error))


def run(args, program, moqsim, report_dir):
    for path in (program, moqsim):
        if not os.access(path, os.X_OK):
            raise UsageError(f"no program at {path}")
    shard = take_shard(moqsim)
    shard_index, shard_total = shard.index, shard.total
    suites = swept_suites(moqsim)
    equivalents = read_equivalents(args.equivalents)
    mutants = []
    if args.only != "generated":
        mutants += hand_sites(program)
    generated = generated_mutants(program, args.schemata) if args.only != "sites" else []
    if args.only != "sites":
        check_equivalents(generated, equivalents, args.equivalents)
    mutants += generated
    if not mutants:
        raise UsageError("the test program lists no mutants")
    if args.list:
        return list_mutants(mutants)

    selection = []
    all_ids = {m["id"] for m in mutants}
    for name in args.site:
        if name not in all_ids:
            raise UsageError(f"unknown mutant '{name}' (scripts/mutate --list names them)")
    if args.site:
        mutants = [m for m in mutants if m["id"] in args.site]
        selection.append(f"{len(args.site)} named")
    mutants = select_operators(mutants, generated, args.operator, (args.site, args.threads_build), selection)
    if args.changed:
        changed = changed_lines(args.changed)
        mutants = [m for m in mutants if touches(m, changed)]
        selection.append(f"lines changed since {args.changed}")
    if shard_total > 1:
        mutants = mutants[shard_index::shard_total]
        selection.append(f"shard {shard_index + 1} of {shard_total}")
    selection = (", ".join(selection) or "every mutant") + f": {len(mutants)} mutants"

    started = time.monotonic()
    # The thread build first: a bad one is refused before the baseline, not after it.
    order_budget = order_stage(mutants, equivalents, args)
    budget = measure_baseline(program, moqsim, args.sweep_cases, args.timeout_factor, suites)
    history = History.read(history_path(report_dir))
    coverage = budget.coverage
    order = "the last run's killers first" if history.tests or history.suites else "no kill history yet"
    print(f"mutate: {len(mutants)} mutants, {args.jobs} jobs; coverage taken from {len(coverage.tests)} unit tests "
          f"({sum(coverage.tests.values()):.1f} s) and {len(suites)} sweeps ({sum(coverage.suites.values()):.1f} s); "
          f"{order}", flush=True)
    results = run_all(mutants, program, moqsim, args.sweep_cases, (budget, order_budget), args.jobs, equivalents,
                      history)
    meta = {"when": datetime.date.today().isoformat(), "selection": selection, "jobs": args.jobs,
            "elapsed_ms": int((time.monotonic() - started) * 1000), "suites": suites, "tests": len(coverage.tests)}
    runs = list(zip(mutants, results))
    if args.changed:
        mark_new_survivors(runs, keys_at(args.changed))
        meta["changed"] = args.changed
    whole = not args.site and not args.changed and not args.operator and not args.only and shard_total == 1
    write_coverage(report_dir, coverage, runs, whole)
    if shard_total > 1:
        return write_shard(report_dir, shard, runs, meta)
    write_all_reports(report_dir, runs, meta)
    return summarise(runs, meta, report_dir)


def write_shard(report_dir, shard, runs, meta):
    """This shard's results, for --merge; the exit status of its sites."""
    name = f"mutation-shard-{shard.index}-of-{shard.total}.json"
    write_reports(report_dir, [(name, json.dumps({"format": RESULTS_FORMAT, "version": 1, "meta": meta,
                                                  "runs": runs}, indent=1) + "\n")])
    print(f"mutate: shard results in {os.path.relpath(report_dir, ROOT)}/{name} "
          f"(scripts/mutate --merge joins the shards)")
    return summarise_shard(runs)


def order_stage(mutants, equivalents, args):
    """The OrderBudget of the ThreadSanitizer build when a weakened order is to run (None
    if none is): that build must hold every one of them, and its thread programs must pass
    with no mutant on."""
    orders = [m for m in mutants if is_order(m) and not m.get("compile_error") and m.get("key") not in equivalents]
    if not orders:
        return None
    build = args.threads_build
    program = os.path.join(build, "core", "tests", "core_tests")
    if not os.access(program, os.X_OK):
        raise UsageError(f"no program at {program}: --threads-build wants a ThreadSanitizer schemata build")
    held = {m["id"] for m in json_lines(program, "--list-generated")}
    missing = [m["id"] for m in orders if m["id"] not in held]
    if missing:
        raise UsageError(f"{build} does not hold {missing[0]} ({len(missing)} missing): it was built from other "
                         f"sources than the mutants' build; rebuild both")
    print(f"mutate: {len(orders)} {ORDER_OPERATOR} mutants to run under ThreadSanitizer; timing its thread programs "
          f"with no mutant on", flush=True)
    try:
        budget = OrderBudget(build, child_environment(None), args.timeout_factor).measure()
    except OrderError as error:
        raise UsageError(str(error)) from None
    print(f"mutate: ThreadSanitizer stress tests {sum(budget.coverage.tests.values()):.1f} s ("
          f"{len(budget.coverage.tests)} tests), " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in
                                                               budget.program_seconds.items()), flush=True)
    return budget


def check_equivalents(generated, equivalents, path):
    """Every listed key must name a generated mutant of this build (UsageError if not)."""
    if generated and not all(m.get("key") for m in generated):
        raise UsageError("the schemata table holds no mutant keys (a build from before them): rebuild build-mutants/")
    known = {m.get("key") for m in generated}
    stale = [key for key in equivalents if key not in known]
    if stale:
        raise UsageError(f"{os.path.relpath(path, ROOT)} lists {stale[0]}, which is no generated "
                         f"mutant now (its line changed or it went away): update the file "
                         f"(python3 -m moqtools.equivalents names where it went)")


def write_coverage(report_dir, coverage, runs, whole):
    """The coverage, and the kill history the next run orders by: only from a whole run,
    since a part of the mutants would skew the order."""
    outputs = [("mutation-coverage.json", json.dumps(coverage.to_json(), indent=1) + "\n")]
    if whole:
        outputs.append((os.path.basename(history_path(report_dir)), History.from_runs(runs).to_json()))
    write_reports(report_dir, outputs)


def select_operators(mutants, generated, operators, named_and_threads, selection):
    """The generated mutants of the --operator names (no site), or every mutant. The
    weakened orders need the ThreadSanitizer build: without one they are left out, and
    naming them (by operator or by id) is an error."""
    named, threads_build = named_and_threads
    known = {m["operator"] for m in generated}
    for name in operators:
        if name not in known:
            raise UsageError(f"no generated mutant has the operator '{name}' (known: {', '.join(sorted(known))})")
    if operators:
        selection.append("operators " + ", ".join(operators))
        mutants = [m for m in mutants if m["kind"] == "generated" and m["operator"] in operators]
    if threads_build:
        return mutants
    if ORDER_OPERATOR in operators or any(is_order(m) for m in mutants if m["id"] in named):
        raise UsageError(f"{ORDER_OPERATOR} mutants run only in a ThreadSanitizer schemata build: give "
                         f"--threads-build (scripts/mutate builds build-mutants-tsan/ unless --no-threads)")
    left_out = {m["id"] for m in mutants if is_order(m)}
    if left_out:
        print(f"mutate: {len(left_out)} {ORDER_OPERATOR} mutants not run (no ThreadSanitizer build: "
              f"--threads-build)", flush=True)
        selection.append(f"without {ORDER_OPERATOR}")
    return [m for m in mutants if m["id"] not in left_out]


def unexplained_sites(runs):
    """The hand-placed sites no test detects (a survivor, or one nothing reaches) with no
    written reason: each fails the run."""
    return [m for m, r in runs if m["kind"] == "site" and r["status"] in UNDETECTED and not m["survivor_reason"]]


def summarise_shard(runs):
    return 1 if unexplained_sites(runs) else 0


if __name__ == "__main__":
    main()
