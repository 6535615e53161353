"""Buckets: a sweep that keeps going sorts its failures (runner/buckets.hpp).

Needs a moqsim of a mutants build (build-sites/, which the canaries build): with the gate
suite's finish of a walk that a wake fired during (idle.finish.fired_during_walk) switched
off, the gate sweep fails two rules, I1 and I3, in thousands of cases. A timed sweep that
keeps going runs on past them and sorts them into two buckets, one a rule; each bucket's
smallest case is kept beside the result and replays to the same rule; a resumed sweep adds
to the same buckets; shards' buckets merge to the unsharded sweep's failures; without
shrinking a bucket's smallest case is its first; the listed failures stop at
--max-failures while every failure is still counted; a sweep told of known buckets
(--known-buckets) counts its failures into them.

Usage: buckets_test.py PATH/TO/MUTANTS-BUILD/moqsim. Ends with "buckets: N passed, M failed".
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from moqsim_test_support import Checks, clean_environment  # noqa: E402

SITE = "idle.finish.fired_during_walk"
GATE = ["--suite", "gate", "--mutant", SITE, "--keep-going"]


def run(moqsim, *args, env=None, cwd=None):
    return subprocess.run([moqsim, *args], env=clean_environment(env), capture_output=True, text=True, timeout=300,
                          check=False, cwd=cwd)


def failed(result):
    return sum(suite["failed"] for suite in result["suites"])


def first_case(moqsim, work, bucket):
    """The case a bucket's first failure ran, as replay --save stores it."""
    saved = work / "first.json"
    first = bucket["first"]
    run(moqsim, "replay", "--suite", bucket["suite"], "--seed", str(first["seed"]), "--case", str(first["case"]),
        "--mutant", SITE, "--save", str(saved))
    return json.loads(saved.read_text())


def counts(result):
    return {bucket["id"]: bucket["count"] for bucket in result["buckets"]}


def check_timed(check, moqsim, work):
    """A timed sweep that keeps going: two rules, two buckets, each case kept and replayed."""
    timed = work / "timed.json"
    swept = run(moqsim, "sweep", *GATE, "--cases", "300", "--duration", "2s", "--json", str(timed))
    result = json.loads(timed.read_text())
    check("a timed sweep that keeps going fails (exit 1) and runs till its time is up",
          swept.returncode == 1 and result["timed"]["stopped"] == "time" and result["timed"]["keep_going"],
          swept.stderr[-300:])
    check("it ran on past its failures, seed after seed", result["seeds"][1] > 1 and failed(result) > 10,
          str(result["seeds"]))
    check("the progress line counts the buckets", " buckets" in swept.stderr, swept.stderr[-300:])
    buckets = result["buckets"]
    check("two rules broken make two buckets, one a rule",
          sorted((b["rule"], b["check"]) for b in buckets) == [("I1", "violated"), ("I3", "violated")],
          str([(b["rule"], b["check"], b["signature"]) for b in buckets]))
    check("every failure is in one bucket", sum(counts(result).values()) == failed(result),
          f"{counts(result)} against {failed(result)} failed")
    check("many cases of one bug are one bucket", max(counts(result).values(), default=0) >= 10, str(counts(result)))
    for bucket in buckets:
        smallest = bucket["smallest"]
        file = Path(smallest["file"])
        check(f"bucket {bucket['id']} keeps its smallest case beside the result",
              file == Path(f"{timed}.cases/{bucket['id']}.json") and json.loads(file.read_text()) == smallest["saved"])
        replayed = run(moqsim, *smallest["replay"].split()[1:])
        check(f"bucket {bucket['id']}'s replay fails with its rule",
              replayed.returncode == 1 and f"FAILED: {bucket['rule']}: " in replayed.stdout, replayed.stdout[:300])
        check(f"bucket {bucket['id']}'s smallest case is no bigger than its first",
              len(bucket["signature"]) <= len(first_case(moqsim, work, bucket)["case"]["steps"]))
    resumed = run(moqsim, "sweep", "--resume", str(timed), "--duration", "1s")
    again = json.loads(timed.read_text())
    check("--resume keeps going and adds to the same buckets",
          resumed.returncode == 1 and again["timed"]["keep_going"] and len(again["timed"]["runs"]) == 2 and
          set(counts(result)) <= set(counts(again)) and sum(counts(again).values()) == failed(again) and
          all(counts(again)[id] >= count for id, count in counts(result).items()), resumed.stderr[-300:])
    return result


def check_shards(check, moqsim, work):
    """Three shards' buckets merge: each kind's counts added, the earliest first, the cases kept."""
    shards = []
    for index in range(3):
        path = work / f"shard{index}.json"
        run(moqsim, "sweep", *GATE, "--seeds", "1-2", "--cases", "200", "--json", str(path),
            env={"GTEST_TOTAL_SHARDS": "3", "GTEST_SHARD_INDEX": str(index)})
        shards.append(json.loads(path.read_text()))
    merged_path = work / "merged.json"
    merging = run(moqsim, "merge", *(str(work / f"shard{i}.json") for i in range(3)), "--json", str(merged_path))
    merged = json.loads(merged_path.read_text())
    check("a merge of failing shards exits 1 and lists their buckets",
          merging.returncode == 1 and "buckets: " in merging.stdout, merging.stdout[-300:])
    # Each shard shrinks its own first failures, to cases of its own: the merge joins
    # buckets of one id, and of one suite, rule, check and message shape.
    def kind(bucket):
        return bucket["suite"], bucket["rule"], bucket["check"], bucket["shape"]

    expected, firsts = {}, {}
    for shard in shards:
        for bucket in shard["buckets"]:
            expected[kind(bucket)] = expected.get(kind(bucket), 0) + bucket["count"]
            firsts.setdefault(kind(bucket), []).append((bucket["first"]["seed"], bucket["first"]["case"]))
    check("each kind's count is its shards' sum, in one bucket",
          {kind(b): b["count"] for b in merged["buckets"]} == expected and len(merged["buckets"]) == len(expected),
          f"{[(kind(b), b['count']) for b in merged['buckets']]} against {expected}")
    whole = work / "whole.json"
    run(moqsim, "sweep", *GATE, "--seeds", "1-2", "--cases", "200", "--json", str(whole))
    whole_result = json.loads(whole.read_text())
    check("the merged buckets hold every failure of the unsharded sweep, in as many buckets",
          sum(counts(merged).values()) == failed(whole_result) == failed(merged) and
          sorted(kind(b) for b in merged["buckets"]) == sorted(kind(b) for b in whole_result["buckets"]))
    for bucket in merged["buckets"]:
        check(f"merged bucket {bucket['id']}'s first is the earliest of its shards'",
              (bucket["first"]["seed"], bucket["first"]["case"]) == min(firsts[kind(bucket)]))
        check(f"merged bucket {bucket['id']}'s case is kept beside the merged result",
              Path(bucket["smallest"]["file"]) == Path(f"{merged_path}.cases/{bucket['id']}.json") and
              run(moqsim, *bucket["smallest"]["replay"].split()[1:]).returncode == 1)


def check_limits(check, moqsim, work):
    """--shrink-seconds 0 keeps a bucket's first case; --max-failures caps the list only."""
    unshrunk = work / "unshrunk.json"
    run(moqsim, "sweep", *GATE, "--seeds", "1", "--cases", "200", "--shrink-seconds", "0", "--max-failures", "3",
        "--json", str(unshrunk))
    result = json.loads(unshrunk.read_text())
    check("a sweep without shrinking still makes buckets", len(result["buckets"]) >= 1)
    for bucket in result["buckets"]:
        first, smallest = bucket["first"], bucket["smallest"]
        check(f"without shrinking, bucket {bucket['id']}'s smallest case is its first",
              (smallest["seed"], smallest["case"]) == (first["seed"], first["case"]) and
              smallest["saved"]["case"] == first_case(moqsim, work, bucket)["case"])
    suite = result["suites"][0]
    check("--max-failures caps the listed failures, not the count or the buckets",
          len(suite["failures"]) == 3 and suite["failed"] > 3 and sum(counts(result).values()) == suite["failed"],
          f"{len(suite['failures'])} listed, {suite['failed']} failed")


def check_known(check, moqsim, work):
    """--known-buckets: failures of the kinds a file lists count into its buckets, unshrunk."""
    earlier = work / "earlier.json"
    run(moqsim, "sweep", *GATE, "--seeds", "1", "--cases", "200", "--json", str(earlier))
    later = work / "later.json"
    swept = run(moqsim, "sweep", *GATE, "--seeds", "2", "--cases", "200", "--known-buckets", str(earlier), "--json",
                str(later))
    known, found = json.loads(earlier.read_text()), json.loads(later.read_text())
    check("a sweep told of known buckets counts its failures into them, shrinking none",
          swept.returncode == 1 and "new bucket" not in swept.stdout and failed(found) > 0 and
          set(counts(found)) <= set(counts(known)) and sum(counts(found).values()) == failed(found),
          f"{counts(found)} against {counts(known)}")


def main(argv):
    moqsim = argv[1]
    check = Checks("buckets")
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        result = check_timed(check, moqsim, work)
        check_shards(check, moqsim, work)
        check_limits(check, moqsim, work)
        check_known(check, moqsim, work)
        print("timed sweep's buckets (rule, check, signature, count):",
              [(b["rule"], b["check"], b["signature"], b["count"]) for b in result["buckets"]])
    return check.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
