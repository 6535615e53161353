#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "support/allocation_counter.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Waiter;
using moq::kio::WaiterList;
using moq::test::WakeCounter;

namespace {

// A task whose waker handles are counted: how many the code still holds.
class HeldTask {
public:
    moq::kio::Waker waker() {
        held_.fetch_add(1);
        return moq::kio::Waker(&vtable, this);
    }
    [[nodiscard]] int held() const { return held_.load(); }

private:
    static void* clone(void* data) {
        static_cast<HeldTask*>(data)->held_.fetch_add(1);
        return data;
    }
    static void wake(void*) {}
    static void drop(void* data) { static_cast<HeldTask*>(data)->held_.fetch_sub(1); }
    static constexpr moq::kio::WakerVtable vtable{&clone, &wake, &drop};

    std::atomic<int> held_{0};
};

}  // namespace

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

TEST_CASE("the_last_waiter_handle_lets_go_of_its_task_while_a_list_still_holds_its_entry") {
    HeldTask task;
    WaiterList list;
    {
        const Waiter waiter{task.waker()};
        waiter.register_on(list);
        CHECK(task.held() > 0);
    }
    // The entry pins the identity's block, never the task behind it.
    CHECK(list.live() == 0);
    CHECK(task.held() == 0);
}

TEST_CASE("a_waiter_identity_is_freed_once_its_handles_and_list_entries_are_gone") {
    WakeCounter task;
    std::ptrdiff_t while_registered = 0;
    const moq::test::AllocationScope scope;  // no check inside it: only the code under test allocates
    {
        WaiterList list;
        {
            const Waiter waiter{task.waker()};
            waiter.register_on(list);
            while_registered = scope.live();
        }
        list.wake();  // a dead entry is dropped, not woken
    }
    const std::ptrdiff_t after = scope.live();
    CHECK(while_registered > 0);
    CHECK(after == 0);
    CHECK(task.wakes() == 0);
}
