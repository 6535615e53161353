"""A sweep spread over 8 local processes by each engine's shard variables, merged.

For GoogleTest's (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX), a Kubernetes Indexed Job's
(JOB_COMPLETION_INDEX / MOQSIM_SHARD_COUNT) and a Slurm job array's (SLURM_ARRAY_TASK_ID
from SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT), the 8 shards run at once as separate
processes, and `moqsim merge` joins their results. The merged result must be the
unsharded sweep's: the same seeds, suites and case counts, the same runs and verdicts,
and the same cases_digest (a sum over every case of its seed, index, verdict and trace
digest: a case run twice, left out or run differently changes it). Then merge must
refuse 7 of the 8 shards, and 8 files with one shard twice.

Usage: shard_engines_test.py PATH/TO/moqsim. Ends with "shard engines: N passed, M failed".
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from moqsim_test_support import Checks, clean_environment  # noqa: E402

CHECKS_NAME = "shard engines"
SHARDS = 8
SWEEP = ["sweep", "--suite", "gate,track,resume", "--seeds", "1-3", "--cases", "40"]


def engine_variables(engine, index):
    """What `engine` sets in the environment of shard `index` of SHARDS."""
    if engine == "gtest":
        return {"GTEST_TOTAL_SHARDS": str(SHARDS), "GTEST_SHARD_INDEX": str(index)}
    if engine == "kubernetes":
        return {"JOB_COMPLETION_INDEX": str(index), "MOQSIM_SHARD_COUNT": str(SHARDS)}
    # sbatch --array=1-8: task IDs 1 to 8.
    return {"SLURM_ARRAY_TASK_ID": str(index + 1), "SLURM_ARRAY_TASK_MIN": "1",
            "SLURM_ARRAY_TASK_MAX": str(SHARDS), "SLURM_ARRAY_TASK_COUNT": str(SHARDS)}


def verdicts(result):
    """What must agree between a merged and the unsharded sweep: per suite, its counts,
    verdicts and cases digest, and the failures as a set."""
    suites = {s["suite"]: (s["cases"], s["run"], s["passed"], s["failed"], s["cases_digest"],
                           sorted(json.dumps(f, sort_keys=True) for f in s["failures"]))
              for s in result["suites"]}
    return result["seeds"], result["strategy"], result["mix"], suites


def main(argv):
    moqsim = argv[1]
    check = Checks(CHECKS_NAME)

    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        whole = subprocess.run([moqsim, *SWEEP, "--json", str(work / "whole.json")], env=clean_environment(),
                               capture_output=True, text=True, check=False)
        check("the unsharded sweep passes", whole.returncode == 0, whole.stderr)
        expected = verdicts(json.loads((work / "whole.json").read_text()))
        for engine in ("gtest", "kubernetes", "slurm"):
            files = [work / f"{engine}-{index}.json" for index in range(SHARDS)]
            processes = [subprocess.Popen([moqsim, *SWEEP, "--json", str(path)], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True,
                                          env=clean_environment(engine_variables(engine, index)))
                         for index, path in enumerate(files)]
            statuses = [(process.wait(), process.stderr.read().strip()) for process in processes]
            for process in processes:
                process.stderr.close()
            check(f"{engine}: every shard passes", all(status == 0 for status, _ in statuses), str(statuses))
            shards = [json.loads(path.read_text())["shard"] for path in files]
            check(f"{engine}: each process ran its own shard",
                  shards == [{"index": index, "total": SHARDS} for index in range(SHARDS)], str(shards))
            merged_path = work / f"{engine}-merged.json"
            merge = subprocess.run([moqsim, "merge", *map(str, files), "--json", str(merged_path)],
                                   capture_output=True, text=True, check=False)
            check(f"{engine}: the shards merge", merge.returncode == 0, merge.stderr)
            got = verdicts(json.loads(merged_path.read_text())) if merged_path.is_file() else None
            check(f"{engine}: the merged result is the unsharded sweep's", got == expected,
                  f"\n  merged:    {got}\n  unsharded: {expected}")
            for line in merge.stdout.splitlines():
                print(f"{engine}: {line}")

            missing = subprocess.run([moqsim, "merge", *map(str, files[:3] + files[4:])],
                                     capture_output=True, text=True, check=False)
            check(f"{engine}: a merge without shard 3 is refused",
                  missing.returncode == 2 and "shard 3 of 8 is missing" in missing.stderr, missing.stderr)
            twice = subprocess.run([moqsim, "merge", *map(str, files[:5] + [files[0]] + files[6:])],
                                   capture_output=True, text=True, check=False)
            check(f"{engine}: a merge with shard 0 twice is refused",
                  twice.returncode == 2 and "shard 0 of 8 again" in twice.stderr, twice.stderr)
        seeds, _, _, suites = expected
        print("unsharded: seeds %s, %s" % (seeds, ", ".join(f"{name} {v[1]} cases digest {v[4]}"
                                                           for name, v in suites.items())))
    return check.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
