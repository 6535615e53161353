#include <doctest/doctest.h>

#include <memory>
#include <new>
#include <vector>

#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "support/allocation_counter.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Waiter;
using moq::kio::WaiterList;
using moq::test::WakeCounter;

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

// A registration that runs out of memory growing the list leaves the waiter out, and
// records nothing: the next registration lands, instead of trusting a record of a
// presence that never happened (and losing the wake).
TEST_CASE("k4_a_registration_that_runs_out_of_memory_lands_on_the_next_try") {
    WakeCounter counter;
    WaiterList list;
    std::vector<Waiter> inline_ones;
    for (std::size_t i = 0; i < WaiterList::inline_capacity; ++i) inline_ones.emplace_back(counter.waker());
    for (const Waiter& waiter : inline_ones) waiter.register_on(list);
    REQUIRE_FALSE(list.spilled());
    WakeCounter task;
    const Waiter waiter{task.waker()};
    static_cast<void>(waiter.identity());  // made before allocations fail
    {
        const moq::test::FailingAllocations failing;
        CHECK_THROWS_AS(waiter.register_on(list), std::bad_alloc);
    }
    CHECK_FALSE(list.contains(waiter));
    waiter.register_on(list);
    CHECK(list.contains(waiter));
    list.wake();
    CHECK(task.wakes() == 1);
}

// The same with the waiter already in another list: the failed registration forgets the
// record of its own list only, so both lists still wake it.
TEST_CASE("k4_a_failed_registration_forgets_only_the_record_of_its_own_list") {
    WakeCounter counter;
    WaiterList list;
    std::vector<Waiter> inline_ones;
    for (std::size_t i = 0; i < WaiterList::inline_capacity; ++i) inline_ones.emplace_back(counter.waker());
    for (const Waiter& waiter : inline_ones) waiter.register_on(list);
    REQUIRE_FALSE(list.spilled());
    WakeCounter task;
    const Waiter waiter{task.waker()};
    WaiterList other;
    waiter.register_on(other);  // the first record: of the other list
    {
        const moq::test::FailingAllocations failing;
        CHECK_THROWS_AS(waiter.register_on(list), std::bad_alloc);
    }
    waiter.register_on(list);
    CHECK(list.contains(waiter));
    list.wake();
    CHECK(task.wakes() == 1);
    waiter.register_on(other);
    other.wake();
    CHECK(task.wakes() == 2);
}
