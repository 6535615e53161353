#!/usr/bin/env python3
"""Checks the mutant generator on its fixture (scripts/lib/mutagen_fixture/).

Generates the schemata copy of fixture.cpp (scripts/lib/mutagen.py, with its compile
check), builds it with main.cpp and the core's mutation runtime, and runs the program
once without a mutant and once per generated mutant. Passes when every operator has a
mutant, every mutant changes exactly what the `expect` comment on its line says (one
output line takes the named value; or the mutant is left out as CompileError), every
expectation is met by a mutant, and lines marked `expect none` hold none.

Prints one line, "mutagen check: passed (N mutants)" or what failed; exit 0 or 1.
"""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutagen  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE = "scripts/lib/mutagen_fixture"
SOURCE = f"{FIXTURE}/fixture.cpp"
FLAGS = ["-std=c++20", "-DMOQ_MUTANTS=1", "-DMOQ_SCHEMATA=1", "-Wall", "-Wextra", "-Werror"]
INCLUDES = ["-I" + os.path.join(ROOT, "core"), "-I" + os.path.join(ROOT, FIXTURE)]


def expectations():
    """{line: {operator: (name, value) or "CompileError"}} and the lines marked `expect none`."""
    expected = {}
    none = set()
    with open(os.path.join(ROOT, SOURCE), encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            match = re.search(r"// expect (.*)$", line)
            if not match:
                continue
            if match.group(1).startswith("none"):
                none.add(number)
                continue
            for operator, outcome in re.findall(r"(\w+): (\S+)", match.group(1)):
                expected.setdefault(number, {})[operator] = (
                    outcome if outcome == "CompileError" else tuple(outcome.split("=", 1)))
    return expected, none


def run(program, mutant=None):
    env = {k: v for k, v in os.environ.items() if k != "MOQ_MUTANT"}
    if mutant:
        env["MOQ_MUTANT"] = mutant
    out = subprocess.run([program], env=env, capture_output=True, text=True, timeout=10, check=False)
    if out.returncode != 0:
        return None
    values = {}
    for part in out.stdout.split():
        name, _, value = part.partition("=")
        values[name] = value
    return values


def check(folder):
    problems = []
    points = mutagen.generate(
        ROOT, [SOURCE], [SOURCE], [SOURCE], [f for f in FLAGS if not f.startswith("-W")] + INCLUDES,
        lambda unit, copy: (["g++", "-I" + copy] + FLAGS + INCLUDES + ["-fsyntax-only", unit], ROOT), folder)
    program = os.path.join(folder, "fixture")
    build = subprocess.run(["g++"] + FLAGS + ["-I" + folder] + INCLUDES + [
        os.path.join(folder, mutagen.generated_name(SOURCE)), os.path.join(folder, "schemata_table.cpp"),
        os.path.join(ROOT, FIXTURE, "main.cpp"), os.path.join(ROOT, "core/util/mutation.cpp"),
        os.path.join(ROOT, "core/util/assert.cpp"), "-pthread", "-o", program],
        capture_output=True, text=True, check=False)
    if build.returncode != 0:
        return [f"the schemata copy does not build: {mutagen.first_error(build.stderr)}"], len(points)

    baseline = run(program)
    if baseline is None:
        return ["the fixture fails with no mutant"], len(points)
    expected, none = expectations()
    met = set()
    for operator in mutagen.OPERATORS:
        if not any(p.operator == operator for p in points):
            problems.append(f"no {operator} mutant in the fixture")
    for point in points:
        wanted = expected.get(point.line, {}).get(point.operator)
        if point.line in none or wanted is None:
            problems.append(f"{point.id}: a mutant the fixture does not expect")
            continue
        met.add((point.line, point.operator))
        if point.status != "compiled":
            if wanted != "CompileError":
                problems.append(f"{point.id}: left out as CompileError ({point.error})")
            continue
        if wanted == "CompileError":
            problems.append(f"{point.id}: compiles, but the fixture expects it not to")
            continue
        answer = run(program, point.id)
        name, value = wanted
        if answer is None:
            problems.append(f"{point.id}: the program fails")
        elif answer != {**baseline, name: value}:
            changed = {k: v for k, v in answer.items() if baseline.get(k) != v}
            problems.append(f"{point.id}: changes {changed or 'nothing'}, expected {name}={value}")
    for line, operators in sorted(expected.items()):
        for operator in operators:
            if (line, operator) not in met:
                problems.append(f"{SOURCE}:{line}: no {operator} mutant")
    return problems, len(points)


def launcher_problems():
    """A build whose compile commands go through ccache (Meson's default when it is
    installed) checks the copy with ccache and the compiler, never ccache alone."""
    entry = {"directory": ROOT, "file": "../core/schemata_a.cpp",
             "command": "ccache c++ -Icore -std=c++20 -MD -MQ a.o -MF a.o.d -o a.o -c ../core/schemata_a.cpp"}
    argv, _ = mutagen.syntax_check_command(entry, "unit.cpp", "/copy", "/out")
    wanted = ["ccache", "c++", "-I/copy", "-Icore", "-std=c++20", "-fdiagnostics-color=never", "-fsyntax-only",
              "unit.cpp"]
    return [] if argv == wanted else [f"the compile check through a launcher runs {argv}, not {wanted}"]


def main():
    with tempfile.TemporaryDirectory(prefix="mutagen-check-") as folder:
        try:
            problems, count = check(folder)
        except mutagen.UsageError as error:
            problems, count = [str(error)], 0
    problems += launcher_problems()
    for problem in problems:
        print(f"mutagen check: {problem}", file=sys.stderr)
    if problems:
        print(f"mutagen check: failed ({len(problems)} problems, {count} mutants)")
        sys.exit(1)
    print(f"mutagen check: passed ({count} mutants)")


if __name__ == "__main__":
    main()
