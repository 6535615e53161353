"""What the tests of moqtools share: the repository's paths, the programs pytest was given
(conftest.py: --moqsim, --viewer) and running a moqtools module as its entry point does."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
# Set by conftest.py from pytest's command line.
OPTIONS = {"moqsim": None, "viewer": None}


def given(option, what):
    """The path pytest's --OPTION named; a test that needs it fails without it."""
    path = OPTIONS[option]
    if not path or not os.path.exists(path):
        pytest.fail(f"this test needs --{option} ({what}); scripts/check passes it", pytrace=False)
    return os.path.abspath(path)


def moqsim():
    return given("moqsim", "the moqsim of a mutants build: build-sites/cli/moqsim")


def viewer():
    return given("viewer", "the report viewer's browser bundle, as setup.sh's moq_report_viewer prints it")


def tool_environment(env=None):
    """`env` (default this process's) with the package importable, as setup.sh's moq_python sets it."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = SCRIPTS + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def tool_command(module, *args):
    return [sys.executable, "-m", f"moqtools.{module}", *args]


def run_tool(module, *args, env=None, **options):
    """Runs moqtools.MODULE with ARGS as scripts run it; the CompletedProcess (text, captured)."""
    options.setdefault("capture_output", True)
    options.setdefault("text", True)
    options.setdefault("check", False)
    return subprocess.run(tool_command(module, *args), env=tool_environment(env), **options)
