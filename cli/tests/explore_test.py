"""Bounded exploration: `moqsim explore` of one case of every suite, and its canary.

Each suite's case is explored at bounds 0, 1 and 2: every exploration passes and is
exhaustive, a larger bound runs at least the schedules of a smaller one, the JSON totals
hold what the text promises, sleep sets never run more schedules than the whole tree,
and a passing exploration writes no case file. `explore --ops` of the gate (2) and track (1)
suites explores each small case that `list --small-cases` lists. An exploration's shards
(one case's tree, and small cases), merged, run the whole one's schedules; one stopped
every few hundred schedules and resumed ends exhaustive. A case file of a run that left
its schedule (nondeterministic) replays to that failure when it parts again, where another
file that parts is run on its defaults past that point, with a note. Together under a
minute.

With --canary SUITE SITE CASE BOUND (a moqsim built with -Dmutants=true; CASE a sweep
case of seed 1, or a saved case's path from the tree's top): with the site
switched off the exploration of that case must fail, write its case file, print the
replay command, and `moqsim replay FILE` must fail with the same digest; an exploration
of FILE at bound 0 (around its decisions) must fail; its `--shrink --save` must give a
case no larger, at no more preemptions, whose saved schedule replays to its failure.

With --reduce SUITE SITE OPS BOUND (a moqsim built with -Dmutants=true): with the site
switched off, every small case of up to OPS operations explored to BOUND with
--keep-going fails in the same small cases with sleep sets as without them, and the sleep
sets prune: a footprint that missed an object would let them skip a failing order.

Usage: explore_test.py PATH/TO/moqsim [--canary SUITE SITE CASE BOUND | --reduce SUITE SITE OPS BOUND].
Ends with "explore: N passed, M failed".
"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from moqsim_test_support import Checks, clean_environment  # noqa: E402

# A case of each suite (seed 1) small enough to explore to bound 2 in seconds, even in a
# sanitizer's debug build: group's case 30 runs 175 s there at bound 2, its case 12 (253
# schedules) under a second; resume's case 20 runs 399 schedules.
CASES = {"waiter": 30, "gate": 30, "group": 12, "track": 30, "resume": 20, "fanout": 10, "runtime": 15}
# Fanout's bound 2 runs 62,000 schedules twice, minutes under a sanitizer: bounds 0 and 1.
BOUNDS = {"fanout": (0, 1)}


def run(moqsim, *args, cwd=None):
    return subprocess.run([moqsim, *args], env=clean_environment(), capture_output=True, text=True, timeout=300,
                          check=False, cwd=cwd)


def case_arguments(case):
    """A sweep case of seed 1 by its index, or a saved case by its path from the tree's top."""
    if str(case).endswith(".json"):
        return ["--case", str(Path(__file__).resolve().parents[2] / case)]
    return ["--seed", "1", "--case", str(case)]


def explore_json(moqsim, work, suite, case, bound, *extra):
    failure = work / f"{suite}.failure.json"
    done = run(moqsim, "explore", "--suite", suite, *case_arguments(case), "--bound", str(bound),
               "--json", "--failure", str(failure), *extra)
    totals = json.loads(done.stdout) if done.returncode in (0, 1) and done.stdout else {}
    return done, totals, failure


def check_suite(check, moqsim, work, suite, case):
    counts = []
    for bound in BOUNDS.get(suite, (0, 1, 2)):
        done, totals, failure = explore_json(moqsim, work, suite, case, bound)
        what = f"{suite} case {case} bound {bound}"
        check(f"{what} passes", done.returncode == 0, done.stderr)
        check(f"{what} is exhaustive", totals.get("end") == "exhaustive" and totals.get("exhaustive") is True,
              totals)
        check(f"{what} says what it ran", totals.get("suite") == suite and totals.get("bound") == bound
              and totals.get("schedules", 0) >= 1 and totals.get("failures") == [], totals)
        check(f"{what} writes no case file", not failure.exists())
        counts.append(totals.get("schedules", 0))
        if bound == 2:
            plain_done, plain, _ = explore_json(moqsim, work, suite, case, bound, "--no-sleep-sets")
            check(f"{what}: sleep sets run no more schedules than the whole tree",
                  plain_done.returncode == 0 and totals.get("schedules", 0) <= plain.get("schedules", 0),
                  (totals.get("schedules"), plain.get("schedules")))
    check(f"{suite}: a larger bound runs at least the schedules of a smaller", counts == sorted(counts), counts)


def check_small_cases(check, moqsim, work, suite, ops):
    """explore --ops explores every small case that sweep --ops runs, each to the bound."""
    listed = run(moqsim, "list", "--small-cases", "--suite", suite, "--ops", str(ops), "--json")
    cases = json.loads(listed.stdout).get("cases", []) if listed.returncode == 0 else []
    failure = work / f"{suite}.small.failure.json"
    done = run(moqsim, "explore", "--suite", suite, "--ops", str(ops), "--bound", "1", "--json", "--failure",
               str(failure))
    totals = json.loads(done.stdout) if done.returncode == 0 and done.stdout else {}
    small = totals.get("small_cases") or {}
    what = f"{suite} --ops {ops} bound 1"
    check(f"{what} passes and is exhaustive", done.returncode == 0 and totals.get("exhaustive") is True,
          done.stderr)
    check(f"{what} explores each listed small case once", len(cases) > 0 and small.get("explored") == len(cases),
          (small, len(cases)))
    check(f"{what} runs at least a schedule a case", totals.get("schedules", 0) >= len(cases) > 0, totals)


def shard_environment(index, total):
    return {"GTEST_TOTAL_SHARDS": str(total), "GTEST_SHARD_INDEX": str(index)}


def check_shards(check, moqsim, work, suite, case, bound, total, *extra):
    """The shards of one exploration, merged, run the schedules of the whole one."""
    args = [*(["--ops", str(case)] if extra and extra[0] == "ops" else ["--seed", "1", "--case", str(case)]),
            "--bound", str(bound)]
    whole = run(moqsim, "explore", "--suite", suite, *args, "--json")
    files = []
    for index in range(total):
        path = work / f"{suite}.shard{index}.json"
        done = subprocess.run([moqsim, "explore", "--suite", suite, *args, "--resume", str(path)],
                              env=clean_environment(shard_environment(index, total)), capture_output=True, text=True,
                              timeout=300, check=False)
        check(f"{suite} {args} shard {index} of {total} passes", done.returncode == 0, done.stderr)
        files.append(str(path))
    merged_path = work / f"{suite}.merged.json"
    merged = run(moqsim, "merge", *files, "--json", str(merged_path))
    totals = json.loads(whole.stdout) if whole.returncode == 0 else {}
    joined = json.loads(merged_path.read_text()) if merged.returncode == 0 and merged_path.exists() else {}
    parts = [json.loads(Path(path).read_text()).get("schedules", 0) for path in files if Path(path).exists()]
    what = f"{suite} {' '.join(args)} in {total} shards"
    check(f"{what}: merged, they run the whole exploration's schedules",
          joined.get("schedules") == totals.get("schedules") > 0 and joined.get("exhaustive") is True,
          (joined.get("schedules"), totals.get("schedules"), merged.stdout + merged.stderr))
    check(f"{what}: every shard runs some", len(parts) == total and min(parts) > 0, parts)
    if extra:
        check(f"{what}: merged, they explore every small case",
              joined.get("explored_cases") == (totals.get("small_cases") or {}).get("explored"), joined)


def check_resume(check, moqsim, work, suite, case, bound, step):
    """An exploration stopped every `step` schedules and resumed ends where the whole one does."""
    args = ["explore", "--suite", suite, "--seed", "1", "--case", str(case), "--bound", str(bound)]
    whole = run(moqsim, *args, "--json")
    totals = json.loads(whole.stdout) if whole.returncode == 0 else {}
    path = work / f"{suite}.resume.json"
    ends, runs = [], 0
    while runs < 50 and (not ends or ends[-1] == "budget"):
        done = run(moqsim, *args, "--max-schedules", str(step), "--resume", str(path))
        runs += 1
        ends.append(json.loads(path.read_text()).get("end") if done.returncode == 0 and path.exists() else "error")
    kept = json.loads(path.read_text()) if path.exists() else {}
    what = f"{suite} case {case} bound {bound} in runs of {step} schedules"
    check(f"{what}: stops by its budget, then ends exhaustive", ends[-1] == "exhaustive" and len(ends) > 2
          and set(ends[:-1]) == {"budget"}, ends)
    check(f"{what}: runs at least the whole exploration's schedules", kept.get("schedules", 0) >= totals.get(
        "schedules", 1) > 0, (kept.get("schedules"), totals.get("schedules")))
    again = run(moqsim, *args, "--resume", str(path))
    check(f"{what}: resuming an ended exploration runs nothing", again.returncode == 0
          and "nothing to resume" in again.stdout, again.stdout + again.stderr)


def check_canary(check, moqsim, work, suite, site, case, bound):
    done, totals, failure = explore_json(moqsim, work, suite, case, bound, "--mutant", site)
    what = f"{suite} case {case} bound {bound} with {site} off"
    check(f"{what} fails", done.returncode == 1 and len(totals.get("failures", [])) == 1, done.stderr)
    check(f"{what} writes its case file", failure.exists())
    replay_line = re.search(r"replay: (\S+) replay (\S+)", done.stderr)
    check(f"{what} prints the replay command", replay_line is not None and replay_line.group(2) == str(failure),
          done.stderr)
    check(f"{what} prints the shrink command",
          f"replay {failure} --shrink --save SMALL.json" in done.stderr, done.stderr)
    if not failure.exists() or not totals.get("failures"):
        return
    replayed = run(moqsim, "replay", str(failure))
    digest = f"{totals['failures'][0]['digest']:016x}"
    check(f"{what}: replay fails with the explored digest",
          replayed.returncode == 1 and f"digest {digest}" in replayed.stdout, replayed.stdout + replayed.stderr)
    around = run(moqsim, "explore", "--suite", suite, "--case", str(failure), "--bound", "0", "--mutant", site,
                 "--failure", str(work / "around.json"))
    check(f"{what}: an exploration around its case file fails at bound 0", around.returncode == 1,
          around.stdout + around.stderr)
    check_shrink(check, moqsim, work, what, failure)


def check_reduce(check, moqsim, work, suite, site, ops, bound):
    found = {}
    for label, extra in (("with", ()), ("without", ("--no-sleep-sets",))):
        done = run(moqsim, "explore", "--suite", suite, "--ops", str(ops), "--bound", str(bound), "--keep-going",
                   "--json", "--mutant", site, "--failure", str(work / f"{label}.failure.json"), *extra)
        totals = json.loads(done.stdout) if done.returncode in (0, 1) and done.stdout else {}
        found[label] = (totals, sorted({failure.get("small_case") for failure in totals.get("failures", [])}))
    what = f"{suite} --ops {ops} bound {bound} with {site} off"
    with_sets, without = found["with"], found["without"]
    check(f"{what} fails", bool(without[1]), without[0])
    check(f"{what}: sleep sets find the same failing small cases ({len(without[1])})", with_sets[1] == without[1],
          f"with sleep sets {len(with_sets[1])} cases, without {len(without[1])}; only without: "
          f"{sorted(set(without[1]) - set(with_sets[1]))[:10]}")
    check(f"{what}: sleep sets prune", with_sets[0].get("pruned_by_sleep_sets", 0) > 0
          and with_sets[0].get("schedules", 0) < without[0].get("schedules", 0), with_sets[0])


def check_shrink(check, moqsim, work, what, failure):
    """replay --shrink --save: a case no larger, failing at no more preemptions, whose saved
    schedule replays to the failure with the digest the file records."""
    shrunk = work / "shrunk.json"
    done = run(moqsim, "replay", str(failure), "--shrink", "--save", str(shrunk))
    check(f"{what}: --shrink of its case file fails and saves a case file",
          done.returncode == 1 and re.search(r"^shrink: \d+ steps to: ", done.stdout, re.M) is not None
          and shrunk.exists(), done.stdout + done.stderr)
    if not shrunk.exists():
        return
    before = json.loads(failure.read_text())
    after = json.loads(shrunk.read_text())
    check(f"{what}: the shrunk case has no more steps, and needs no more preemptions",
          len(after["case"]["steps"]) <= len(before["case"]["steps"]) and after["bound"] <= before["bound"],
          f"{before['case']} at bound {before['bound']} -> {after['case']} at bound {after['bound']}")
    replayed = run(moqsim, "replay", str(shrunk))
    check(f"{what}: the shrunk schedule replays to its failure and its digest",
          replayed.returncode == 1 and f"digest {after['digest']}" in replayed.stdout
          and after["message"] in replayed.stdout, replayed.stdout + replayed.stderr)


def check_nondeterministic_file(check, moqsim, work):
    """A case file explore wrote for a run that left its schedule: replaying it and parting
    again is that finding (exit 1), where any other file that parts runs on its defaults."""
    case = {"drive": "woken", "mode": "idle", "seed": 1, "steps": [["yield", 0], ["write", 0]]}
    parting = ["pick 3/7"]
    nondeterministic = "nondeterministic: a run left the schedule it was given at decision 0"
    for message, decisions, status, said in (
            (nondeterministic, parting, 1,
             "FAILED: nondeterministic: the run parts from the file's decisions at decision 0"),
            # A run that takes the whole prefix and goes on past it is judged as any run.
            (nondeterministic, [], 0, "passed"),
            ("I1: a failure", parting, 0, "the run parts from the file's decisions at decision 0")):
        path = work / "parting.json"
        path.write_text(json.dumps({"format": "moqsim-case", "version": 2, "suite": "gate", "mutant": None,
                                    "bound": 1, "message": message, "digest": "0000000000000000", "case": case,
                                    "decisions": decisions}))
        done = run(moqsim, "replay", str(path))
        check(f"a case file of {len(decisions)} decisions with message '{message[:20]}' replays to exit {status}",
              done.returncode == status and said in done.stdout + done.stderr, (done.returncode, done.stdout,
                                                                                  done.stderr))


def main(argv):
    moqsim = argv[1]
    check = Checks("explore")
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        if len(argv) == 7 and argv[2] == "--canary":
            case = argv[5] if argv[5].endswith(".json") else int(argv[5])
            check_canary(check, moqsim, work, argv[3], argv[4], case, int(argv[6]))
            return check.finish()
        if len(argv) == 7 and argv[2] == "--reduce":
            check_reduce(check, moqsim, work, argv[3], argv[4], int(argv[5]), int(argv[6]))
            return check.finish()
        suites = run(moqsim, "list", "--suites").stdout.split()
        check("every suite has a case to explore", sorted(suites) == sorted(CASES), suites)
        for suite in suites:
            if suite in CASES:
                check_suite(check, moqsim, work, suite, CASES[suite])
        for suite, ops in (("gate", 2), ("track", 1)):
            check_small_cases(check, moqsim, work, suite, ops)
        check_shards(check, moqsim, work, "resume", CASES["resume"], 2, 3)
        check_shards(check, moqsim, work, "gate", 1, 1, 2, "ops")
        check_resume(check, moqsim, work, "gate", CASES["gate"], 2, 300)
        check_nondeterministic_file(check, moqsim, work)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
