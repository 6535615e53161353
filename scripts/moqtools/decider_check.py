#!/usr/bin/env python3
"""Checks that the executor has no branch on which decider it holds.

The executor (sim/executor.hpp, sim/executor*.cpp) asks one sim::Decider at every
decision point. It may make its seeded strategy in its constructor when no decider is
given, and must otherwise only call the decider (`decider_->...`). A line that tests the
decider, names a strategy, casts it or asks its type is a second way of deciding.

Usage: python3 -m moqtools.decider_check [FILE...]  (default: the executor's files)

Prints one line a refused line and exits 1, or "decider check: N files, no branch on the
decider" and exits 0. Exit 2 when a file cannot be read.
"""

import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FILES = ["sim/executor.hpp", "sim/executor.cpp", "sim/executor_decisions.cpp"]

# What no line of the executor may hold, whatever it does with it.
FORBIDDEN = [
    (re.compile(r"\bchooser\b", re.I), "a chooser beside the decider"),
    (re.compile(r"\bStrategyKind\b|\bstrategy_name\b|\.kind\s*==|strategy\.kind"), "a test of the strategy"),
    (re.compile(r"\bdynamic_cast\b|\btypeid\b"), "a test of the decider's type"),
]
# The lines that may name the decider otherwise than through `decider_->`: its members
# and options, and the constructor that makes the seeded strategy when none is given.
ALLOWED = [
    re.compile(r"^\s*Decider\* decider = nullptr;$"),
    re.compile(r"^\s*StrategyOptions strategy;$"),
    re.compile(r"^\s*std::unique_ptr<Decider> own_decider_;"),
    re.compile(r"^\s*Decider\* decider_;"),
    re.compile(r"^\s*own_decider_\(options_\.decider \? nullptr : make_strategy\(options_\.strategy, [^)]*\)\)\),$"),
    re.compile(r"^\s*decider_\(options_\.decider \? options_\.decider : own_decider_\.get\(\)\),$"),
    re.compile(r"^\s*#include \"sim/(decider|strategy)\.hpp\"$"),
]
# Any other mention of the decider must be a call through it.
MENTION = re.compile(r"decider|\bstrategy\b", re.I)
CALL = re.compile(r"\bdecider_->\w+\(")


def code_of(line):
    """The line without its // comment (string literals here hold no //)."""
    return line.split("//", 1)[0].rstrip()


def problems(path, text):
    found = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = code_of(raw)
        if not line.strip():
            continue
        for pattern, what in FORBIDDEN:
            if pattern.search(line):
                found.append(f"{path}:{number}: {what}: {line.strip()}")
        if any(allowed.match(line) for allowed in ALLOWED):
            continue
        rest = CALL.sub("", line)
        if MENTION.search(rest):
            found.append(f"{path}:{number}: the decider used otherwise than by a call: {line.strip()}")
    return found


def main(argv):
    files = argv or [os.path.join(ROOT, name) for name in FILES]
    found = []
    for path in files:
        try:
            with open(path, encoding="utf-8") as source:
                found += problems(os.path.relpath(path, ROOT), source.read())
        except OSError as error:
            print(f"decider check: cannot read {path}: {error.strerror}", file=sys.stderr)
            return 2
    for line in found:
        print(f"decider check: {line}")
    if found:
        return 1
    print(f"decider check: {len(files)} files, no branch on the decider")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
