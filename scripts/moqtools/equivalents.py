#!/usr/bin/env python3
"""Checks, without a build, that every id scripts/equivalent-mutants.txt lists is still a
generated mutant of the sources.

A generated mutant's id holds its line and column (gen.FILE:LINE:COLUMN.OPERATOR), so an
edit above it in its file moves it, and scripts/mutate would stop on the stale entry only
after building every mutant. This parses the core with libclang as the generator does
(scripts/moqtools/mutants.py ids: a few seconds, no compiler run) and compares.

Usage: python3 -m moqtools.equivalents [--list FILE] [--root ROOT]

Prints "equivalents: N listed, each a generated mutant" and exits 0; or, for each stale
id, one line naming it with its line in FILE and the nearest generated mutant of the same
file and operator (where it most likely moved), and exits 1. Exit 2 on a list it cannot
read or a source libclang cannot parse.
"""

import argparse
import os
import re
import sys

from . import mutants
from . import mutation

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ID = re.compile(r"^gen\.(?P<file>.+):(?P<line>\d+):(?P<column>\d+)\.(?P<operator>\w+)$")


def nearest(stale, generated):
    """The generated id of stale's file and operator closest to it: the same column first
    (a line moved whole), then the fewest lines away. None when there is none."""
    wanted = ID.match(stale)
    if not wanted:
        return None
    best = None
    for candidate in generated:
        found = ID.match(candidate)
        if not found or (found["file"], found["operator"]) != (wanted["file"], wanted["operator"]):
            continue
        key = (found["column"] != wanted["column"], abs(int(found["line"]) - int(wanted["line"])),
               abs(int(found["column"]) - int(wanted["column"])))
        if best is None or key < best[0]:
            best = (key, candidate)
    return best and best[1]


def stale_lines(list_path, listed, generated):
    """One line for each listed id that is no generated mutant: where it is listed, and
    the nearest generated mutant it may have moved to."""
    known = set(generated)
    numbers = {}
    with open(list_path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            numbers.setdefault(line.split(None, 1)[0] if line.strip() else "", number)
    shown = os.path.relpath(list_path, ROOT) if list_path.startswith(ROOT + os.sep) else list_path
    lines = []
    for name in listed:
        if name in known:
            continue
        moved = nearest(name, generated)
        hint = f"; the nearest of its file and operator is {moved}" if moved else ""
        lines.append(f"{shown}:{numbers.get(name, 0)}: {name} is no generated mutant now "
                     f"(its line moved or it went away){hint}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", default=os.path.join(ROOT, "scripts", "equivalent-mutants.txt"),
                        help="the reviewed list (default: scripts/equivalent-mutants.txt)")
    parser.add_argument("--root", default=ROOT, help="the source root whose core/ is parsed (default: this one)")
    args = parser.parse_args()
    try:
        listed = mutation.read_equivalents(os.path.abspath(args.list))
        generated = mutants.generated_ids(args.root)
    except (mutation.UsageError, mutants.UsageError, OSError) as error:
        print(f"equivalents: {error}", file=sys.stderr)
        return 2
    problems = stale_lines(os.path.abspath(args.list), listed, generated)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"equivalents: {len(problems)} of {len(listed)} listed ids are stale: update the list "
              "(docs/TESTING.md, Mutation testing)", file=sys.stderr)
        return 1
    print(f"equivalents: {len(listed)} listed, each a generated mutant")
    return 0


if __name__ == "__main__":
    sys.exit(main())
