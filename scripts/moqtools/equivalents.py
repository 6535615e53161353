#!/usr/bin/env python3
"""Checks, without a build, that every mutant scripts/equivalent-mutants.txt lists is still
a generated mutant of the sources.

An entry names its mutant by key (moqtools.mutants.stable_key): the file, the operator,
the enclosing function, the column in the line and the line's text. No line number, so
an edit elsewhere in the file leaves every entry as it was; an edit of the line itself,
or of the function's name, makes the entry stale, and the list must be reviewed. This
parses the core with libclang as the generator does (a few seconds, no compiler run) and
compares.

Usage: python3 -m moqtools.equivalents [--list FILE] [--root ROOT]

Prints "equivalents: N listed, each a generated mutant" and exits 0; or, for each stale
entry, one line naming it with its line in FILE and the closest generated mutant of the
same file and operator (the same function first, then the most alike line), and exits 1.
Exit 2 on a list it cannot read or a source libclang cannot parse.
"""

import argparse
import difflib
import json
import os
import sys

from . import mutants
from . import mutation

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def nearest(stale, points):
    """The generated mutant (a Point) of stale's file and operator closest to it: the same
    function first, then the most alike line text. None when there is none."""
    wanted = mutation.KEY_ALONE.match(stale)
    if not wanted:
        return None
    best = None
    for point in points:
        if (point.file.removeprefix("core/"), point.operator) != (wanted["file"], wanted["operator"]):
            continue
        alike = difflib.SequenceMatcher(None, point.text, json.loads(wanted["text"])).ratio()
        rank = (point.function != wanted["function"], -alike, point.line)
        if best is None or rank < best[0]:
            best = (rank, point)
    return best and best[1]


def stale_lines(list_path, listed, points):
    """One line for each listed key that is no generated mutant: where it is listed, and
    the closest generated mutant it may have become."""
    known = {point.key for point in points}
    numbers = {}
    with open(list_path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            found = mutation.LISTED.match(line.strip())
            if found:
                numbers.setdefault(line.strip()[:found.end("text")], number)
    shown = os.path.relpath(list_path, ROOT) if list_path.startswith(ROOT + os.sep) else list_path
    lines = []
    for key in listed:
        if key in known:
            continue
        moved = nearest(key, points)
        hint = f"; the closest of its file and operator is {moved.key} ({moved.id})" if moved else ""
        lines.append(f"{shown}:{numbers.get(key, 0)}: {key} is no generated mutant now "
                     f"(its line changed or it went away){hint}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", default=os.path.join(ROOT, "scripts", "equivalent-mutants.txt"),
                        help="the reviewed list (default: scripts/equivalent-mutants.txt)")
    parser.add_argument("--root", default=ROOT, help="the source root whose core/ is parsed (default: this one)")
    args = parser.parse_args()
    try:
        listed = mutation.read_equivalents(os.path.abspath(args.list))
        generated = mutants.generated_points(args.root)
    except (mutation.UsageError, mutants.UsageError, OSError) as error:
        print(f"equivalents: {error}", file=sys.stderr)
        return 2
    problems = stale_lines(os.path.abspath(args.list), listed, generated)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"equivalents: {len(problems)} of {len(listed)} listed entries are stale: update the list "
              "(docs/TESTING.md, Mutation testing)", file=sys.stderr)
        return 1
    print(f"equivalents: {len(listed)} listed, each a generated mutant")
    return 0


if __name__ == "__main__":
    sys.exit(main())
