"""Counting test results the way scripts/check adds them up: "PASSED FAILED" on stdout.

  python3 -m moqtools.counts testlog FILE          FILE is Meson's testlog.json (one JSON
                                                   object a line), one count a test
  python3 -m moqtools.counts output STATUS FILE    FILE is one test program's output, STATUS
                                                   its exit status

A test's numbers come from the last summary line it printed: doctest's ("[doctest] test
cases: A | B passed | C failed | D skipped", colour codes stripped), pytest's ("== 12
passed, 1 failed, 2 errors in 3.4s ==", errors counted as failed), or a plain closing line
"name: B passed, C failed" (the command-line tests print one). With no such line, the test
counts as 1 passed if it succeeded, else 1 failed. A test that failed although its
summary shows no failed case (a crash or sanitizer report after the summary) adds 1
failed, so the counts never hide a failure.
"""

import json
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
DOCTEST = re.compile(r"\[doctest\] test cases:\s*\d+\s*\|\s*(\d+)\s*passed\s*\|\s*(\d+)\s*failed")
PLAIN = re.compile(r"^[a-z]+: (\d+) passed, (\d+) failed$", re.M)
# With or without its rules of "=" (-q leaves them out).
PYTEST = re.compile(r"^(?:=+ )?((?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)"
                    r"(?:, )?)+) in [\d.]+s(?: \([\d:]+\))?(?: =+)?$", re.M)


def pytest_counts(summary):
    """(passed, failed) of pytest's closing line's middle ("3 passed, 1 failed, 1 error")."""
    found = {word: int(number) for number, word in re.findall(r"(\d+) (\w+)", summary)}
    failed = found.get("failed", 0) + found.get("error", 0) + found.get("errors", 0) + found.get("xpassed", 0)
    return found.get("passed", 0) + found.get("xfailed", 0), failed


def count(text, ok):
    """(passed, failed) of one test's output; `ok`: whether it exited successfully."""
    text = ANSI.sub("", text or "")
    found = [(m.start(), (int(m.group(1)), int(m.group(2)))) for pattern in (DOCTEST, PLAIN)
             for m in pattern.finditer(text)]
    found += [(m.start(), pytest_counts(m.group(1))) for m in PYTEST.finditer(text)]
    if not found:
        return (1, 0) if ok else (0, 1)
    passed, failed = max(found)[1]
    if not ok and failed == 0:
        failed = 1
    return passed, failed


def count_testlog(path):
    passed = failed = 0
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            if not line.strip():
                continue
            test = json.loads(line)
            result = test.get("result", "")
            if result == "SKIP":
                continue
            ok = result in ("OK", "EXPECTEDFAIL")
            p, f = count((test.get("stdout") or "") + (test.get("stderr") or ""), ok)
            passed += p
            failed += f
    return passed, failed


def main(argv):
    if len(argv) == 3 and argv[1] == "testlog":
        passed, failed = count_testlog(argv[2])
    elif len(argv) == 4 and argv[1] == "output":
        with open(argv[3], encoding="utf-8", errors="replace") as out:
            passed, failed = count(out.read(), argv[2] == "0")
    else:
        print("usage: python3 -m moqtools.counts testlog FILE | output STATUS FILE", file=sys.stderr)
        return 2
    print(passed, failed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
