"""Tests of the tables scripts/moqtools/guided_compare.py writes, on made-up rows."""

import unittest

from moqtools import guided_compare


def row(site, random, pct, swarm, guided):
    cells = {"random": random, "pct": pct, "swarm": swarm, "guided": guided}
    made = {"site": site, "suite": "gate"}
    made.update({way: {"cases": cases, "ran": cases or 1000} for way, cases in cells.items()})
    return made


class TablesTest(unittest.TestCase):
    def test_the_best_blind_way_is_each_mutants_fewest_cases_and_none_when_no_way_found_it(self):
        self.assertEqual(guided_compare.best_blind(row("a", 30, 8, None, 2)), 8)
        self.assertIsNone(guided_compare.best_blind(row("a", None, None, None, 2)))

    def test_the_summary_counts_where_guided_needs_fewer_cases_or_at_most_half(self):
        rows = [row("a", 30, 8, 50, 4), row("b", 10, 12, 9, 6), row("c", None, None, None, 7),
                row("d", 3, 5, 4, None)]
        text = guided_compare.markdown({"sites": rows, "probes": {}, "probe_seconds": 60})
        self.assertIn("| 4 | best blind way | 3 | 8 | not found |", text)
        self.assertIn("| 4 | guided | 3 | 6 | not found |", text)
        self.assertIn("Guided needed fewer cases than every blind way on 3 of 4 mutants, and at most half the best "
                      "blind way's on 2.", text)

    def test_the_best_blind_way_takes_every_strategy_measured(self):
        rows = [row("a", 30, 8, 50, 4)]
        rows[0].update({"fifo": {"cases": None, "ran": 900}, "pos": {"cases": 5, "ran": 5},
                        "surw": {"cases": 3, "ran": 3}})
        self.assertEqual(guided_compare.best_blind(rows[0]), 3)
        text = guided_compare.markdown({"sites": rows, "probes": {}, "probe_seconds": 60})
        for way in ("fifo", "pos", "surw"):
            self.assertIn(f"| 1 | {way} |", text)
        self.assertIn("| 1 | best blind way | 1 | 3 | 3 |", text)

    def test_a_way_not_measured_is_left_out_of_the_tables(self):
        rows = [row("a", 30, 8, 50, 4)]
        del rows[0]["guided"]
        text = guided_compare.markdown({"sites": rows, "probes": {}, "probe_seconds": 60})
        self.assertNotIn("guided", text.lower().replace("guided needed", ""))
        self.assertIn("| 1 | best blind way | 1 | 8 | 8 |", text)
