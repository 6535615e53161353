"""Running a script's unittest cases the way scripts/check counts them.

run_and_exit(name, tests) runs every test case of tests, a module or a unittest suite
(progress on stderr), prints "NAME: N passed, M failed" (the closing line scripts/check
reads) and exits 1 if any failed, else 0.
"""

import sys
import unittest


def run_and_exit(name, tests):
    suite = tests if isinstance(tests, unittest.TestSuite) else unittest.defaultTestLoader.loadTestsFromModule(tests)
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite)
    failed = len(result.failures) + len(result.errors)
    print(f"{name}: {result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
