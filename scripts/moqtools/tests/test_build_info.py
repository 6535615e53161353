"""Tests of moqtools.build_info on the build folder of pytest's --moqsim (a mutants build,
build-sites/): an option's value, the executables it defines, and a refused question."""

import os

from moqtools.tests.support import moqsim, run_tool


def folder():
    return os.path.dirname(os.path.dirname(moqsim()))


def test_an_option_of_the_folder():
    assert run_tool("build_info", "option", folder(), "mutants").stdout == "true\n"
    assert run_tool("build_info", "option", folder(), "cpp_std").stdout == "c++20\n"


def test_the_named_executables_and_their_paths():
    run = run_tool("build_info", "executables", folder(), "moqsim", "no_such_program")
    assert (run.returncode, run.stdout) == (0, "moqsim cli/moqsim\n")


def test_an_option_or_a_folder_that_is_not_there_is_refused_in_one_line(tmp_path):
    for args in (("option", folder(), "no_such_option"), ("option", str(tmp_path), "debug"), ("option", folder())):
        run = run_tool("build_info", *args)
        assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, (args, run.stderr)
