"""Tests of scripts/moqtools/format_check.py in throwaway git repositories: which files a
branch, the last commit, a repository of one commit and a shallow clone have it check,
uncommitted and untracked files, and the note without git.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

from moqtools.tests.support import ROOT, run_tool

STYLE = os.path.join(ROOT, ".clang-format")
FORMATTED = "int answer() { return 42; }\n"
UNFORMATTED = "int   answer( ){return 42;}\n"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


class FormatCheckTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)
        self.repo = os.path.join(self.folder, "repo")
        os.mkdir(self.repo)
        shutil.copy(STYLE, os.path.join(self.repo, ".clang-format"))
        self.git("init", "-q", "-b", "main")

    def git(self, *args, cwd=None):
        subprocess.run(["git", *args], cwd=cwd or self.repo, env={**os.environ, **GIT_ENV}, check=True,
                       capture_output=True)

    def write(self, name, text, commit=None, repo=None):
        with open(os.path.join(repo or self.repo, name), "w", encoding="utf-8") as out:
            out.write(text)
        if commit:
            self.git("add", "-A", cwd=repo)
            self.git("commit", "-q", "-m", commit, cwd=repo)

    def check(self, repo=None, env=None):
        run = run_tool("format_check", "--root", repo or self.repo, env={**os.environ, **GIT_ENV, **(env or {})})
        return run.returncode, run.stdout.splitlines()[-1] if run.stdout else "", run.stderr

    def expect(self, passes, *named, repo=None, env=None):
        """One check that passes or fails, its stderr naming each of `named`."""
        status, last, err = self.check(repo, env)
        wanted = (0, "format: 1 passed, 0 failed") if passes else (1, "format: 0 passed, 1 failed")
        self.assertEqual((status, last), wanted, err)
        for text in named:
            self.assertIn(text, err)
        return err

    def test_one_commit_checks_its_files(self):
        self.write("a.cpp", UNFORMATTED, commit="one")
        self.expect(False, "a.cpp", "every file of HEAD")

    def test_the_last_commit_alone_on_main(self):
        self.write("old.cpp", UNFORMATTED, commit="one")
        self.write("new.cpp", FORMATTED, commit="two")
        self.expect(True, "1 C++ files changed since the last commit's parent")

    def test_a_branch_is_checked_from_its_merge_base_with_origin_main(self):
        self.write("old.cpp", UNFORMATTED, commit="main")
        clone = os.path.join(self.folder, "clone")
        self.git("clone", "-q", self.repo, clone, cwd=self.folder)
        self.git("checkout", "-q", "-b", "topic", cwd=clone)
        self.write("topic.cpp", UNFORMATTED, commit="topic", repo=clone)
        self.write("topic.cpp", FORMATTED, commit="topic formatted", repo=clone)
        # The branch's first commit was unformatted, its last fixed it: the branch as a whole passes.
        self.write("notes.txt", "not C++\n", commit="main moves on")
        self.git("fetch", "-q", "origin", cwd=clone)
        self.expect(True, "1 C++ files changed since the merge base with origin/main", repo=clone)
        self.write("topic.hpp", UNFORMATTED, repo=clone)  # untracked
        self.expect(False, "topic.hpp", repo=clone)

    def test_uncommitted_changes_and_only_cpp_and_hpp(self):
        self.write("a.cpp", FORMATTED, commit="one")
        self.write("b.cpp", FORMATTED, commit="two")
        self.write("a.cpp", UNFORMATTED)
        self.write("c.h", UNFORMATTED)
        self.assertNotIn("c.h:", self.expect(False, "a.cpp"))

    def test_a_shallow_clone_checks_every_file_of_its_commit(self):
        self.write("a.cpp", UNFORMATTED, commit="one")
        self.write("b.cpp", FORMATTED, commit="two")
        clone = os.path.join(self.folder, "shallow")
        self.git("clone", "-q", "--depth", "1", "file://" + self.repo, clone, cwd=self.folder)
        self.expect(False, "a.cpp", repo=clone)

    def test_a_named_base(self):
        self.write("a.cpp", UNFORMATTED, commit="one")
        self.write("b.cpp", FORMATTED, commit="two")
        self.write("c.cpp", FORMATTED, commit="three")
        self.expect(True, "2 C++ files changed since HEAD~2", env={"MOQ_FORMAT_BASE": "HEAD~2"})
        status, last, err = self.check(env={"MOQ_FORMAT_BASE": "no-such-revision"})
        self.assertEqual(status, 2, err)

    def test_without_git_nothing_is_checked_and_a_note_says_so(self):
        self.write("a.cpp", UNFORMATTED, commit="one")
        status, last, err = self.check(env={"PATH": self.folder})  # a folder without git
        self.assertEqual((status, last), (0, "format: 0 passed, 0 failed"), err)
        self.assertIn("no git checkout here (or no git)", err)
        plain = os.path.join(self.folder, "plain")
        os.mkdir(plain)
        status, last, err = self.check(plain)
        self.assertEqual((status, last), (0, "format: 0 passed, 0 failed"), err)
