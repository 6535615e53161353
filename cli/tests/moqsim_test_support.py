"""What the Python tests of moqsim share: an environment without any variable moqsim
sweep reads, and the counting of named checks into a closing "name: N passed, M failed"."""
import os
import sys

# The prefixes of every variable moqsim sweep reads: its own, and each engine's shard.
READ_BY_MOQSIM = ("MOQ_", "MOQSIM_", "GTEST_", "TEST_", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_")


def clean_environment(extra=None):
    """This process's environment without any variable moqsim reads, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(READ_BY_MOQSIM)}
    env.update(extra or {})
    return env


class Checks:
    """Named checks: a failed one prints its name and detail on stderr."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def __call__(self, what, holds, detail=""):
        if holds:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAILED: {what} {detail}", file=sys.stderr)

    def finish(self):
        """Prints the closing line; the exit status: 0 only if every check held."""
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 else 1
