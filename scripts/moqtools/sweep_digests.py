"""Same seed, same digest, for every suite's sweep across build types (scripts/determinism).

Runs `moqsim sweep --suite all --seeds SEEDS --cases N --keep-going --json` with each
build's moqsim and compares each suite's cases_digest (a sum over every case of its seed,
index, verdict and trace digest: one case run otherwise changes it) and run count across
the builds. Prints each suite's digest and the builds that agree on it, then
"determinism: S suites agree (C cases each) across BUILDS". It fails (exit 1) on any
difference, and when it compared nothing: fewer than two builds, a sweep that ran no
suite, or fewer than 1,000 cases a suite; exit 2 for bad usage.

Usage: python3 -m moqtools.sweep_digests [--seeds A-B] [--cases N] MOQSIM MOQSIM [MOQSIM...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

MIN_CASES = 1000
# Every variable moqsim sweep reads, so each build's sweep is the same one, unsharded.
READ_BY_MOQSIM = ("MOQ_", "MOQSIM_", "GTEST_", "TEST_", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_")


def seed_count(seeds):
    first, _, last = seeds.partition("-")
    return int(last or first) - int(first) + 1


def sweep(moqsim, seeds, cases, result):
    """Each suite's (cases_digest, run) in the sweep of this moqsim; exits 1 if it could not run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(READ_BY_MOQSIM)}
    run = subprocess.run([moqsim, "sweep", "--suite", "all", "--seeds", seeds, "--cases", str(cases),
                          "--keep-going", "--json", str(result)], env=env, capture_output=True, text=True, check=False)
    # Exit 1 is a failing case: still a run whose digests must agree.
    if run.returncode not in (0, 1) or not result.exists():
        sys.exit(f"determinism: {moqsim} sweep failed (status {run.returncode}): {run.stderr.strip()[-300:]}")
    return {s["suite"]: (s.get("cases_digest"), s["run"]) for s in json.loads(result.read_text())["suites"]}


def compare(builds, digests):
    """Prints each suite's digests; returns the lines of the differences and the suites compared."""
    differences, compared = [], []
    for suite in digests[0]:
        seen = [(build, found.get(suite)) for build, found in zip(builds, digests)]
        values = {value for _, value in seen}
        shown = ", ".join(f"{build} {value[0] if value else 'none'}" for build, value in seen)
        if len(values) == 1 and None not in values and seen[0][1][0]:
            print(f"determinism: {suite} cases_digest {seen[0][1][0]} ({seen[0][1][1]} cases) in "
                  + ", ".join(builds))
            compared.append(suite)
        else:
            differences.append(f"determinism: {suite} differs: {shown}")
    return differences, compared


def main(argv):
    parser = argparse.ArgumentParser(prog="sweep_digests", description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="101-102")
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("moqsim", nargs="+")
    args = parser.parse_args(argv[1:])
    try:
        per_suite = seed_count(args.seeds) * args.cases
    except ValueError:
        parser.error(f"--seeds takes A-B, not '{args.seeds}'")
    if len(args.moqsim) < 2:
        print("determinism: one build compares nothing: give two moqsim or more", file=sys.stderr)
        return 1
    if per_suite < MIN_CASES:
        print(f"determinism: {per_suite} cases a suite is under the sample of {MIN_CASES}", file=sys.stderr)
        return 1
    builds = [str(Path(moqsim).parent.parent.name) for moqsim in args.moqsim]
    with tempfile.TemporaryDirectory() as work_dir:
        digests = [sweep(moqsim, args.seeds, args.cases, Path(work_dir) / f"sweep{i}.json")
                   for i, moqsim in enumerate(args.moqsim)]
    differences, compared = compare(builds, digests)
    for line in differences:
        print(line)
    if differences:
        print(f"determinism: replay a suite's cases in each build with --trace and compare them with "
              f"moqsim trace-diff (seeds {args.seeds}, {args.cases} cases)")
        return 1
    if not compared:
        print("determinism: no suite's sweep was compared", file=sys.stderr)
        return 1
    print(f"determinism: {len(compared)} suites agree ({per_suite} cases each) across {' '.join(builds)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
