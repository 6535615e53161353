"""Tests of the shard a script takes from the environment (moqtools.shards): the rules and
messages of moqsim sweep's, as `moqsim shard` (pytest's --moqsim) answers them, and how
scripts/mutate and moqtools.mutation refuse a bad shard and keep a good one from the
programs they run.
"""

import os
import subprocess
import tempfile
import unittest

from moqtools import mutation, shards
from moqtools.shards import ShardError
from moqtools.tests.support import ROOT, moqsim, run_tool


def shard_from_environment(environ):
    """(index, total) as `moqsim shard` reads `environ`, through moqtools.shards."""
    shard = shards.shard_from_environment(moqsim(), environ)
    return shard.index, shard.total


class ShardEnvironmentTest(unittest.TestCase):
    """The rules and messages of runner/shard.cpp, whose cases docs/TESTING.md lists, as the
    scripts get them: from `moqsim shard`."""

    def refused(self, environ):
        with self.assertRaises(ShardError) as caught:
            shard_from_environment(environ)
        return str(caught.exception)

    def test_each_engine_names_its_shard(self):
        self.assertEqual(shard_from_environment({}), (0, 1))
        self.assertEqual(shard_from_environment({"GTEST_TOTAL_SHARDS": "4", "GTEST_SHARD_INDEX": "3"}), (3, 4))
        self.assertEqual(shard_from_environment({"TEST_TOTAL_SHARDS": "4", "TEST_SHARD_INDEX": "1"}), (1, 4))
        self.assertEqual(shard_from_environment({"MOQSIM_SHARD_COUNT": "8", "JOB_COMPLETION_INDEX": "7"}), (7, 8))
        # Slurm's --array=1-8: IDs from 1, and --array=3-11:4 (IDs 3, 7, 11) steps of 4.
        self.assertEqual(shard_from_environment({"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1",
                                                 "SLURM_ARRAY_TASK_COUNT": "8"}), (0, 8))
        self.assertEqual(shard_from_environment({"SLURM_ARRAY_TASK_ID": "11", "SLURM_ARRAY_TASK_MIN": "3",
                                                 "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "3"}), (2, 3))
        self.assertEqual(shard_from_environment({"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3"}), (2, 3))
        # An empty variable is unset, as a shell's `VAR=` leaves it.
        self.assertEqual(shard_from_environment({"JOB_COMPLETION_INDEX": "", "MOQSIM_SHARD_COUNT": ""}), (0, 1))

    def test_engines_that_agree_are_one_shard_and_engines_that_disagree_are_refused(self):
        both = {"GTEST_TOTAL_SHARDS": "8", "GTEST_SHARD_INDEX": "1", "JOB_COMPLETION_INDEX": "1",
                "MOQSIM_SHARD_COUNT": "8"}
        self.assertEqual(shard_from_environment(both), (1, 8))
        self.assertEqual(self.refused({**both, "GTEST_TOTAL_SHARDS": "4"}),
                         "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS say shard 1 of 4 but "
                         "JOB_COMPLETION_INDEX/MOQSIM_SHARD_COUNT say 1 of 8")
        self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": "1", "MOQSIM_SHARD_COUNT": "8",
                                       "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1",
                                       "SLURM_ARRAY_TASK_COUNT": "8"}),
                         "JOB_COMPLETION_INDEX/MOQSIM_SHARD_COUNT say shard 1 of 8 but "
                         "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT say 0 of 8")

    def test_half_a_pair_is_refused(self):
        self.assertEqual(self.refused({"GTEST_TOTAL_SHARDS": "2"}), "GTEST_TOTAL_SHARDS is set but GTEST_SHARD_INDEX is not")
        self.assertEqual(self.refused({"TEST_SHARD_INDEX": "1"}), "TEST_SHARD_INDEX is set but TEST_TOTAL_SHARDS is not")
        self.assertEqual(self.refused({"MOQSIM_SHARD_COUNT": "8"}),
                         "MOQSIM_SHARD_COUNT is set but JOB_COMPLETION_INDEX is not")
        self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": "3"}),
                         "JOB_COMPLETION_INDEX is set but MOQSIM_SHARD_COUNT is not (an Indexed Job sets it from "
                         ".spec.completions in its manifest: deploy/kubernetes/sweep-job.yaml)")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "3"}),
                         "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")

    def test_an_index_past_the_count_and_bad_numbers_are_refused(self):
        self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": "8", "MOQSIM_SHARD_COUNT": "8"}),
                         "JOB_COMPLETION_INDEX 8 is out of range: MOQSIM_SHARD_COUNT is 8 (indices 0 to 7)")
        self.assertEqual(self.refused({"GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": "18446744073709551615"}),
                         "GTEST_SHARD_INDEX 18446744073709551615 is out of range: GTEST_TOTAL_SHARDS is 2 "
                         "(indices 0 to 1)")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "1",
                                       "SLURM_ARRAY_TASK_COUNT": "8"}),
                         "SLURM_ARRAY_TASK_ID 9 (index 8 from SLURM_ARRAY_TASK_MIN 1) is out of range: "
                         "SLURM_ARRAY_TASK_COUNT is 8 (indices 0 to 7)")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "1",
                                       "SLURM_ARRAY_TASK_COUNT": "8"}),
                         "SLURM_ARRAY_TASK_ID 0 is below SLURM_ARRAY_TASK_MIN 1")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "3",
                                       "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "3"}),
                         "SLURM_ARRAY_TASK_ID 4 is not SLURM_ARRAY_TASK_MIN 3 plus a multiple of "
                         "SLURM_ARRAY_TASK_STEP 4")
        self.assertEqual(self.refused({"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_STEP": "0",
                                       "SLURM_ARRAY_TASK_COUNT": "3"}),
                         "SLURM_ARRAY_TASK_STEP must be at least 1, not '0'")
        self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": "0", "MOQSIM_SHARD_COUNT": "0"}),
                         "MOQSIM_SHARD_COUNT must be at least 1, not '0'")
        self.assertEqual(self.refused({"GTEST_TOTAL_SHARDS": "1000001", "GTEST_SHARD_INDEX": "0"}),
                         "GTEST_TOTAL_SHARDS takes a whole number up to 1000000, not '1000001'")
        for garbage in ("-1", "+1", " 1", "1x", "\u0661"):
            self.assertEqual(self.refused({"JOB_COMPLETION_INDEX": garbage, "MOQSIM_SHARD_COUNT": "8"}),
                             f"JOB_COMPLETION_INDEX takes a whole number up to {2**64 - 1}, not '{garbage}'")

    def test_scripts_mutate_refuses_a_bad_shard_in_one_line_before_building_the_mutants(self):
        # Were the shard not refused first, the script would go on to say it builds
        # build-mutants/ and build it.
        env = {**os.environ, "JOB_COMPLETION_INDEX": "3", "MOQSIM_SHARD_COUNT": "2"}
        run = subprocess.run([os.path.join(ROOT, "scripts", "mutate")], env=env, capture_output=True, text=True,
                             timeout=600, check=False)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(run.stderr, "mutate: JOB_COMPLETION_INDEX 3 is out of range: MOQSIM_SHARD_COUNT is 2 "
                                     "(indices 0 to 1)\n")
        self.assertEqual(run.stdout, "")

    def test_mutate_py_refuses_a_bad_shard_and_keeps_it_from_the_programs_it_runs(self):
        with tempfile.TemporaryDirectory() as reports:
            env = {**os.environ, "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "2"}
            run = run_tool("mutation", "/bin/true", moqsim(), reports, env=env, timeout=60)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertEqual(run.stderr, "mutate: SLURM_ARRAY_TASK_ID 2 (index 2 from SLURM_ARRAY_TASK_MIN 0) is out "
                                         "of range: SLURM_ARRAY_TASK_COUNT is 2 (indices 0 to 1)\n")
            self.assertEqual(os.listdir(reports), [])
        # Each unit-test run and sweep a mutant gets runs whole: a moqsim that saw the
        # Job's index would sweep only its share.
        saved = dict(os.environ)
        try:
            os.environ.update({"JOB_COMPLETION_INDEX": "1", "MOQSIM_SHARD_COUNT": "4", "SLURM_ARRAY_TASK_ID": "1",
                               "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0",
                               "SLURM_ARRAY_TASK_STEP": "1"})
            self.assertEqual(mutation.take_shard(moqsim()).total, 4)
            child = mutation.child_environment("gate.wake.fire")
        finally:
            os.environ.clear()
            os.environ.update(saved)
        self.assertEqual(child["MOQ_MUTANT"], "gate.wake.fire")
        self.assertFalse({name for name in child if name.startswith(("SLURM_ARRAY", "JOB_COMPLETION", "MOQSIM_SHARD"))})
