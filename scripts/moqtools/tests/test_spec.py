"""Tests of the spec check (moqtools.spec) on a small tree of its own: which rules count as
tested (a doctest case, a saved case or a canary named; not a suite named in the text),
test names and Class::function names resolved exactly with libclang, and the rule index."""

import os

from moqtools.tests.support import run_tool

SPEC = """# Spec

## Rule index

<!-- rule index: written by scripts/moqtools/spec.py --write-index -->
<!-- end of rule index -->

**A1. Named test.** *Checked by:* `a_named_test`; model: `Model::step`.

**A2. Fixture test.** *Checked by:* `a_fixture_test`, `a_templated_fixture_test`, `Model::Kind`,
`steps::twice`.

**A3. Saved case and canary.** *Checked by:* `a_saved_case.json`.

**A4. Canary.** *Checked by:* the canary `model.step.wake`.

**A5. Suite only.** *Checked by:* the model suite (every answer is judged).

**A6. A test only in a comment.** *Checked by:* `only_in_a_comment`.

**A7. Words in one file.** *Checked by:* `a_named_test`, `Model::helper`, `Other::step`.
"""

TESTS = """#include "doctest/doctest.h"
struct Fixture {};
TEST_CASE("a_named_test") {}
TEST_CASE_FIXTURE(Fixture, "a_fixture_test") {}
template <int A, int B> struct Sized {};
TEST_CASE_FIXTURE(Sized<1, (2 > 1)>, "a_templated_fixture_test") {}
// TEST_CASE("only_in_a_comment") is no test: a comment.
const char* words = "TEST_CASE(\\"neither_in_a_string\\")";
"""

MODEL = """#pragma once
// helper: named here, in a comment, and as Other's member below; no member of Model.
class Model {
public:
    enum class Kind { one, two };
    void step();
};
struct Other { int helper = 0; };
namespace steps { int twice(int value); }
"""


def tree(tmp_path, spec=SPEC):
    for relative, text in {"docs/SPEC.md": spec, "core/tests/model_test.cpp": TESTS, "oracle/model.hpp": MODEL,
                           "corpus/a_saved_case.json": "{}", "scripts/canaries.txt": "# suite site\nmodel model.step.wake\n"}.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


def spec_check(root, *extra):
    return run_tool("spec", "--root", root, "--build", os.path.join(root, "no-build"), *extra, timeout=300)


def test_only_named_tests_count_and_names_resolve_exactly(tmp_path):
    run = spec_check(tree(tmp_path))
    assert run.returncode == 1, run.stderr
    problems = run.stdout.splitlines()
    assert problems[-1] == "spec: 7 rules, 5 tested, 4 problems"
    assert sorted(problems[:-1]) == sorted([
        "spec: A5: names no test that checks it (a doctest case, a saved case or a canary; a suite named in the "
        "text is no test)",
        "spec: A6: names no test that checks it (a doctest case, a saved case or a canary; a suite named in the "
        "text is no test)",
        "spec: A7: names Model::helper, which libclang finds declared nowhere in the tree",
        "spec: A7: names Other::step, which libclang finds declared nowhere in the tree",
    ])


def test_a_tree_whose_rules_all_name_tests_passes_and_gets_its_index(tmp_path):
    spec = SPEC.split("**A5.")[0]
    root = tree(tmp_path, spec)
    run = spec_check(root, "--write-index")
    assert (run.returncode, run.stdout.splitlines()[-1]) == (0, "spec: 4 rules, 4 tested, 0 problems"), run.stdout
    written = (tmp_path / "docs" / "SPEC.md").read_text()
    assert "| [A1](#a1) | Named test | `a_named_test` |" in written
    assert "| [A2](#a2) | Fixture test | `a_fixture_test`, `a_templated_fixture_test` |" in written


def test_a_missing_saved_case_and_file_are_named(tmp_path):
    spec = SPEC.split("**A4.")[0] + "**A8. Gone.** *Checked by:* `a_named_test`, `gone.json`, `oracle/gone.cpp`.\n"
    run = spec_check(tree(tmp_path, spec))
    assert run.returncode == 1
    assert "spec: A8: names the saved case gone.json, which is not in corpus/" in run.stdout
    assert "spec: A8: names the file oracle/gone.cpp, which does not exist" in run.stdout
