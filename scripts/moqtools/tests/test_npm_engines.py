"""Tests of scripts/moqtools/npm_engines.py: its semver range reader, and its verdict on
lock files, one of them the validator's old pins (kubernetes-models 5.1.0, Node >= 22).
"""

import json
import os
import tempfile
import unittest

from moqtools.npm_engines import RangeError, satisfies
from moqtools.tests.support import run_tool

NODE_18 = (18, 19, 0)


def lock(packages):
    return {"name": "fixture", "lockfileVersion": 3, "requires": True,
            "packages": {"": {"dependencies": {}}, **{
                f"node_modules/{name}": {"version": version, **({"engines": engines} if engines else {})}
                for name, version, engines in packages}}}


def check(*locks):
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for number, content in enumerate(locks):
            paths.append(os.path.join(folder, f"lock-{number}.json"))
            with open(paths[-1], "w", encoding="utf-8") as out:
                out.write(content if isinstance(content, str) else json.dumps(content))
        return run_tool("npm_engines", *paths)


class RangeTest(unittest.TestCase):
    def test_ranges_that_accept_node_18_19(self):
        for text in (">=14", ">= 14", ">=0.10.0", ">=6", "*", "", "18.x", "^18.0.0", "~18.19", "18",
                     ">=12 <19", "^16 || ^18", "16 - 18", ">17", "<=18", ">=18.19.0", "x"):
            self.assertTrue(satisfies(NODE_18, text), text)

    def test_ranges_that_refuse_node_18_19(self):
        for text in (">=22", ">=20", "^20.17.0 || >=22.9.0", "^18.20", "~18.20.0", "<18", "18.20.x", ">18",
                     "19 - 22", "<=18.18", ">=12 <18", "=18.19.1", "^16"):
            self.assertFalse(satisfies(NODE_18, text), text)

    def test_a_range_it_cannot_read_is_an_error(self):
        for text in ("latest", ">=eighteen", "18.19.0.1"):
            with self.assertRaises(RangeError, msg=text):
                satisfies(NODE_18, text)


class LockTest(unittest.TestCase):
    def test_the_old_validator_pins_are_refused_transitive_ones_too(self):
        run = check(lock([("kubernetes-models", "5.1.0", {"node": ">=22"}), ("js-yaml", "4.1.0", None),
                          ("@kubernetes-models/base", "6.0.1", {"node": ">=22"}),
                          ("ajv-formats/node_modules/is-cidr", "6.0.4", {"node": ">=20"}),
                          ("punycode", "2.3.1", {"node": ">=6"})]))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        refused = run.stderr.splitlines()
        self.assertEqual(len(refused), 3, run.stderr)
        self.assertIn("kubernetes-models@5.1.0 declares engines.node '>=22', which refuses Node 18.19.0", run.stderr)
        self.assertIn("@kubernetes-models/base@6.0.1", run.stderr)
        self.assertIn("is-cidr@6.0.4", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_locks_whose_ranges_accept_node_18_pass(self):
        run = check(lock([("kubernetes-models", "4.5.1", {"node": ">=14"}), ("js-yaml", "4.1.0", None)]),
                    lock([("mutation-testing-elements", "3.9.0", None)]))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, "npm engines: 3 packages of 2 lock files accept Node 18.19.0\n")

    def test_an_unreadable_range_or_engines_field_fails(self):
        run = check(lock([("a", "1.0.0", {"node": "latest"}), ("b", "1.0.0", ["node >= 0.4"])]))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("a@1.0.0 declares engines.node 'latest', which cannot be read", run.stderr)
        self.assertIn("b@1.0.0", run.stderr)

    def test_a_lock_file_it_cannot_read_is_bad_input(self):
        for content in ("{", json.dumps({"lockfileVersion": 1, "dependencies": {}})):
            run = check(content)
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)

