"""Tests of the mutant generator on its fixture (scripts/moqtools/tests/fixtures/mutants/).

Generates the schemata copy of fixture.cpp (scripts/moqtools/mutants.py, with its compile
check), builds it with main.cpp and the core's mutation runtime, and runs the program
once without a mutant and once per generated mutant. Passes when every operator has a
mutant, every mutant changes exactly what the `expect` comment on its line says (one
output line takes the named value; or the mutant is left out as CompileError), every
expectation is met by a mutant, and lines marked `expect none` hold none.
"""

import os
import re
import subprocess

from moqtools import mutants
from moqtools.tests.support import ROOT

FIXTURE = "scripts/moqtools/tests/fixtures/mutants"
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
    points = mutants.generate(
        ROOT, [SOURCE], [SOURCE], [SOURCE], [f for f in FLAGS if not f.startswith("-W")] + INCLUDES,
        lambda unit, copy: (["g++", "-I" + copy] + FLAGS + INCLUDES + ["-fsyntax-only", unit], ROOT), folder)
    program = os.path.join(folder, "fixture")
    build = subprocess.run(["g++"] + FLAGS + ["-I" + folder] + INCLUDES + [
        os.path.join(folder, mutants.generated_name(SOURCE)), os.path.join(folder, "schemata_table.cpp"),
        os.path.join(ROOT, FIXTURE, "main.cpp"), os.path.join(ROOT, "core/util/mutation.cpp"),
        os.path.join(ROOT, "core/util/assert.cpp"), "-pthread", "-o", program],
        capture_output=True, text=True, check=False)
    if build.returncode != 0:
        return [f"the schemata copy does not build: {mutants.first_error(build.stderr)}"], len(points)

    baseline = run(program)
    if baseline is None:
        return ["the fixture fails with no mutant"], len(points)
    expected, none = expectations()
    met = set()
    for operator in mutants.OPERATORS:
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


def test_every_operator_changes_what_the_fixture_expects(tmp_path):
    try:
        problems, count = check(str(tmp_path))
    except mutants.UsageError as error:
        problems, count = [str(error)], 0
    assert problems == [], f"{len(problems)} problems over {count} mutants"


def test_the_compile_check_through_a_launcher_runs_the_compiler():
    """A build whose compile commands go through ccache (Meson's default when it is
    installed) checks the copy with ccache and the compiler, never ccache alone."""
    entry = {"directory": ROOT, "file": "../core/schemata_a.cpp",
             "command": "ccache c++ -Icore -std=c++20 -MD -MQ a.o -MF a.o.d -o a.o -c ../core/schemata_a.cpp"}
    argv, _ = mutants.syntax_check_command(entry, "unit.cpp", "/copy", "/out")
    assert argv == ["ccache", "c++", "-I/copy", "-Icore", "-std=c++20", "-fdiagnostics-color=never",
                    "-fsyntax-only", "unit.cpp"]
