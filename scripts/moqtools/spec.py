"""Checks docs/SPEC.md against the tree: every rule names a test that exists.

Usage: python3 -m moqtools.spec [--root DIR] [--build DIR] [--write-index]   (scripts/spec)

A rule is a paragraph that starts with **ID. Title.** where ID is a letter and a number
(W1, K3, G12, ...). Its "*Checked by:*" part names, in backticks, the tests that fail
when the rule breaks and the model code that checks it. A rule counts as tested only when
it names a test that exists: a doctest case (TEST_CASE and TEST_CASE_FIXTURE
instantiations, read with libclang), a saved case of corpus/ (`NAME.json`, which every
run replays) or a canary (a mutation site scripts/canaries.txt lists, whose suite's sweep
must fail); a suite mentioned in the text ("the resume suite") is no test. Every
Class::function it names must be a member of that class (or namespace) that libclang
finds declared in the tree, and every file it names must exist. Rule ids quoted by the
models' messages ("R7: ...") must be rules of the spec.

libclang parses with the build's compile commands (--build DIR's compile_commands.json,
default build/) where it has the file, else with -std=c++20 and the project's include
folders; a file it cannot parse is a problem. --write-index rewrites the rule index of
SPEC.md (between its index markers) from the rules. Prints one line per problem and a
summary "spec: N rules, T tested, M problems"; exits 1 when there is a problem, 2 on bad
input.
"""

import argparse
import ast
import json
import os
import re
import sys

from .mutants import cindex

RULE = re.compile(r"^\*\*([A-Z][0-9]+)\.\s+(.+?)\*\*", re.M)
HEADING = re.compile(r"^#", re.M)
CHECKED = re.compile(r"\*Checked by:\*(.*)", re.S)
TICKED = re.compile(r"`([^`]+)`")
QUOTED_RULE = re.compile(r'"([A-Z][0-9]+): ')
QUALIFIED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)::([A-Za-z_~][A-Za-z0-9_]*)")
INDEX_START = "<!-- rule index: written by scripts/moqtools/spec.py --write-index -->"
INDEX_END = "<!-- end of rule index -->"
SOURCE_DIRS = ("core", "sim", "oracle", "properties", "cli", "bench", "runtime", "programs")
TEST_MACROS = ("TEST_CASE", "TEST_CASE_FIXTURE")
K = cindex.CursorKind
MEMBERS = {K.CXX_METHOD, K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CONSTRUCTOR, K.DESTRUCTOR, K.FIELD_DECL,
           K.VAR_DECL, K.ENUM_CONSTANT_DECL, K.CONVERSION_FUNCTION, K.STRUCT_DECL, K.CLASS_DECL, K.ENUM_DECL,
           K.TYPE_ALIAS_DECL, K.TYPEDEF_DECL}
PARSE_OPTIONS = (cindex.TranslationUnit.PARSE_INCOMPLETE
                 | cindex.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)


def fail(message):
    print(f"spec: {message}", file=sys.stderr)
    sys.exit(2)


def sources(root):
    """(path relative to root, text) of every C++ file of the source folders."""
    for top in SOURCE_DIRS:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
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


class Tree:
    """The tree as libclang reads it: each file parsed once, on demand, with the build's
    flags for it; what could not be parsed is a problem of the check."""

    def __init__(self, root, build):
        self.root = root
        self.index = cindex.Index.create()
        self.units = {}
        self.problems = []
        self.commands = {}
        path = os.path.join(build, "compile_commands.json")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as source:
                for entry in json.load(source):
                    self.commands[os.path.realpath(os.path.join(entry["directory"], entry["file"]))] = entry

    def flags(self, path):
        """The -D, -I and -std flags the build compiles `path` with, or the project's."""
        entry = self.commands.get(os.path.realpath(path))
        if entry is None:
            return ["-std=c++20", "-I" + self.root, "-I" + os.path.join(self.root, "core")]
        words = entry["arguments"] if "arguments" in entry else entry["command"].split()
        flags = []
        for word in words:
            if word.startswith("-I") and not os.path.isabs(word[2:]):
                word = "-I" + os.path.normpath(os.path.join(entry["directory"], word[2:]))
            if word.startswith(("-D", "-I", "-std=", "-isystem")):
                flags.append(word)
        return flags

    def unit(self, relative):
        """The translation unit of a file (relative to root), or None if it did not parse."""
        if relative not in self.units:
            path = os.path.join(self.root, relative)
            try:
                unit = self.index.parse(path, args=["-x", "c++"] + self.flags(path), options=PARSE_OPTIONS)
            except cindex.TranslationUnitLoadError as error:
                unit = None
                self.problems.append(f"{relative}: libclang could not parse it ({error})")
            if unit is not None:
                errors = [d for d in unit.diagnostics if d.severity >= cindex.Diagnostic.Error]
                if errors:
                    self.problems.append(f"{relative}: libclang could not parse it ({errors[0]})")
                    unit = None
            self.units[relative] = unit
        return self.units[relative]

    def tests(self, code):
        """The name of every doctest case: each TEST_CASE's string, from libclang's tokens."""
        names = set()
        for relative, text in code.items():
            if relative.endswith(".cpp") and "TEST_CASE" in text:
                names.update(test_names(self.tokens(relative, text)))
        return names

    def tokens(self, relative, text):
        """A file's own tokens as libclang lexes them (comments and all else not code left
        out), its includes not followed: what a test is named is in the file itself."""
        path = os.path.join(self.root, relative)
        alone = "".join("\n" if line.lstrip().startswith("#include") else line for line in text.splitlines(True))
        unit = self.index.parse(path, args=["-x", "c++", "-std=c++20"], unsaved_files=[(path, alone)], options=0)
        return [(token.kind, token.spelling) for token in unit.get_tokens(extent=unit.cursor.extent)]

    def declares(self, code, owner, member):
        """Whether a class or namespace `owner` declares `member` in the tree: libclang reads
        each file that defines `owner` (and what it includes from the tree)."""
        defines = re.compile(rf"\b(?:class|struct|namespace)\s+{re.escape(owner)}\b")
        for relative, text in code.items():
            if defines.search(text) and member in text:
                unit = self.unit(relative)
                if unit is not None and declared(unit.cursor, owner, member, self.root):
                    return True
        return False


def test_names(tokens):
    """The names of TEST_CASE("name") and TEST_CASE_FIXTURE(Fixture, "name") in a token
    list; the fixture may be any type (a qualified template with commas of its own)."""
    names = []
    for at, (kind, spelling) in enumerate(tokens):
        if kind != cindex.TokenKind.IDENTIFIER or spelling not in TEST_MACROS:
            continue
        name_at = at + 2
        if spelling == "TEST_CASE_FIXTURE":
            parens = angles = 0  # a comparison inside parentheses is no template bracket
            while name_at < len(tokens) and not (parens == angles == 0 and tokens[name_at][1] == ","):
                token = tokens[name_at][1]
                parens += {"(": 1, ")": -1}.get(token, 0)
                angles += {"<": 1, ">": -1}.get(token, 0) if parens == 0 else 0
                name_at += 1
            name_at += 1
        if at + 1 < len(tokens) and tokens[at + 1][1] == "(" and name_at < len(tokens) \
                and tokens[name_at][0] == cindex.TokenKind.LITERAL and tokens[name_at][1].startswith('"'):
            names.append(ast.literal_eval(tokens[name_at][1]))
    return names


def declared(cursor, owner, member, root):
    """Whether `member` is declared with `owner` as its semantic parent, in root's files."""
    for child in cursor.get_children():
        where = child.location.file
        if where is not None and not os.path.realpath(where.name).startswith(root + os.sep):
            continue
        if child.kind in MEMBERS and child.spelling == member and child.semantic_parent is not None \
                and child.semantic_parent.spelling == owner:
            return True
        if child.kind in (K.NAMESPACE, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE, K.UNEXPOSED_DECL) \
                and declared(child, owner, member, root):
            return True
    return False


def check_rule(rule_id, body, context):
    """The problems of one rule, the names it is checked by, and whether a test is among them."""
    checked = CHECKED.search(body)
    if not checked:
        return [f"{rule_id}: no *Checked by:* part"], [], False
    names = TICKED.findall(checked.group(1))
    problems = []
    tested = False
    for name in names:
        if name in context["tests"] or name in context["canaries"]:
            tested = True
        elif name.endswith(".json") and "/" not in name and " " not in name:
            tested = tested or os.path.isfile(os.path.join(context["root"], "corpus", name))
            if not os.path.isfile(os.path.join(context["root"], "corpus", name)):
                problems.append(f"{rule_id}: names the saved case {name}, which is not in corpus/")
        elif "/" in name:
            file = name.split()[0]
            if not os.path.exists(os.path.join(context["root"], file)):
                problems.append(f"{rule_id}: names the file {file}, which does not exist")
        elif "::" in name:
            problems += [f"{rule_id}: names {owner}::{member}, which libclang finds declared nowhere in the tree"
                         for owner, member in QUALIFIED.findall(name)
                         if not context["tree"].declares(context["code"], owner, member)]
        elif re.fullmatch(r"[a-z0-9_]+", name) and name not in context["words"]:
            problems.append(f"{rule_id}: names {name}, which is neither a test nor code of the tree")
    if not tested:
        problems.append(f"{rule_id}: names no test that checks it (a doctest case, a saved case or a canary; "
                        "a suite named in the text is no test)")
    return problems, names, tested


def canaries(root):
    """The mutation sites scripts/canaries.txt lists: each a should-fail test."""
    sites = set()
    with open(os.path.join(root, "scripts", "canaries.txt"), encoding="utf-8") as listing:
        for line in listing:
            words = line.split()
            if len(words) in (2, 4) and not words[0].startswith("#"):
                sites.add(words[1])
    return sites


def write_index(path, text, rules, checked_by, tests):
    lines = [INDEX_START, "", "| rule | title | checked by |", "| --- | --- | --- |"]
    for rule_id, title, _ in rules:
        named = [n for n in checked_by[rule_id] if n in tests]
        shown = ", ".join(f"`{n}`" for n in named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
        lines.append(f"| [{rule_id}](#{rule_id.lower()}) | {title} | {shown} |")
    lines += ["", INDEX_END]
    if INDEX_START not in text or INDEX_END not in text:
        fail(f"{path} has no index markers")
    head, rest = text.split(INDEX_START, 1)
    _, tail = rest.split(INDEX_END, 1)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(head + "\n".join(lines) + tail)
    os.replace(path + ".tmp", path)


def quoted_rule_problems(code, defined):
    """Rule ids the models and suites quote that the spec does not define."""
    problems = []
    for file, body in sorted(code.items()):
        if file.startswith(("oracle/", "properties/")):
            problems += [f"{file} quotes rule {quoted}, which the spec does not define"
                         for quoted in sorted(set(QUOTED_RULE.findall(body))) if quoted not in defined]
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
    parser.add_argument("--build", help="the build folder whose compile_commands.json to use (default ROOT/build)")
    parser.add_argument("--write-index", action="store_true")
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    path = os.path.join(root, "docs", "SPEC.md")
    if not os.path.isfile(path):
        fail(f"{path} not found")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    code = dict(sources(root))
    tree = Tree(root, args.build or os.path.join(root, "build"))
    context = {"root": root, "code": code, "tree": tree, "tests": tree.tests(code), "canaries": canaries(root),
               "words": set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "\n".join(code.values())))}
    rules = rules_of(text)
    problems, seen, checked_by, tested = [], set(), {}, 0
    for rule_id, _, body in rules:
        if rule_id in seen:
            problems.append(f"{rule_id}: defined twice")
        seen.add(rule_id)
        found, checked_by[rule_id], is_tested = check_rule(rule_id, body, context)
        problems += found
        tested += is_tested
    problems += quoted_rule_problems(code, seen) + tree.problems
    if args.write_index:
        write_index(path, text, rules, checked_by, context["tests"])
    for problem in problems:
        print(f"spec: {problem}")
    print(f"spec: {len(rules)} rules, {tested} tested, {len(problems)} problems")
    return 1 if problems or not rules else 0


if __name__ == "__main__":
    sys.exit(main())
