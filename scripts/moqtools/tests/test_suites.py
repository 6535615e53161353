"""Tests of moqtools.suites: the suites as `moqsim list --suites` names them (pytest's
--moqsim), the same as moqsim's own table, and a moqsim that names none refused."""

import subprocess

import pytest

from moqtools.suites import SuitesError, suite_names
from moqtools.tests.support import moqsim


def test_the_suites_are_those_of_moqsims_table_in_its_order():
    table = subprocess.run([moqsim(), "list"], capture_output=True, text=True, check=True).stdout
    listed = [line.split()[0] for line in table.splitlines() if "cases by default" in line]
    assert suite_names(moqsim()) == listed
    assert len(listed) >= 6


def test_a_program_that_names_no_suite_or_cannot_run_is_refused(tmp_path):
    for program in ("/bin/false", "/bin/true", str(tmp_path / "no-moqsim")):
        with pytest.raises(SuitesError):
            suite_names(program)
