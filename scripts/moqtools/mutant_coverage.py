"""Which tests and sweeps reach which mutant, and in what order to try them.

scripts/moqtools/mutation.py runs the kill suite once with no mutant on, with counting on:
  - the unit test program with --mutant-coverage FILE writes, a line a test case, the
    sites and generated mutants it evaluated and its own time;
  - each suite's sweep with --site-hits FILE writes the same for the whole sweep.
A run that never evaluates a mutant's switch runs exactly as it would with that mutant on
(the program is deterministic apart from the tests on real threads), so a mutant is tried
only against the tests and sweeps that reach it, and one that nothing reaches is reported
as NoCoverage without a run.

The kill history (reports/mutation-killers.json) counts how many mutants each test and
each suite's sweep killed in the last run; the next run tries the likely killers first.
"""

import json
import os


class CoverageError(Exception):
    pass


class Coverage:
    """The tests and suites that reach each mutant, and what each costs."""

    def __init__(self):
        self.tests = {}  # test name -> seconds without a mutant
        self.suites = {}  # suite -> seconds without a mutant
        self.test_reach = {}  # mutant id (site name or generated id) -> [test names]
        self.suite_reach = {}  # mutant id -> [suites]

    def add_tests(self, path):
        """Reads the unit test program's --mutant-coverage file."""
        try:
            with open(path, encoding="utf-8") as source:
                lines = source.read().splitlines()
        except OSError as error:
            raise CoverageError(f"cannot read {path}: {error.strerror}") from error
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                name, seconds = entry["test"], float(entry["seconds"])
                reached = list(entry["sites"]) + list(entry["generated"])
            except (ValueError, KeyError, TypeError) as error:
                raise CoverageError(f"{path}:{number}: not a test's coverage ({error})") from error
            self.tests[name] = self.tests.get(name, 0.0) + seconds
            for mutant in reached:
                self.test_reach.setdefault(mutant, []).append(name)

    def add_suite(self, suite, seconds, path):
        """Reads one suite's `moqsim sweep --site-hits` file."""
        try:
            with open(path, encoding="utf-8") as source:
                report = json.load(source)
            entry = next(s for s in report["suites"] if s["suite"] == suite)
            reached = [name for name, count in entry["evaluations"].items() if count > 0]
            reached += [name for name, count in entry.get("generated", {}).items() if count > 0]
        except (OSError, ValueError, KeyError, StopIteration) as error:
            raise CoverageError(f"{path}: no site hits of the {suite} sweep ({error})") from error
        self.suites[suite] = seconds
        for mutant in reached:
            self.suite_reach.setdefault(mutant, []).append(suite)

    def reaching(self, mutant_id, history):
        """(tests, suites) that reach the mutant, likely killers first."""
        tests = sorted(self.test_reach.get(mutant_id, []), key=lambda t: (-history.tests.get(t, 0), self.tests[t], t))
        suites = sorted(self.suite_reach.get(mutant_id, []),
                        key=lambda s: (-history.suites.get(s, 0), list(self.suites).index(s)))
        return tests, suites

    def to_json(self):
        return {"format": "moqsim-mutant-coverage", "version": 1,
                "tests": {name: round(seconds, 4) for name, seconds in sorted(self.tests.items())},
                "suites": {suite: round(seconds, 3) for suite, seconds in self.suites.items()},
                "reached_by": {mutant: {"tests": sorted(self.test_reach.get(mutant, [])),
                                        "suites": self.suite_reach.get(mutant, [])}
                               for mutant in sorted(set(self.test_reach) | set(self.suite_reach))}}


class History:
    """How many mutants each test and suite killed in the last run."""

    FORMAT = "moqsim-mutant-killers"

    def __init__(self, tests=None, suites=None):
        self.tests = tests or {}
        self.suites = suites or {}

    @classmethod
    def read(cls, path):
        """The last run's counts; empty (the default order) when there is none or it is unreadable."""
        try:
            with open(path, encoding="utf-8") as source:
                data = json.load(source)
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict) or data.get("format") != cls.FORMAT:
            return cls()
        counts = []
        for part in ("tests", "suites"):
            given = data.get(part, {})
            if not isinstance(given, dict):
                return cls()
            counts.append({name: count for name, count in given.items() if isinstance(count, int)})
        return cls(*counts)

    @classmethod
    def from_runs(cls, runs):
        """The counts of this run's results: the test or suite each kill is credited to."""
        history = cls()
        for _, result in runs:
            credit = result.get("credit")
            if not credit:
                continue
            kind, name = credit
            bucket = history.tests if kind == "test" else history.suites
            bucket[name] = bucket.get(name, 0) + 1
        return history

    def to_json(self):
        return json.dumps({"format": self.FORMAT, "version": 1,
                           "tests": dict(sorted(self.tests.items(), key=lambda kv: (-kv[1], kv[0]))),
                           "suites": dict(sorted(self.suites.items(), key=lambda kv: (-kv[1], kv[0])))},
                          indent=1) + "\n"


def doctest_filter(names):
    """A doctest --test-case value naming these tests: its filters are split at commas, with
    `\\,` and `\\\\` escapes, and match whole names (wildcards, any case)."""
    return ",".join(name.replace("\\", "\\\\").replace(",", "\\,") for name in names)


def history_path(report_dir):
    return os.path.join(report_dir, "mutation-killers.json")
