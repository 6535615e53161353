"""Counts a run-clang-tidy run for scripts/check --lint: one check per source file.

usage: tidy_summary.py STDOUT STDERR STATUS SOURCE...

STDOUT and STDERR hold what run-clang-tidy printed, STATUS its exit status, SOURCE the
files it was asked to lint (paths from the repository root, which is the working folder).
run-clang-tidy prints each file's clang-tidy command line, then that file's findings, as
one block. A file passes when its block holds no error (with WarningsAsErrors every
finding is one); a file with no block was not linted (it is missing from the compile
database) and fails. Each failure is shown on stderr. Prints "PASSED FAILED".
"""

import os
import re
import sys

BUILD = "build-clang"  # the folder of the compile database; clang-tidy runs there
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# A finding, or a file clang could not compile: "PATH:LINE:COLUMN: error: ...".
ERROR = re.compile(r"^(\S[^:]*)(:\d+:\d+: error: .*)$")


def blocks(text):
    """The output of each clang-tidy command, by the real path of the file it linted."""
    found = {}
    current = None
    for line in text.splitlines(keepends=True):
        if line.startswith("clang-tidy") and " -p=" in line:
            current = os.path.realpath(line.split()[-1])
            found[current] = ""
        elif current is not None:
            found[current] += line
    return found


def errors(findings, shown):
    """The findings' error lines, each with the lines that follow it up to the next error,
    leaving out an error already shown (a header's finding recurs in every file including
    it) and paths written in the build folder's terms made real."""
    chunks = []
    keep = False
    for line in findings.splitlines(keepends=True):
        error = ERROR.match(line)
        if error:
            path = os.path.join(BUILD, error.group(1))  # a relative path is the build folder's
            line = os.path.relpath(os.path.realpath(path)) + error.group(2) + "\n"
            keep = line not in shown
            shown.add(line)
            chunks.append("")
        if keep and chunks:
            chunks[-1] += line
    return "".join(chunks)


def main():
    out_path, err_path, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sources = sys.argv[4:]
    with open(out_path, encoding="utf-8", errors="replace") as out:
        linted = blocks(ANSI.sub("", out.read()))
    passed = failed = 0
    shown = set()
    for source in sources:
        findings = linted.get(os.path.realpath(source))
        if findings is None:
            print(f"lint: {source} was not linted: {BUILD}/compile_commands.json does not compile it",
                  file=sys.stderr)
            failed += 1
        elif any(ERROR.match(line) for line in findings.splitlines()):
            sys.stderr.write(errors(findings, shown))
            failed += 1
        else:
            passed += 1
    if status != 0 and failed == 0:
        # run-clang-tidy failed although no file shows why (a crash, a bad configuration).
        with open(err_path, encoding="utf-8", errors="replace") as err:
            lines = [line for line in ANSI.sub("", err.read()).splitlines() if "warnings generated" not in line]
        print("\n".join(lines[-30:]), file=sys.stderr)
        print(f"lint: run-clang-tidy-14 failed (status {status})", file=sys.stderr)
        failed += 1
    print(passed, failed)


if __name__ == "__main__":
    main()
