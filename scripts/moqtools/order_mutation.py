"""The order_weaken mutants, run where a weakened memory order can show: on real threads
under ThreadSanitizer.

A generated order_weaken mutant turns one `std::memory_order_acquire`, `_release`,
`_acq_rel` or `_seq_cst` of core/ into `std::memory_order_relaxed`. The unit tests and the
sweeps run the core on one thread (the simulator's fibers), where no order changes what a
run does, so scripts/mutate runs these mutants apart, in a ThreadSanitizer schemata build
(build-mutants-tsan/), against the programs that run the core on real threads:
  - core_tests' stress tests (core/tests/cell_stress_test.cpp), one test case a try;
  - runtime_tests, the runtime's tests on its thread pool;
  - session_fanout --test, the fanout program on the runtime's threads.
One run of each with no mutant on takes the coverage (the stress tests' --mutant-coverage,
the others' MOQ_MUTANT_HITS file) and each one's time; a mutant then runs only where its
switch is evaluated, the cheapest first, and one that no thread program evaluates is
NoCoverage. ThreadSanitizer stops a program at its first report (halt_on_error) with exit
status 66, so a kill names the race it saw. Each try's time budget is a few times that
program's (or test's) own time without a mutant, and at least ORDER_TIMEOUT_FLOOR, since
a sanitized program's time is noisy.
"""

import os
import re
import subprocess
import tempfile
import time

from .mutant_coverage import Coverage, CoverageError, doctest_filter

OPERATOR = "order_weaken"
STRESS_SOURCE = "*_stress_test.cpp"
RACE_EXIT = 66
TSAN_OPTIONS = f"halt_on_error=1:exitcode={RACE_EXIT}:second_deadlock_stack=1"
ORDER_TIMEOUT_FLOOR = 20.0  # seconds
REPORT_LINE = re.compile(r"^(WARNING: ThreadSanitizer: .*?)(?: \(pid=\d+\))?\s*$", re.MULTILINE)
SUMMARY_LINE = re.compile(r"^SUMMARY: ThreadSanitizer: (.*)$", re.MULTILINE)


class OrderError(Exception):
    pass


def is_order(mutant):
    return mutant["kind"] == "generated" and mutant["operator"] == OPERATOR


def programs(build):
    """(name, argv) of the thread programs after the stress tests, in the order tried."""
    return [("runtime_tests", [os.path.join(build, "runtime", "tests", "runtime_tests"), "--no-colors"]),
            ("session_fanout --test", [os.path.join(build, "bench", "session_fanout"), "--test"])]


def stress_program(build):
    return os.path.join(build, "core", "tests", "core_tests")


def stress_argv(build, tests=None):
    argv = [stress_program(build), "--no-intro", "--no-version", "--no-colors", "--source-file=" + STRESS_SOURCE]
    if tests is not None:
        argv.append("--test-case=" + doctest_filter(tests))
    return argv


def environment(base, mutant):
    env = dict(base)
    env["TSAN_OPTIONS"] = TSAN_OPTIONS
    env.pop("MOQ_MUTANT", None)
    if mutant:
        env["MOQ_MUTANT"] = mutant
    return env


def finding(stderr):
    """The race ThreadSanitizer reported: its summary line, or its warning line."""
    found = SUMMARY_LINE.search(stderr) or REPORT_LINE.search(stderr)
    return found.group(1).strip() if found else ""


def run_program(name, argv, env, timeout):
    """One try: {status: Survived|Killed|Timeout, reason, seconds}."""
    started = time.monotonic()
    try:
        out = subprocess.run(argv, env=env, capture_output=True, text=True, errors="replace", timeout=timeout,
                             check=False)
    except subprocess.TimeoutExpired:
        return {"status": "Timeout", "reason": f"{name} over {timeout:.0f} s", "seconds": timeout}
    seconds = time.monotonic() - started
    if out.returncode == 0:
        return {"status": "Survived", "reason": "", "seconds": seconds}
    if out.returncode == 2 and "moqsim: " in out.stderr and not finding(out.stderr):
        # The mutant registry's own refusal (an unknown mutant, an unwritable file): a bad
        # stage, not a kill.
        raise OrderError(f"{name}: {out.stderr.strip().splitlines()[-1]}")
    race = finding(out.stderr)
    if race:
        return {"status": "Killed", "reason": f"{name}: ThreadSanitizer: {race}", "seconds": seconds}
    how = f"signal {-out.returncode}" if out.returncode < 0 else f"exit {out.returncode}"
    return {"status": "Killed", "reason": f"{name}: {how}", "seconds": seconds}


class OrderBudget:
    """The stress tests' coverage of the order mutants, and every try's time budget."""

    def __init__(self, build, base_env, factor, floor=ORDER_TIMEOUT_FLOOR):
        self.build = build
        self.base_env = base_env
        self.factor = factor
        self.floor = floor
        self.coverage = Coverage()
        self.program_seconds = {}
        self.program_reach = {}  # program name -> the generated mutants it evaluates

    def of(self, seconds):
        return max(self.floor, self.factor * seconds)

    def measure(self):
        """One run of every thread program with no mutant on: each must pass, and its time
        and coverage are taken."""
        counting = dict(environment(self.base_env, None), MOQ_COUNT_MUTANTS="1")
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "stress.jsonl")
            argv = stress_argv(self.build)[:1] + ["--mutant-coverage", path] + stress_argv(self.build)[1:]
            self.check_clean("the stress tests", argv, counting)
            try:
                self.coverage.add_tests(path)
            except CoverageError as error:
                raise OrderError(str(error)) from None
            if not self.coverage.tests:
                raise OrderError(f"{stress_program(self.build)} --source-file={STRESS_SOURCE} ran no test")
            for number, (name, argv) in enumerate(programs(self.build)):
                hits = os.path.join(folder, f"hits-{number}")
                env = dict(environment(self.base_env, None), MOQ_MUTANT_HITS=hits)
                self.program_seconds[name] = self.check_clean(name, argv, env)
                try:
                    with open(hits, encoding="utf-8") as source:
                        self.program_reach[name] = set(source.read().split())
                except OSError as error:
                    raise OrderError(f"{name} wrote no MOQ_MUTANT_HITS file ({error.strerror}): "
                                     f"is {self.build} a mutants build?") from None
        return self

    def reaching(self, mutant_id):
        """(name, argv, budget) of every try that evaluates the mutant, cheapest first."""
        tests = sorted(self.coverage.test_reach.get(mutant_id, []), key=lambda t: (self.coverage.tests[t], t))
        tries = [(test, stress_argv(self.build, [test]), self.of(self.coverage.tests[test])) for test in tests]
        tries += sorted(((name, argv, self.of(self.program_seconds[name])) for name, argv in programs(self.build)
                         if mutant_id in self.program_reach[name]), key=lambda t: t[2])
        return tries

    @staticmethod
    def check_clean(name, argv, env):
        if not os.access(argv[0], os.X_OK):
            raise OrderError(f"no program at {argv[0]} (scripts/mutate builds build-mutants-tsan/)")
        started = time.monotonic()
        try:
            out = subprocess.run(argv, env=env, capture_output=True, text=True, errors="replace", timeout=900,
                                 check=False)
        except subprocess.TimeoutExpired:
            raise OrderError(f"{name} with no mutant ran over 900 s under ThreadSanitizer") from None
        if out.returncode != 0:
            detail = finding(out.stderr) or (out.stderr.strip() or out.stdout.strip())[-2000:]
            raise OrderError(f"{name} fails under ThreadSanitizer with no mutant (exit {out.returncode}): "
                             f"fix it first\n{detail}")
        return time.monotonic() - started


def run_order_mutant(mutant, budget):
    """A weakened order: each stress test and thread program that evaluates it, one a try,
    cheapest first, to the first kill."""
    started = time.monotonic()
    tries = budget.reaching(mutant["id"])
    result = {"status": "Survived", "killed_by": [], "killer": "", "reason": "", "cases_to_kill": None, "tries": 0,
              "reached_by": [name for name, _, _ in tries]}
    env = environment(budget.base_env, mutant["id"])
    for name, argv, timeout in tries:
        outcome = run_program(name, argv, env, timeout)
        result["tries"] += 1
        if outcome["status"] != "Survived":
            result.update(status=outcome["status"], killed_by=[name], killer=outcome["reason"],
                          reason=outcome["reason"])
            break
    if not tries:
        result.update(status="NoCoverage", reason="no stress test and no thread program evaluates it")
    elif result["status"] == "Survived":
        result["reason"] = "no race and no failure on the threads of " + ", ".join(result["reached_by"])
    result["ms"] = int((time.monotonic() - started) * 1000)
    return result
