"""The programs the tests of moqtools run that a build or npm provides: scripts/check gives
--moqsim (a mutants build's moqsim, build-sites/cli/moqsim) and --viewer (the mutation
report viewer's browser bundle)."""

from moqtools.tests import support


def pytest_addoption(parser):
    parser.addoption("--moqsim", help="a mutants build's moqsim (build-sites/cli/moqsim)")
    parser.addoption("--viewer", help="the report viewer's browser bundle (mutation-test-elements.js)")


def pytest_configure(config):
    support.OPTIONS["moqsim"] = config.getoption("moqsim")
    support.OPTIONS["viewer"] = config.getoption("viewer")
