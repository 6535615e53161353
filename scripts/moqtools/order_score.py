#!/usr/bin/env python3
"""The score of the runtime suite's happens-before check (SPEC E6) on weakened memory orders.

Usage: python3 -m moqtools.order_score [--files runtime/task.cpp,runtime/task.hpp]
           [--seeds 1-5] [--ops 3] [--bound 2] [--json OUT] [--keep DIR]

Every `std::memory_order_acquire`, `_release`, `_acq_rel` or `_seq_cst` in --files is
weakened to `std::memory_order_relaxed`, one at a time, as the generator's order_weaken
operator does for core/ (moqtools.mutants). The files are copied with the rest of the
tracked tree into a scratch folder, built there once (build/, -Dbench=false) and rebuilt
for each mutant, so the tree this runs from is never edited. Each mutant is killed by the
first of, in order: the runtime sweep of --seeds under random, then pct; the exploration
of every small runtime case of up to 3 operations, then --ops, to --bound. A mutant whose
copy does not compile (a failure order stronger than its success order) is CompileError.

The order of the runtime's operations changes nothing a simulated run does by itself: what
kills a mutant here is the executor's happens-before (sim/happens_before.hpp), which the
runtime suite asks at every poll and join (docs/TESTING.md, Memory orders).

Prints a line per mutant, then a Markdown table and the score. Exit 2 on bad input.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

STRONG = re.compile(r"std::memory_order_(acquire|release|acq_rel|seq_cst)\b")
FAILED = re.compile(r"FAILED|bucket \S+ \(\S+, violated\)| [1-9][0-9]* failed")


def weakenings(text):
    """(start, end, line, order) of every strong memory order in `text`."""
    return [(m.start(), m.end(), text.count("\n", 0, m.start()) + 1, m.group(0)) for m in STRONG.finditer(text)]


def kill_commands(seeds, ops, bound):
    """(name, moqsim arguments) in the order they are tried."""
    commands = [(f"random sweep {seeds}", ["sweep", "--suite", "runtime", "--seeds", seeds, "--shrink-seconds", "0"]),
                (f"pct sweep {seeds}",
                 ["sweep", "--suite", "runtime", "--seeds", seeds, "--strategy", "pct", "--shrink-seconds", "0"])]
    for n in sorted({min(3, ops), ops}):
        commands.append((f"explore ops {n} bound {bound}",
                         ["explore", "--suite", "runtime", "--ops", str(n), "--bound", str(bound)]))
    return commands


def first_failure(output):
    for line in output.splitlines():
        if FAILED.search(line):
            return line.strip()[:200]
    return None


def run(command, cwd):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="runtime/task.cpp,runtime/task.hpp")
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--ops", type=int, default=3)
    parser.add_argument("--bound", type=int, default=2)
    parser.add_argument("--json")
    parser.add_argument("--keep", help="the scratch folder to use and keep (default: a new one, removed)")
    args = parser.parse_args(argv)
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True).stdout.strip()
    files = [f for f in args.files.split(",") if f]
    if not root:
        print("order_score: run it inside the project's git tree", file=sys.stderr)
        return 2
    for name in files:
        if not os.path.isfile(os.path.join(root, name)):
            print(f"order_score: no such file: {name}", file=sys.stderr)
            return 2
    if not re.fullmatch(r"[0-9]+(-[0-9]+)?", args.seeds) or not 1 <= args.ops <= 6 or args.bound < 0:
        print("order_score: --seeds is N or A-B, --ops 1 to 6, --bound 0 or more", file=sys.stderr)
        return 2

    scratch = args.keep or tempfile.mkdtemp(prefix="order-score-")
    try:
        tracked = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True).stdout
        for name in filter(None, tracked.split("\0")):
            source = os.path.join(root, name)
            if os.path.isfile(source):
                os.makedirs(os.path.dirname(os.path.join(scratch, name)), exist_ok=True)
                shutil.copy2(source, os.path.join(scratch, name))
        build = os.path.join(scratch, "build")
        if not os.path.isdir(os.path.join(build, "meson-private")):
            status, output = run(["meson", "setup", "build", "-Dbench=false"], scratch)
            if status != 0:
                print(output[-2000:], file=sys.stderr)
                return 1
        status, output = run(["ninja", "-C", "build", "cli/moqsim"], scratch)
        if status != 0:
            print(output[-2000:], file=sys.stderr)
            return 1
        moqsim = os.path.join(build, "cli", "moqsim")
        results = []
        for name in files:
            path = os.path.join(scratch, name)
            with open(path) as source:
                original = source.read()
            for start, end, line, order in weakenings(original):
                result = {"file": name, "line": line, "order": order}
                try:
                    with open(path, "w") as mutated:
                        mutated.write(original[:start] + "std::memory_order_relaxed" + original[end:])
                    status, _ = run(["ninja", "-C", "build", "cli/moqsim"], scratch)
                    if status != 0:
                        result["status"] = "CompileError"
                    else:
                        result["status"] = "Survived"
                        for label, arguments in kill_commands(args.seeds, args.ops, args.bound):
                            _, output = run([moqsim] + arguments, build)
                            found = first_failure(output)
                            if found:
                                result.update(status="Killed", by=label, failure=found)
                                break
                finally:
                    with open(path, "w") as restored:
                        restored.write(original)
                results.append(result)
                print(f"{name}:{line} {order}: {result['status']}" + (f" by {result['by']}" if "by" in result else ""),
                      flush=True)
                if args.json:
                    with open(args.json, "w") as out:
                        json.dump(results, out, indent=1)
        compiled = [r for r in results if r["status"] != "CompileError"]
        killed = [r for r in compiled if r["status"] == "Killed"]
        print("\n| file | line | order | status | killed by |\n| --- | --- | --- | --- | --- |")
        for r in results:
            print(f"| {r['file']} | {r['line']} | `{r['order'].removeprefix('std::')}` | {r['status']} | {r.get('by', '')} |")
        print(f"\norder_score: {len(killed)} of {len(compiled)} compiled weakenings killed "
              f"({len(results) - len(compiled)} CompileError)")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
