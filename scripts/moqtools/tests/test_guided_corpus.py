"""Tests of scripts/moqtools/guided_corpus.py: the order in which the guided search replays a
suite's kept corpus, on small made-up feature and kill sets and a corpus folder of its own."""

import json
import os
import tempfile
import unittest

from moqtools import guided_compare, guided_corpus
from moqtools.tests.support import run_tool


class CoverTest(unittest.TestCase):
    def test_each_next_input_adds_the_most_features_and_a_round_ends_when_none_adds_one(self):
        features = {"a": {1, 2}, "b": {1, 2, 3, 4}, "c": {5}, "d": {1, 5}, "e": {4}}
        self.assertEqual(guided_corpus.cover_rounds(features), [["b", "c"], ["a", "e", "d"]])

    def test_a_tie_goes_to_the_input_with_fewer_features_then_to_the_smaller_name(self):
        self.assertEqual(guided_corpus.cover_rounds({"p": {1, 2, 3}, "q": {1, 4}, "r": {4}}), [["p", "r"], ["q"]])
        self.assertEqual(guided_corpus.cover_rounds({"b": {1}, "a": {1}}), [["a"], ["b"]])

    def test_the_mutants_cover_comes_first_ties_taken_by_the_feature_rank(self):
        kills = {"x": {"m1"}, "y": {"m1", "m2"}, "z": {"m3"}, "w": set(), "v": {"m3"}}
        rank = {"v": 0, "w": 1, "x": 2, "y": 3, "z": 4}
        self.assertEqual(guided_corpus.kill_rounds(kills, rank), [["y", "v"], ["x", "z"]])


class ControlFileTest(unittest.TestCase):
    def test_features_are_read_by_the_path_the_file_list_gives(self):
        text = "3\n1\n/k/one\n/c/two\n/c/three\nSTARTED 0 10\nFT 0 7 8\nCOV 0 1\nSTARTED 2 5\nFT 2 9\n"
        self.assertEqual(guided_corpus.parse_control_file(text), {"/k/one": {7, 8}, "/c/three": {9}})

    def test_a_file_list_shorter_than_its_count_is_refused(self):
        with self.assertRaisesRegex(guided_corpus.UsageError, "lists 1 files, not 3"):
            guided_corpus.parse_control_file("3\n0\n/c/one\n")


class LearnedFromTest(unittest.TestCase):
    def test_the_comparison_and_the_order_split_the_mutants_in_about_half(self):
        ids = [f"gen.model/resume.cpp:{line}:5.cond_negate" for line in range(1, 401)]
        learned = sum(guided_corpus.learned_from(mutant) for mutant in ids)
        self.assertGreater(learned, 150)
        self.assertLess(learned, 250)
        self.assertEqual(learned, sum(guided_corpus.learned_from(mutant) for mutant in ids))


class CorpusFolderTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.corpus = self.folder.name
        os.mkdir(os.path.join(self.corpus, "suite-gate"))
        for name in ("aa", "bb", "cc"):
            with open(os.path.join(self.corpus, "suite-gate", name), "w", encoding="utf-8") as file:
                file.write(name)

    def tearDown(self):
        self.folder.cleanup()

    def write_order(self, *names):
        with open(os.path.join(self.corpus, "suite-gate.order"), "w", encoding="utf-8") as file:
            file.write("".join(f"{name}\n" for name in names))

    def test_the_seeds_follow_the_order_and_an_input_it_leaves_out_comes_last(self):
        self.write_order("cc", "aa")
        seeds = guided_corpus.seed_list(self.corpus, "gate")
        self.assertEqual([os.path.basename(path) for path in seeds], ["cc", "aa", "bb"])

    def test_an_order_naming_each_input_once_passes_the_check(self):
        self.write_order("bb", "cc", "aa")
        run = run_tool("guided_corpus", "check", "--corpus", self.corpus)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, "guided corpus: 1 orders, 0 stale\n")

    def test_a_stale_order_fails_the_check_and_says_what_it_misses(self):
        self.write_order("bb", "aa", "gone", "aa")
        run = run_tool("guided_corpus", "check", "--corpus", self.corpus)
        self.assertEqual(run.returncode, 1)
        self.assertIn("suite-gate.order leaves out cc", run.stderr)
        self.assertIn("suite-gate.order names no input gone", run.stderr)
        self.assertIn("suite-gate.order names twice aa", run.stderr)
        self.assertEqual(run.stdout, "guided corpus: 1 orders, 3 stale\n")

    def test_a_missing_order_fails_the_check(self):
        run = run_tool("guided_corpus", "check", "--corpus", self.corpus)
        self.assertEqual(run.returncode, 1)
        self.assertIn("suite-gate.order is missing", run.stderr)

    def test_a_suite_without_a_corpus_is_bad_input(self):
        run = run_tool("guided_corpus", "seeds", "nosuch", os.path.join(self.corpus, "out"), "--corpus", self.corpus)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stderr.count("\n"), 1)
        self.assertIn("suite-nosuch is not a folder", run.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.corpus, "out")))

    def test_an_order_without_its_program_is_bad_input(self):
        run = run_tool("guided_corpus", "order", "/nonexistent/suite_guided", "gate", "--corpus", self.corpus)
        self.assertEqual(run.returncode, 2)
        self.assertIn("is not a program", run.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.corpus, "suite-gate.order")))


class SampleTest(unittest.TestCase):
    def test_the_comparison_draws_only_mutants_the_order_never_learned_from(self):
        mutants = [{"id": f"gen.model/group.cpp:{line}:5.cond_negate", "file": "core/model/group.cpp",
                    "status": "compiled", "operator": "cond_negate", "key": f"k{line}"} for line in range(1, 201)]
        mutants += [{"id": "gen.kio/cell.hpp:3:5.cond_negate", "file": "core/kio/cell.hpp", "status": "compiled",
                     "operator": "cond_negate", "key": "kio"}]
        with tempfile.TemporaryDirectory() as folder:
            schemata = os.path.join(folder, "schemata.json")
            with open(schemata, "w", encoding="utf-8") as file:
                json.dump({"mutants": mutants}, file)
            learned = guided_corpus.generated_mutants(schemata, None, with_kio=True)
            sample = guided_compare.sample_generated(schemata, 1000, 1, None)
        self.assertEqual(learned["gen.kio/cell.hpp:3:5.cond_negate"], guided_corpus.EVERY_SUITE)
        self.assertTrue(sample)
        self.assertEqual(set(sample.values()), {"group"})
        self.assertFalse([mutant for mutant in sample if guided_corpus.learned_from(mutant)])
        self.assertEqual(len(sample), sum(not guided_corpus.learned_from(mutant["id"]) for mutant in mutants[:200]))
