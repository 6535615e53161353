#!/usr/bin/env python3
"""clang-format-14 over the C++ files a change touches: the fast part of `--lint`'s format
check, for scripts/check's default run.

Which files: the .cpp and .hpp files that differ between the working tree (uncommitted
and untracked files included) and a base commit:
  - MOQ_FORMAT_BASE, when set (any revision git knows);
  - else the merge base of HEAD with origin/main, when there is one and it is not HEAD
    itself (a branch: everything it changes);
  - else HEAD's parent (on main itself, or a clone without origin/main: the last commit);
  - else, when HEAD has no parent (a repository of one commit, or a shallow clone whose
    parent was not fetched), every file of HEAD: that commit brought them all.
Without git, or outside a git checkout, nothing is checked and a note says so.

Usage: python3 -m moqtools.format_check [--root ROOT] [--clang-format PROGRAM]

Prints the files that differ from .clang-format (clang-format's own report, on stderr),
then "format: 1 passed, 0 failed" or "format: 0 passed, 1 failed" (one check; "0 passed,
0 failed" when there was nothing to check). Exit 1 when a file differs, 2 when
clang-format cannot run.
"""

import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SUFFIXES = (".cpp", ".hpp")


def git(root, *args):
    """git's output, or None when the command fails."""
    run = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, check=False)
    return run.stdout if run.returncode == 0 else None


def commit_of(root, revision):
    out = git(root, "rev-parse", "--verify", "--quiet", revision + "^{commit}")
    return out.strip() if out else None


def base_commit(root):
    """(commit or None, what it is): the base the change is measured from (see above)."""
    named = os.environ.get("MOQ_FORMAT_BASE")
    if named:
        found = commit_of(root, named)
        if not found:
            raise LookupError(f"MOQ_FORMAT_BASE={named} names no commit")
        return found, named
    head = commit_of(root, "HEAD")
    main = commit_of(root, "origin/main")
    if main:
        merge_base = git(root, "merge-base", "HEAD", main)
        if merge_base and merge_base.strip() != head:
            return merge_base.strip(), "the merge base with origin/main"
    parent = commit_of(root, "HEAD~1")
    if parent:
        return parent, "the last commit's parent"
    return None, "no parent of HEAD: every file of HEAD"


def changed_files(root):
    """(files relative to root that exist and are C++, what they were measured against)."""
    base, described = base_commit(root)
    if base:
        names = git(root, "diff", "--name-only", "--no-renames", "--diff-filter=d", base) or ""
    else:
        names = git(root, "ls-tree", "-r", "--name-only", "HEAD") or ""
    names += git(root, "ls-files", "--others", "--exclude-standard") or ""
    files = sorted({n for n in names.splitlines() if n.endswith(SUFFIXES) and os.path.isfile(os.path.join(root, n))})
    return files, described


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=ROOT)
    parser.add_argument("--clang-format", default="clang-format-14")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    if not shutil.which("git") or git(root, "rev-parse", "--is-inside-work-tree") is None or not commit_of(root, "HEAD"):
        print("format: no git checkout here (or no git): the changed files are not known, none checked",
              file=sys.stderr)
        print("format: 0 passed, 0 failed")
        return 0
    try:
        files, described = changed_files(root)
    except LookupError as error:
        print(f"format: {error}", file=sys.stderr)
        return 2
    if not files:
        print(f"format: no C++ file changed since {described}", file=sys.stderr)
        print("format: 0 passed, 0 failed")
        return 0
    try:
        run = subprocess.run([args.clang_format, "--dry-run", "-Werror", *files], cwd=root, check=False)
    except OSError as error:
        print(f"format: cannot run {args.clang_format}: {error.strerror}", file=sys.stderr)
        return 2
    if run.returncode != 0:
        print(f"format: of {len(files)} C++ files changed since {described}, some differ from .clang-format "
              "(clang-format-14 -i FILE rewrites one)", file=sys.stderr)
        print("format: 0 passed, 1 failed")
        return 1
    print(f"format: {len(files)} C++ files changed since {described} match .clang-format", file=sys.stderr)
    print("format: 1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
