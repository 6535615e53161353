"""Timed sweeps: `moqsim sweep --duration` and `--resume`.

A 1-second sweep runs some seeds and records the next; a resume from its result runs on
from that seed; together they ran exactly the seeds of a plain sweep over the same range
(the same runs and the same cases_digest, a sum over every case: a seed run twice or
skipped changes both). A sweep may keep going (--keep-going), and its resumption does too.
A sweep whose range ends finishes, and neither it nor a sweep that stopped at a failure
can be resumed. (The bad-input catalogue holds the other refusals; buckets_test.py runs a
timed sweep that keeps going past real failures.)

Usage: timed_sweep_test.py PATH/TO/moqsim. Ends with "timed sweeps: N passed, M failed".
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from moqsim_test_support import Checks, clean_environment  # noqa: E402

CHECKS_NAME = "timed sweeps"
SUITES = ["--suite", "gate,track", "--cases", "30"]


def run(moqsim, *args):
    return subprocess.run([moqsim, *args], env=clean_environment(), capture_output=True, text=True, timeout=120, check=False)


def main(argv):
    moqsim = argv[1]
    check = Checks(CHECKS_NAME)

    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        timed = work / "timed.json"
        first = run(moqsim, "sweep", *SUITES, "--duration", "1s", "--json", str(timed))
        check("a 1 s sweep passes", first.returncode == 0, first.stderr)
        result = json.loads(timed.read_text())
        last = result["seeds"][1]
        check("it ran seeds from 1 and stopped by time", result["seeds"][0] == 1 and result["timed"]["stopped"] == "time",
              str(result.get("timed")))
        check("it records the next seed", result["timed"]["next_seed"] == last + 1, str(result["timed"]))
        check("every suite ran every case of its seeds", all(s["run"] == last * 30 for s in result["suites"]))
        check("it says which seeds ran", result["timed"]["runs"][0]["seeds"] == [1, last])
        check("it names the command that continues it", f"--resume {timed}" in first.stdout, first.stdout)

        # --resume writes back to its file unless --json names another.
        second = run(moqsim, "sweep", "--resume", str(timed), "--duration", "1s")
        check("the resumed sweep passes", second.returncode == 0, second.stderr)
        resumed = json.loads(timed.read_text())
        end = resumed["seeds"][1]
        runs = [r["seeds"] for r in resumed["timed"]["runs"]]
        check("it ran on from the next seed", runs == [[1, last], [last + 1, end]] and end > last, str(runs))
        check("it took its settings from the file", resumed["strategy"] == "random" and
              [(s["suite"], s["cases"]) for s in resumed["suites"]] == [("gate", 30), ("track", 30)])

        plain = work / "plain.json"
        fixed = run(moqsim, "sweep", *SUITES, "--seeds", f"1-{end}", "--json", str(plain))
        check("a plain sweep of the same seeds passes", fixed.returncode == 0, fixed.stderr)
        expected = {s["suite"]: (s["run"], s["passed"], s["cases_digest"]) for s in json.loads(plain.read_text())["suites"]}
        got = {s["suite"]: (s["run"], s["passed"], s["cases_digest"]) for s in resumed["suites"]}
        check("the two runs ran exactly its cases, no seed twice or skipped", got == expected,
              f"\n  timed: {got}\n  plain: {expected}")
        print(f"timed: seeds 1-{last}, then {last + 1}-{end}; {got}")

        kept = work / "kept.json"
        going = run(moqsim, "sweep", *SUITES, "--duration", "1s", "--keep-going", "--json", str(kept))
        result = json.loads(kept.read_text())
        check("a timed sweep may keep going past failures, and records that it does",
              going.returncode == 0 and result["timed"]["keep_going"] is True and result["buckets"] == [],
              going.stderr)
        run(moqsim, "sweep", "--resume", str(kept), "--duration", "1s")
        result = json.loads(kept.read_text())
        check("its resumption keeps going too", result["timed"]["keep_going"] is True and len(result["timed"]["runs"]) == 2)

        bounded = work / "bounded.json"
        finished = run(moqsim, "sweep", *SUITES, "--seeds", "5-7", "--duration", "10m", "--json", str(bounded))
        result = json.loads(bounded.read_text())
        check("a sweep whose seeds end finishes", finished.returncode == 0 and result["seeds"] == [5, 7] and
              result["timed"]["stopped"] == "finished" and result["timed"]["next_seed"] is None, str(result.get("timed")))
        again = run(moqsim, "sweep", "--resume", str(bounded))
        check("a finished sweep is not resumed", again.returncode == 2 and "nothing to resume" in again.stderr,
              again.stderr)
        check("and its result is left as it was", json.loads(bounded.read_text()) == result)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
