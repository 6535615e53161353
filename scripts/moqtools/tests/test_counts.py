"""Tests of moqtools.counts, which turns each test program's output into scripts/check's
"N passed, M failed": doctest's, pytest's and the plain closing lines, a failure the
summary does not show, and Meson's test log."""

import json

from moqtools.counts import count, count_testlog
from moqtools.tests.support import run_tool

DOCTEST = "\x1b[0m[doctest] test cases: 12 | 11 passed | 1 failed | 0 skipped\n"


def test_doctest_summary_colour_codes_and_all():
    assert count("noise\n" + DOCTEST, ok=False) == (11, 1)


def test_pytest_summary_with_and_without_its_rules():
    assert count("== 85 passed, 2 failed, 1 error, 3 deselected in 61.20s (0:01:01) ==\n", ok=False) == (85, 3)
    assert count("7 passed in 0.41s\n", ok=True) == (7, 0)
    assert count("==== 2 passed, 1 xfailed, 1 xpassed in 3.00s ====\n", ok=False) == (3, 1)


def test_a_plain_closing_line_and_the_last_summary_wins():
    assert count(DOCTEST + "cli: 62 passed, 0 failed\n", ok=True) == (62, 0)
    assert count("cli: 62 passed, 0 failed\n" + DOCTEST, ok=False) == (11, 1)


def test_a_failure_the_summary_does_not_show_counts_and_no_summary_is_one_test():
    assert count("[doctest] test cases: 3 | 3 passed | 0 failed | 0 skipped\nSegmentation fault\n", ok=False) == (3, 1)
    assert count("nothing to count\n", ok=True) == (1, 0)
    assert count("", ok=False) == (0, 1)


def test_meson_test_log_skips_skipped_tests(tmp_path):
    log = tmp_path / "testlog.json"
    entries = [{"result": "OK", "stdout": DOCTEST.replace("1 failed", "0 failed")},
               {"result": "FAIL", "stdout": "", "stderr": "crashed"},
               {"result": "SKIP", "stdout": ""},
               {"result": "EXPECTEDFAIL", "stdout": "bad input: 4 passed, 0 failed\n"}]
    log.write_text("\n".join(json.dumps(entry) for entry in entries) + "\n\n")
    assert count_testlog(str(log)) == (11 + 1, 1)
    run = run_tool("counts", "testlog", str(log))
    assert (run.returncode, run.stdout) == (0, "12 1\n")


def test_bad_usage_is_refused():
    run = run_tool("counts", "output", "0")
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1
