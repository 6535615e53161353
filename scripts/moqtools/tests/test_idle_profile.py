"""Tests of the idle pass's per-function counts (idle_profile.py): the callgrind parser on
a fixture and on a real callgrind run, the inline chains and their attribution, the
names, the table, the refusal of bad usage, and the section bench_pair.py writes.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from moqtools import idle_profile
from moqtools.tests.support import run_tool
from moqtools.tests.test_bench_pair import Fixture, ResultsFolder, run_report

# Callgrind's format as --dump-instr=yes --compress-pos=no --compress-strings=no writes
# it: positions are "ADDRESS LINE COUNT"; the line after calls= is the call's inclusive
# cost, which belongs to the callee.
CALLGRIND = """\
version: 1
positions: instr line
events: Ir
ob=/bench/idle_export
fl=/bench/idle_export.cpp
fn=main
0x1000 10 4
0x1004 10 1
cfn=pass
calls=100 0x2000 20
0x1004 10 5000
0x1008 11 2
fn=pass
0x2000 20 30
0x2004 21 20
0x1000 10 6
totals: 63
"""

ADDR2LINE = """\
0x0000000000002000
moq::kio::Waker::will_wake(moq::kio::Waker const&) const
/core/kio/waker.hpp:57
moq::kio::Park::hold(moq::kio::Waker const&)
/core/kio/park.hpp:40
(anonymous namespace)::ExportTask::pass()
/bench/idle_export.cpp:128
0x0000000000002004
(anonymous namespace)::ExportTask::pass()
/bench/idle_export.cpp:130
0x0000000000003000
??
??:0
"""


class ParseTest(unittest.TestCase):
    def test_self_costs_skip_the_inclusive_cost_of_a_call(self):
        costs = idle_profile.self_costs(CALLGRIND.splitlines(keepends=True))
        # 0x1004: its own 1, not the 5000 the call below it cost; 0x1000 twice, 4 + 6.
        self.assertEqual(costs, {0x1000: 10, 0x1004: 1, 0x1008: 2, 0x2000: 30, 0x2004: 20})
        self.assertEqual(sum(costs.values()), 63)

    def test_self_costs_of_a_real_run_add_up_to_its_total(self):
        folder = tempfile.mkdtemp()
        try:
            out = os.path.join(folder, "callgrind.out")
            run = subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no",
                                  "--compress-strings=no", f"--callgrind-out-file={out}", "/bin/true"],
                                 capture_output=True, text=True, check=False)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(out, encoding="utf-8", errors="replace") as lines:
                text = lines.read()
            total = next(int(line.split()[1]) for line in text.splitlines() if line.startswith(("totals:", "summary:")))
            costs = idle_profile.self_costs(text.splitlines(keepends=True))
            self.assertGreater(len(costs), 100)
            self.assertEqual(sum(costs.values()), total)
        finally:
            shutil.rmtree(folder)

    def test_per_pass_is_the_difference_over_the_polls(self):
        per_pass = idle_profile.per_pass({1: 2000, 2: 500, 3: 40}, {1: 0, 2: 500, 4: 20}, 10)
        self.assertEqual(per_pass, {1: 200.0, 3: 4.0, 4: -2.0})

    def test_inline_chains_innermost_first(self):
        chains = idle_profile.parse_chains(ADDR2LINE)
        self.assertEqual(chains, {
            0x2000: ["kio::Waker::will_wake", "kio::Park::hold", "ExportTask::pass"],
            0x2004: ["ExportTask::pass"],
            0x3000: ["??"],
        })

    def test_output_out_of_step_is_an_error(self):
        with self.assertRaises(ValueError):
            idle_profile.parse_chains("main\n/bench/idle_export.cpp:3\n")

    def test_names(self):
        cases = {
            "moq::kio::Park::hold(moq::kio::Waker const&)": "kio::Park::hold",
            "(anonymous namespace)::ExportTask::pass()": "ExportTask::pass",
            "moq::model::GatedRead<moq::model::OneWalk>::parked(moq::kio::Waiter const&) const":
                "model::GatedRead::parked",
            "std::optional<moq::kio::Waiter>::operator->() const": "std::optional::operator->",
            "std::vector<int>::operator[](unsigned long)": "std::vector::operator[]",
            "bool std::operator==<char>(char const&, char const&)": "std::operator==<char>",
            "moq::model::GroupConsumer::read_frame_walk[abi:cxx11](moq::kio::Waiter const&)":
                "model::GroupConsumer::read_frame_walk",
            "main": "main",
        }
        for name, short in cases.items():
            self.assertEqual(idle_profile.short_name(name), short, name)


class AttributeTest(unittest.TestCase):
    def test_inclusive_over_the_chain_exclusive_to_the_innermost(self):
        chains = {1: ["kio::Waker::will_wake", "kio::Park::hold", "pass"], 2: ["pass"], 3: ["f", "g", "f", "pass"]}
        total, functions = idle_profile.attribute({1: 7.0, 2: 20.0, 3: 2.0}, chains)
        self.assertEqual(total, 29.0)
        self.assertEqual(functions["pass"], {"inclusive": 29.0, "exclusive": 20.0})
        self.assertEqual(functions["kio::Park::hold"], {"inclusive": 7.0, "exclusive": 0.0})
        self.assertEqual(functions["kio::Waker::will_wake"], {"inclusive": 7.0, "exclusive": 7.0})
        # f appears twice in one chain (inlined into itself): counted once.
        self.assertEqual(functions["f"], {"inclusive": 2.0, "exclusive": 2.0})

    def test_an_address_without_a_chain_is_unknown(self):
        total, functions = idle_profile.attribute({9: 3.0}, {})
        self.assertEqual(total, 3.0)
        self.assertEqual(functions, {"??": {"inclusive": 3.0, "exclusive": 3.0}})


def profile(total, functions, tracks=(1, 16)):
    return {"program": "idle_export", "cases": [
        {"case": "idle", "tracks": count, "gates": "on", "polls": 20000, "total": total * count,
         "functions": {name: {"inclusive": inc * count, "exclusive": exc * count}
                       for name, (inc, exc) in functions.items()}} for count in tracks]}


class TableTest(unittest.TestCase):
    def test_two_profiles_side_by_side(self):
        base = profile(70.0, {"pass": (62.0, 30.0), "kio::Park::hold": (9.0, 2.0), "tiny": (0.1, 0.1)})
        head = profile(58.0, {"ExportTask::pass": (53.0, 26.0), "kio::Park::hold": (7.0, 0.0)})
        lines = idle_profile.table([base, head], ["base", "head"]).splitlines()
        self.assertEqual(lines[0], "| function (incl. / excl.) | base: idle, 1 track, gates on | head: idle, 1 track, "
                         "gates on | base: idle, 16 tracks, gates on | head: idle, 16 tracks, gates on |")
        self.assertEqual(lines[2], "| whole pass | 70.0 | 58.0 | 1,120.0 | 928.0 |")
        rows = {line.split(" | ")[0]: line for line in lines[3:]}
        self.assertEqual(rows["| `kio::Park::hold`"], "| `kio::Park::hold` | 9.0 / 2.0 | 7.0 / 0.0 | 144.0 / 32.0 | "
                         "112.0 / 0.0 |")
        self.assertEqual(rows["| `pass`"], "| `pass` | 62.0 / 30.0 | — | 992.0 / 480.0 | — |")
        # At 16 tracks `tiny` reaches 1.6, so it is shown; its 1-track cells too.
        self.assertIn("| `tiny` | 0.1 / 0.1 | — | 1.6 / 1.6 | — |", lines)

    def test_below_half_an_instruction_everywhere_is_left_out(self):
        text = idle_profile.table([profile(10.0, {"pass": (10.0, 10.0), "noise": (0.01, 0.01)})])
        self.assertNotIn("noise", text)


class UsageTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.out = os.path.join(self.folder, "profile.json")

    def tearDown(self):
        shutil.rmtree(self.folder)

    def tool(self, *args):
        return run_tool("idle_profile", *args)

    def assert_refused(self, run, words):
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn(words, run.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_a_program_without_debug_information(self):
        self.assert_refused(self.tool("run", "/bin/true", self.out), "no debug information")

    def test_a_program_that_cannot_run(self):
        self.assert_refused(self.tool("run", os.path.join(self.folder, "missing"), self.out), "cannot run")

    def test_bad_counts(self):
        self.assert_refused(self.tool("run", "/bin/true", self.out, "--polls", "0"), "--polls")
        self.assert_refused(self.tool("run", "/bin/true", self.out, "--tracks", "5000"), "--tracks")
        self.assert_refused(self.tool("run", "/bin/true", self.out, "--polls", "many"), "--polls")

    def test_a_profile_that_is_not_one(self):
        bad = os.path.join(self.folder, "bad.json")
        with open(bad, "w", encoding="utf-8") as handle:
            handle.write('{"cases": [{"case": "idle"}]}')
        self.assert_refused(self.tool("table", bad), "without tracks")
        self.assert_refused(self.tool("table", os.path.join(self.folder, "none.json")), "cannot read")
        self.assert_refused(self.tool("frobnicate"), "usage")


class PairSectionTest(ResultsFolder):
    def test_both_profiles_give_a_section_and_a_profile_part(self):
        fixture = Fixture(self.results)
        fixture.write("profile-base.json", json.dumps(profile(70.0, {"kio::Park::hold": (9.0, 2.0)})))
        fixture.write("profile-head.json", json.dumps(profile(58.0, {"kio::Park::hold": (7.0, 0.0)})))
        run = run_report(self.results, self.reports)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(os.path.join(self.reports, "bench.md"), encoding="utf-8") as handle:
            markdown = handle.read()
        self.assertIn("Where an idle pass goes, per function", markdown)
        self.assertIn("| `kio::Park::hold` | 9.0 / 2.0 | 7.0 / 0.0 | 144.0 / 32.0 | 112.0 / 0.0 |", markdown)
        with open(os.path.join(self.reports, "bench.json"), encoding="utf-8") as handle:
            data = json.load(handle)
        self.assertEqual(data["profile"]["head"]["cases"][0]["total"], 58.0)

    def test_one_profile_alone_gives_none(self):
        fixture = Fixture(self.results)
        fixture.write("profile-head.json", json.dumps(profile(58.0, {"kio::Park::hold": (7.0, 0.0)})))
        run = run_report(self.results, self.reports)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(os.path.join(self.reports, "bench.md"), encoding="utf-8") as handle:
            self.assertNotIn("per function", handle.read())

