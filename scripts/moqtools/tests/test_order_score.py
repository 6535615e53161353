from moqtools import order_score


def test_every_strong_order_is_found_with_its_line_and_relaxed_ones_are_not():
    text = "a.load(std::memory_order_acquire);\nb.store(1, std::memory_order_relaxed);\n" \
           "c.exchange(2, std::memory_order_acq_rel); d.fetch_or(1, std::memory_order_seq_cst);\n"
    found = [(line, order) for _, _, line, order in order_score.weakenings(text)]
    assert found == [(1, "std::memory_order_acquire"), (3, "std::memory_order_acq_rel"),
                     (3, "std::memory_order_seq_cst")]
    start, end, _, _ = order_score.weakenings(text)[0]
    assert text[start:end] == "std::memory_order_acquire"


def test_a_failing_sweep_or_exploration_is_a_kill_and_a_passing_one_is_not():
    assert order_score.first_failure("runtime: 10000 passed, 0 failed (10000 cases)") is None
    assert order_score.first_failure("runtime: 9999 passed, 1 failed (10000 cases)")
    assert order_score.first_failure("  new bucket 4f8b79ac8007 (E6, violated): 1 worker")
    assert order_score.first_failure("explore: FAILED: E6: task 0's poll 2 read message 1")
    assert order_score.first_failure("explore: runtime small cases ...: exhaustive\n  0 failures") is None


def test_the_kill_commands_run_sweeps_first_then_the_small_explorations():
    names = [name for name, _ in order_score.kill_commands("1-5", 4, 2)]
    assert names == ["random sweep 1-5", "pct sweep 1-5", "explore ops 3 bound 2", "explore ops 4 bound 2"]
    assert [name for name, _ in order_score.kill_commands("1", 2, 1)][2:] == ["explore ops 2 bound 1"]
