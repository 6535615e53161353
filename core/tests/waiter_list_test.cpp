#include <doctest/doctest.h>

#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "support/allocation_counter.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Waiter;
using moq::kio::WaiterList;
using moq::test::WakeCounter;

namespace {

// Registers as many waiters of `counter` as the list holds without a heap block; they
// live as long as the returned vector.
std::vector<Waiter> fill_inline_slots(WaiterList& list, WakeCounter& counter) {
    std::vector<Waiter> waiters;
    for (std::size_t i = 0; i < WaiterList::inline_capacity; ++i) waiters.emplace_back(counter.waker());
    for (const Waiter& waiter : waiters) waiter.register_on(list);
    return waiters;
}

// `waiter` is in `list`, and draining it wakes `task` once more.
void check_wakes_once(WaiterList& list, const Waiter& waiter, const WakeCounter& task) {
    const int before = task.wakes();
    CHECK(list.contains(waiter));
    list.wake();
    CHECK(task.wakes() == before + 1);
}

}  // namespace

TEST_CASE("register_is_idempotent_per_identity") {
    WakeCounter counter;
    WaiterList list;
    const Waiter first{counter.waker()};
    for (int i = 0; i < 5; ++i) first.register_on(list);
    CHECK(list.size() == 1);
    // Two waiters for the same task are two identities, so two entries.
    const Waiter second{counter.waker()};
    second.register_on(list);
    CHECK(list.size() == 2);
    list.wake();
    CHECK(counter.wakes() == 2);
}

TEST_CASE("dedup_survives_record_eviction") {
    WakeCounter counter;
    const Waiter waiter{counter.waker()};
    // More lists than an identity keeps records for: some answers come from a scan.
    std::vector<WaiterList> lists(16);
    for (int round = 0; round < 4; ++round)
        for (WaiterList& list : lists) waiter.register_on(list);
    for (const WaiterList& list : lists) CHECK(list.size() == 1);
}

TEST_CASE("a_drain_invalidates_the_record") {
    WakeCounter counter;
    const Waiter waiter{counter.waker()};
    SUBCASE("by wake") {
        WaiterList list;
        waiter.register_on(list);
        list.wake();
        CHECK(counter.wakes() == 1);
        CHECK(list.size() == 0);
        waiter.register_on(list);  // must land: the record is stale, not present
        CHECK(list.size() == 1);
        list.wake();
        CHECK(counter.wakes() == 2);
    }
    SUBCASE("by take") {
        WaiterList list;
        waiter.register_on(list);
        const auto epoch = list.epoch();
        WaiterList snapshot = list.take();
        CHECK(list.epoch() == epoch + 1);
        waiter.register_on(list);
        CHECK(list.size() == 1);
        snapshot.wake();
        CHECK(counter.wakes() == 1);
    }
}

TEST_CASE("a_taken_snapshot_tracks_nothing") {
    WakeCounter counter;
    const Waiter waiter{counter.waker()};
    WaiterList list;
    waiter.register_on(list);
    WaiterList snapshot = list.take();
    CHECK(snapshot.id() == 0);
    // Registering into a snapshot is settled by a scan: still no duplicate.
    waiter.register_on(snapshot);
    CHECK(snapshot.size() == 1);
}

// K4, K5: untracked lists share no record. An identity registered on one is still added to
// another (each settled by its own scan), and that other's wake reaches it.
TEST_CASE("k5_a_waiter_on_one_untracked_list_is_still_added_to_another") {
    WakeCounter counter;
    const Waiter waiter{counter.waker()};
    WaiterList first = WaiterList::untracked();
    WaiterList second = WaiterList::untracked();
    waiter.register_on(first);
    waiter.register_on(second);
    CHECK(second.contains(waiter));
    second.wake();
    CHECK(counter.wakes() == 1);
}

TEST_CASE("abandoned_waiters_do_not_grow_the_list") {
    WakeCounter counter;
    WaiterList list;
    for (int i = 0; i < 1000; ++i) {
        const Waiter waiter{counter.waker()};
        waiter.register_on(list);
    }
    CHECK(list.size() <= 2);
    CHECK(list.live() == 0);
}

TEST_CASE("dead_entries_are_never_woken") {
    WakeCounter live_counter;
    WakeCounter dead_counter;
    WaiterList list;
    const Waiter live{live_counter.waker()};
    live.register_on(list);
    {
        const Waiter gone{dead_counter.waker()};
        gone.register_on(list);
    }
    list.wake();
    CHECK(live_counter.wakes() == 1);
    CHECK(dead_counter.wakes() == 0);
}

TEST_CASE("four_waiters_fit_inline_and_a_fifth_spills") {
    WakeCounter counter;
    WaiterList list;
    std::vector<std::unique_ptr<Waiter>> waiters;
    for (int i = 0; i < 4; ++i) {
        waiters.push_back(std::make_unique<Waiter>(counter.waker()));
        waiters.back()->register_on(list);
    }
    CHECK_FALSE(list.spilled());
    waiters.push_back(std::make_unique<Waiter>(counter.waker()));
    waiters.back()->register_on(list);
    CHECK(list.spilled());
    list.wake();
    CHECK(counter.wakes() == 5);
    CHECK_FALSE(list.spilled());
}

TEST_CASE("list_ids_are_never_reused") {
    std::uint64_t previous = 0;
    for (int i = 0; i < 100; ++i) {
        WaiterList list;
        CHECK(list.id() > previous);
        previous = list.id();
    }
}

TEST_CASE("a_multi_list_poll_reuses_across_a_partial_wake") {
    WakeCounter counter;
    const Waiter waiter{counter.waker()};
    WaiterList first;
    WaiterList second;
    waiter.register_on(first);
    waiter.register_on(second);
    first.wake();
    // Re-poll: the drained list takes the waiter again, the other stays deduplicated.
    waiter.register_on(first);
    waiter.register_on(second);
    CHECK(first.size() == 1);
    CHECK(second.size() == 1);
    second.wake();
    first.wake();
    CHECK(counter.wakes() == 3);
}

TEST_CASE("a_moved_from_list_tracks_nothing") {
    WakeCounter counter;
    const Waiter waiter{counter.waker()};
    WaiterList list;
    waiter.register_on(list);
    WaiterList moved = std::move(list);
    // NOLINTNEXTLINE(bugprone-use-after-move): the moved-from list's state is what this test checks
    CHECK(list.id() != moved.id());
    waiter.register_on(list);  // must land: the record of the moved id says nothing here
    CHECK(list.size() == 1);
    list.wake();
    CHECK(counter.wakes() == 1);
}

// A list whose inline slots are all taken (the next registration spills), and a task's
// waiter that is in none of them.
struct FullInlineSlots {
    WakeCounter counter;
    WaiterList list;
    const std::vector<Waiter> inline_ones = fill_inline_slots(list, counter);
    WakeCounter task;
    const Waiter waiter{task.waker()};
};

// A registration that runs out of memory growing the list leaves the waiter out, and
// records nothing: the next registration lands, instead of trusting a record of a
// presence that never happened (and losing the wake).
TEST_CASE_FIXTURE(FullInlineSlots, "k4_a_registration_that_runs_out_of_memory_lands_on_the_next_try") {
    REQUIRE_FALSE(list.spilled());
    static_cast<void>(waiter.identity());  // made before allocations fail
    {
        const moq::test::FailingAllocations failing;
        CHECK_THROWS_AS(waiter.register_on(list), std::bad_alloc);
    }
    CHECK_FALSE(list.contains(waiter));
    waiter.register_on(list);
    check_wakes_once(list, waiter, task);
}

// The same with the waiter already in another list: the failed registration forgets the
// record of its own list only, so both lists still wake it.
TEST_CASE_FIXTURE(FullInlineSlots, "k4_a_failed_registration_forgets_only_the_record_of_its_own_list") {
    REQUIRE_FALSE(list.spilled());
    WaiterList other;
    waiter.register_on(other);  // the first record: of the other list
    {
        const moq::test::FailingAllocations failing;
        CHECK_THROWS_AS(waiter.register_on(list), std::bad_alloc);
    }
    waiter.register_on(list);
    check_wakes_once(list, waiter, task);
    waiter.register_on(other);
    check_wakes_once(other, waiter, task);
}

// One task and its waiter, for the tests of moving a list.
struct OneTask {
    WakeCounter task;
    const Waiter waiter{task.waker()};
};

TEST_CASE_FIXTURE(OneTask, "a_list_moved_onto_itself_keeps_its_entries") {
    WaiterList list;
    waiter.register_on(list);
    WaiterList& same = list;
    list = std::move(same);
    check_wakes_once(list, waiter, task);
}

// A list moved into another takes the source's id and epoch with its entries: a waiter
// the target held before has a record of the target's old id, which must not claim it
// is still in there.
TEST_CASE_FIXTURE(OneTask, "a_list_assigned_from_another_lets_a_waiter_it_held_before_register_again") {
    WaiterList target;
    waiter.register_on(target);
    WaiterList source;
    target = std::move(source);
    CHECK_FALSE(target.contains(waiter));
    waiter.register_on(target);
    check_wakes_once(target, waiter, task);
}

// And a waiter the source held is known in the target by the source's epoch: registering
// again adds it once.
TEST_CASE_FIXTURE(OneTask, "a_list_assigned_from_another_knows_the_waiters_it_took_over") {
    WaiterList source;
    waiter.register_on(source);
    WakeCounter other_task;
    const Waiter other{other_task.waker()};
    WaiterList target;
    other.register_on(target);
    target.wake();  // a drain: the target's epoch is ahead of the source's
    target = std::move(source);
    waiter.register_on(target);
    CHECK(target.size() == 1);
    check_wakes_once(target, waiter, task);
}

TEST_CASE("a_moved_spilled_list_keeps_growing_as_waiters_register") {
    WakeCounter task;
    std::vector<Waiter> waiters;
    for (int i = 0; i < 40; ++i) waiters.emplace_back(task.waker());
    WaiterList source;
    for (std::size_t i = 0; i < 2 * WaiterList::inline_capacity; ++i) waiters[i].register_on(source);
    REQUIRE(source.spilled());
    WaiterList moved = std::move(source);
    WaiterList assigned;
    assigned = std::move(moved);
    for (std::size_t i = 2 * WaiterList::inline_capacity; i < waiters.size(); ++i) waiters[i].register_on(assigned);
    CHECK(assigned.size() == waiters.size());
    assigned.wake();
    CHECK(task.wakes() == static_cast<int>(waiters.size()));
}

// Grown twice: the first heap block is freed as the second replaces it.
TEST_CASE("a_spilled_list_frees_its_blocks_as_it_grows_and_when_it_goes") {
    WakeCounter task;
    std::vector<Waiter> waiters;
    for (std::size_t i = 0; i < 4 * WaiterList::inline_capacity; ++i) waiters.emplace_back(task.waker());
    for (const Waiter& waiter : waiters) static_cast<void>(waiter.identity());  // made before the scope
    bool spilled = false;
    const moq::test::AllocationScope scope;  // no check inside it: only the code under test allocates
    {
        WaiterList list;
        for (const Waiter& waiter : waiters) waiter.register_on(list);
        spilled = list.spilled();
    }
    const std::ptrdiff_t after = scope.live();
    CHECK(spilled);
    CHECK(after == 0);
}

// Dead slots are reclaimed wherever they are, not only near the front: registrations
// that come and go behind a full front of waiters that stay keep the list small.
TEST_CASE("waiters_that_register_and_leave_behind_live_ones_do_not_grow_the_list") {
    WakeCounter task;
    WaiterList list;
    const std::vector<Waiter> staying = fill_inline_slots(list, task);
    for (int i = 0; i < 100; ++i) {
        const Waiter passing{task.waker()};
        passing.register_on(list);
    }
    CHECK(list.size() <= 2 * WaiterList::inline_capacity);
    CHECK(list.live() == staying.size());
}

TEST_CASE("a_list_contains_no_noop_waiter_and_no_waiter_that_never_registered") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    WaiterList list;
    waiter.register_on(list);
    CHECK_FALSE(list.contains(Waiter::noop()));
    const Waiter never{task.waker()};
    CHECK_FALSE(list.contains(never));
    CHECK_FALSE(never.has_identity());  // asking gave it no identity
}
