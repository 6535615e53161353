#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <utility>

#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Waiter;
using moq::kio::WaiterList;
using moq::test::WakeCounter;

TEST_CASE("a_noop_waiter_registers_nothing") {
    WaiterList list;
    const Waiter noop = Waiter::noop();
    for (int i = 0; i < 10; ++i) noop.register_on(list);
    CHECK(list.size() == 0);
    CHECK_FALSE(noop.has_identity());
    // The copy is the point: a clone of a noop waiter allocates nothing either.
    const Waiter copy = noop;  // NOLINT(performance-unnecessary-copy-initialization)
    copy.register_on(list);
    CHECK(list.size() == 0);
    CHECK_FALSE(copy.has_identity());
    CHECK(copy.is_noop());
}

TEST_CASE("a_waiter_built_from_a_noop_waker_still_registers") {
    WaiterList list;
    const Waiter waiter{moq::kio::Waker()};
    waiter.register_on(list);
    CHECK(list.size() == 1);
}

TEST_CASE("a_waiter_allocates_its_identity_only_when_it_registers") {
    WakeCounter counter;
    const Waiter waiter{counter.waker()};
    CHECK_FALSE(waiter.has_identity());
    WaiterList list;
    waiter.register_on(list);
    CHECK(waiter.has_identity());
}

TEST_CASE("waiter_clone_shares_identity") {
    WakeCounter counter;
    WaiterList list;
    auto original = std::make_unique<Waiter>(counter.waker());
    auto clone = std::make_unique<Waiter>(*original);
    CHECK(&original->identity() == &clone->identity());
    clone->register_on(list);
    original->register_on(list);
    CHECK(list.size() == 1);
    // The registration made through the clone lives until the last handle goes.
    clone.reset();
    CHECK(list.live() == 1);
    original.reset();
    CHECK(list.live() == 0);
    list.wake();
    CHECK(counter.wakes() == 0);
}

TEST_CASE("a_waiter_serial_is_shared_by_its_clones_only") {
    WakeCounter counter;
    Waiter original{counter.waker()};
    const Waiter clone = original;  // NOLINT(performance-unnecessary-copy-initialization)
    const Waiter another{counter.waker()};
    CHECK(clone.serial() == original.serial());
    CHECK(another.serial() != original.serial());
    CHECK(original.serial() != 0);
    const std::uint64_t serial = original.serial();
    const Waiter moved{std::move(original)};
    CHECK(moved.serial() == serial);
    // Moved from, it holds no waker, and no serial of one.
    CHECK(original.serial() == 0);  // NOLINT(bugprone-use-after-move)
    CHECK(original.waker().is_noop());
}
