#!/usr/bin/env python3
"""Checks that every npm package the project pins runs on Debian 12's Node.js.

The README promises Debian 12, whose nodejs package is Node 18 (18.19.0 and later in the
release's updates). Each lock file's entries (package-lock.json version 2 or 3: the
"packages" map, transitive packages included) may declare `engines.node`, a semver range;
every such range must accept 18.19.0. A range this reader does not understand is a
failure too, so nothing passes unread.

Usage: python3 -m moqtools.npm_engines [LOCK_FILE...]  (default: the project's two lock files)

Prints one line a refused package and exits 1, or "npm engines: N packages of M lock
files accept Node 18.19.0" and exits 0. Exit 2 on a lock file it cannot read.
"""

import json
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LOCK_FILES = ["deploy/validator/package-lock.json", "scripts/lib/viewer/package-lock.json"]
DEBIAN_12_NODE = (18, 19, 0)

PARTIAL = re.compile(r"^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-[0-9A-Za-z.-]+)?$")
COMPARATOR = re.compile(r"^(>=|<=|>|<|=|\^|~)?\s*(.+)$")


class RangeError(ValueError):
    pass


def partial(text):
    """A version as (major, minor, patch) with None for each part left out or x."""
    match = PARTIAL.match(text)
    if not match:
        raise RangeError(f"'{text}' is no version")
    return tuple(None if part in (None, "x", "X", "*") else int(part) for part in match.groups())


def floor(parts):
    return tuple(p or 0 for p in parts)


def bounds(operator, parts):
    """The comparator as a list of (operator, version) pairs every version must meet."""
    major, minor, patch = parts
    low = floor(parts)
    if major is None:
        return [] if operator in ("", "=", ">=", "<=", "^", "~") else [("<", (0, 0, 0))]
    if operator in ("", "="):
        if patch is not None:
            return [("=", low)]
        return [(">=", low), ("<", (major + 1, 0, 0) if minor is None else (major, minor + 1, 0))]
    if operator == "^":
        if major > 0 or minor is None:
            top = (major + 1, 0, 0)
        elif minor > 0 or patch is None:
            top = (0, minor + 1, 0)
        else:
            top = (0, 0, patch + 1)
        return [(">=", low), ("<", top)]
    if operator == "~":
        return [(">=", low), ("<", (major + 1, 0, 0) if minor is None else (major, minor + 1, 0))]
    if operator == ">" and (minor is None or patch is None):
        return [(">=", (major + 1, 0, 0) if minor is None else (major, minor + 1, 0))]
    if operator == "<=" and (minor is None or patch is None):
        return [("<", (major + 1, 0, 0) if minor is None else (major, minor + 1, 0))]
    return [(operator, low)]


def meets(version, operator, bound):
    return {">=": version >= bound, ">": version > bound, "<=": version <= bound, "<": version < bound,
            "=": version == bound}[operator]


def satisfies(version, text):
    """Whether the semver range `text` (npm's grammar: `||`, comparator sets, hyphen
    ranges, ^, ~, x-ranges) accepts `version`, a (major, minor, patch) tuple."""
    for alternative in text.split("||"):
        alternative = alternative.strip()
        hyphen = re.match(r"^(\S+)\s+-\s+(\S+)$", alternative)
        if hyphen:
            low, high = partial(hyphen.group(1)), partial(hyphen.group(2))
            pairs = [(">=", floor(low))] + bounds("<=", high)
        else:
            pairs = []
            for word in re.sub(r"(>=|<=|>|<|=|\^|~)\s+", r"\1", alternative).split() or ["*"]:
                operator, rest = COMPARATOR.match(word).groups()
                pairs += bounds(operator or "", partial(rest))
        if all(meets(version, operator, bound) for operator, bound in pairs):
            return True
    return False


def refused(lock, version=DEBIAN_12_NODE):
    """(package@version, range, why) for each entry of the lock whose engines.node does not
    accept `version` or cannot be read."""
    found = []
    for path, entry in sorted(lock.get("packages", {}).items()):
        if not path:
            continue
        engines = entry.get("engines")
        node = engines.get("node") if isinstance(engines, dict) else None
        if engines is not None and not isinstance(engines, dict):
            node = " ".join(str(e) for e in engines) if isinstance(engines, list) else str(engines)
            found.append((package_name(path, entry), node, "an engines field that is no object"))
            continue
        if node is None:
            continue
        try:
            if not satisfies(version, str(node)):
                found.append((package_name(path, entry), node, "refuses"))
        except RangeError as error:
            found.append((package_name(path, entry), node, f"cannot be read ({error})"))
    return found


def package_name(path, entry):
    return f"{path.rsplit('node_modules/', 1)[-1]}@{entry.get('version', '?')}"


def main(paths):
    paths = paths or [os.path.join(ROOT, name) for name in LOCK_FILES]
    shown_version = ".".join(map(str, DEBIAN_12_NODE))
    count = 0
    problems = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as source:
                lock = json.load(source)
        except (OSError, ValueError) as error:
            print(f"npm engines: cannot read {path}: {error}", file=sys.stderr)
            return 2
        if lock.get("lockfileVersion") not in (2, 3):
            print(f"npm engines: {path}: want lockfileVersion 2 or 3 (its packages map)", file=sys.stderr)
            return 2
        count += sum(1 for name in lock.get("packages", {}) if name)
        shown = os.path.relpath(path, ROOT) if os.path.abspath(path).startswith(ROOT + os.sep) else path
        problems += [f"{shown}: {name} declares engines.node '{node}', which {why} Node {shown_version} "
                     f"(Debian 12's): pin a version that accepts it"
                     for name, node, why in refused(lock)]
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        return 1
    print(f"npm engines: {count} packages of {len(paths)} lock files accept Node {shown_version}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
