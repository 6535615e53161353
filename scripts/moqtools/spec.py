#!/usr/bin/env python3
"""Checks docs/SPEC.md against the tree: every rule names a test that exists.

Usage: spec_check.py [--root DIR] [--write-index]

A rule is a paragraph that starts with **ID. Title.** where ID is a letter and a number
(W1, K3, G12, ...). Its "*Checked by:*" part names, in backticks, the tests that fail
when the rule breaks: doctest cases (TEST_CASE names in the tree), property suites
(written "the NAME suite"), and model code (oracle/ paths and Class::function names). A rule
passes when it has at least one test or suite that exists and every file and
Class::function it names exists. Rule ids quoted by the models' messages ("R7: ...")
must be rules of the spec.

--write-index rewrites the rule index of SPEC.md (between its index markers) from the
rules. Prints one line per problem and a summary "spec: N rules, M problems"; exits 1
when there is a problem, 2 on bad input.
"""

import argparse
import os
import re
import sys

RULE = re.compile(r"^\*\*([A-Z][0-9]+)\.\s+(.+?)\*\*", re.M)
HEADING = re.compile(r"^#", re.M)
CHECKED = re.compile(r"\*Checked by:\*(.*)", re.S)
TICKED = re.compile(r"`([^`]+)`")
TEST_CASE = re.compile(r'TEST_CASE(?:_FIXTURE)?\s*\(\s*(?:[A-Za-z_][A-Za-z0-9_:<>]*\s*,\s*)?"([^"]+)"')
QUOTED_RULE = re.compile(r'"([A-Z][0-9]+): ')
SUITE_NAMED = re.compile(r"\b(waiter|gate|group|track|resume|fanout) (suite|sweep)")
INDEX_START = "<!-- rule index: written by scripts/lib/spec_check.py --write-index -->"
INDEX_END = "<!-- end of rule index -->"
TESTS = set()
SOURCE_DIRS = ("core", "sim", "oracle", "properties", "cli", "bench")


def fail(message):
    print(f"spec: {message}", file=sys.stderr)
    sys.exit(2)


def sources(root):
    for top in SOURCE_DIRS:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if name.endswith((".cpp", ".hpp")):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as handle:
                        yield os.path.relpath(path, root), handle.read()


def rules_of(text):
    """(id, title, body) for every rule, in order."""
    starts = [(m.start(), m.group(1), m.group(2)) for m in RULE.finditer(text)]
    ends = [m.start() for m in HEADING.finditer(text)]
    rules = []
    for i, (start, rule_id, title) in enumerate(starts):
        end = len(text)
        if i + 1 < len(starts):
            end = starts[i + 1][0]
        end = min([e for e in ends if e > start] + [end])
        rules.append((rule_id, title.rstrip(". "), text[start:end]))
    return rules


def check_rule(rule_id, body, tests, code, words):
    """The problems of one rule, and the names it is checked by."""
    problems = []
    checked = CHECKED.search(body)
    if not checked:
        return [f"{rule_id}: no *Checked by:* part"], []
    part = checked.group(1)
    names = TICKED.findall(part)
    found_test = bool(SUITE_NAMED.search(part.replace("`", "")))
    for name in names:
        if name in tests:
            found_test = True
        elif "/" in name:
            file = name.split()[0]
            if not os.path.exists(os.path.join(ROOT, file)):
                problems.append(f"{rule_id}: names the file {file}, which does not exist")
        elif "::" in name:
            symbol = name.split("::")[-1].split("(")[0]
            owner = name.split("::")[-2]
            if not any(owner in text and symbol in text for text in code.values()):
                problems.append(f"{rule_id}: names {name}, which is not in the tree")
        elif re.fullmatch(r"[a-z0-9_]+", name) and name not in words:
            problems.append(f"{rule_id}: names {name}, which is neither a test nor code of the tree")
    if not found_test:
        problems.append(f"{rule_id}: names no test or suite that checks it")
    return problems, names


def write_index(path, text, rules, checked_by):
    lines = [INDEX_START, "", "| rule | title | checked by |", "| --- | --- | --- |"]
    for rule_id, title, _ in rules:
        tests = [n for n in checked_by[rule_id] if n in TESTS]
        shown = ", ".join(f"`{n}`" for n in tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")
        lines.append(f"| [{rule_id}](#{rule_id.lower()}) | {title} | {shown} |")
    lines += ["", INDEX_END]
    if INDEX_START not in text or INDEX_END not in text:
        fail(f"{path} has no index markers")
    head, rest = text.split(INDEX_START, 1)
    _, tail = rest.split(INDEX_END, 1)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(head + "\n".join(lines) + tail)
    os.replace(path + ".tmp", path)


def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
    parser.add_argument("--write-index", action="store_true")
    args = parser.parse_args()
    ROOT = args.root
    path = os.path.join(ROOT, "docs", "SPEC.md")
    if not os.path.isfile(path):
        fail(f"{path} not found")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    code = dict(sources(ROOT))
    tests = {name for body in code.values() for name in TEST_CASE.findall(body)}
    TESTS.update(tests)
    rules = rules_of(text)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "\n".join(code.values())))
    problems = []
    seen = set()
    checked_by = {}
    for rule_id, _, body in rules:
        if rule_id in seen:
            problems.append(f"{rule_id}: defined twice")
        seen.add(rule_id)
        found, names = check_rule(rule_id, body, tests, code, words)
        problems += found
        checked_by[rule_id] = names
    for file, body in sorted(code.items()):
        if not file.startswith(("oracle/", "properties/")):
            continue
        for quoted in sorted(set(QUOTED_RULE.findall(body))):
            if quoted not in seen:
                problems.append(f"{file} quotes rule {quoted}, which the spec does not define")
    if args.write_index:
        write_index(path, text, rules, checked_by)
    for problem in problems:
        print(f"spec: {problem}")
    print(f"spec: {len(rules)} rules, {len(problems)} problems")
    return 1 if problems or not rules else 0


if __name__ == "__main__":
    sys.exit(main())
