#include <doctest/doctest.h>

#include <optional>

#include "kio/cell.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Consumer;
using moq::kio::Producer;
using moq::kio::Waiter;
using moq::test::WakeCounter;

namespace {

// Ready once the value reaches `at_least`.
auto at_least(int at_least) {
    return [at_least](const int& value) -> std::optional<int> {
        if (value >= at_least) return value;
        return std::nullopt;
    };
}

}  // namespace

TEST_CASE("a_write_wakes_a_parked_consumer") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{0};
    Consumer<int> consumer = producer.consume();
    CHECK(consumer.poll(waiter, at_least(1)).is_pending());
    producer.modify([](int& value) { value = 1; });
    CHECK(task.wakes() == 1);
    auto answer = consumer.poll(waiter, at_least(1));
    REQUIRE(answer.is_ready());
    CHECK(answer.value() == 1);
}

TEST_CASE("a_ready_poll_registers_nothing") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{5};
    Consumer<int> consumer = producer.consume();
    CHECK(consumer.poll(waiter, at_least(1)).is_ready());
    producer.modify([](int& value) { ++value; });
    CHECK(task.wakes() == 0);
    CHECK_FALSE(waiter.has_identity());
}

TEST_CASE("closing_wakes_value_closed_and_consumer_waiters") {
    WakeCounter value_task;
    WakeCounter closed_task;
    WakeCounter consumer_task;
    const Waiter value_waiter{value_task.waker()};
    const Waiter closed_waiter{closed_task.waker()};
    const Waiter consumer_waiter{consumer_task.waker()};
    Producer<int> producer{0};
    Consumer<int> consumer = producer.consume();
    CHECK(consumer.poll(value_waiter, at_least(1)).is_pending());
    CHECK(consumer.poll_closed(closed_waiter).is_pending());
    CHECK(producer.poll_unused(consumer_waiter).is_pending());
    SUBCASE("explicitly") { CHECK(producer.close()); }
    SUBCASE("by the last producer going") {
        Producer<int> gone = std::move(producer);
        Producer<int> other = gone;
        { [[maybe_unused]] Producer<int> drop_first = std::move(gone); }
        CHECK_FALSE(consumer.is_closed());
        { [[maybe_unused]] Producer<int> drop_last = std::move(other); }
    }
    CHECK(value_task.wakes() == 1);
    CHECK(closed_task.wakes() == 1);
    CHECK(consumer_task.wakes() == 1);
    CHECK(consumer.poll(value_waiter, at_least(1)).is_closed());
    CHECK(consumer.poll_closed(closed_waiter).is_ready());
}

TEST_CASE("value_writes_do_not_wake_closed_or_consumer_count_waiters") {
    WakeCounter closed_task;
    WakeCounter consumer_task;
    const Waiter closed_waiter{closed_task.waker()};
    const Waiter consumer_waiter{consumer_task.waker()};
    Producer<int> producer{0};
    Consumer<int> consumer = producer.consume();
    CHECK(consumer.poll_closed(closed_waiter).is_pending());
    CHECK(producer.poll_unused(consumer_waiter).is_pending());
    for (int i = 0; i < 100; ++i) producer.modify([](int& value) { ++value; });
    CHECK(closed_task.wakes() == 0);
    CHECK(consumer_task.wakes() == 0);
    // The registrations are still live: the right events still wake them.
    { [[maybe_unused]] Consumer<int> last = std::move(consumer); }
    CHECK(consumer_task.wakes() == 1);
    CHECK(producer.poll_unused(consumer_waiter).is_ready());
}

// K13: a consumer assigned another cell's consumer lets go of its own: the last one of its
// old cell gone, that cell's consumer-count waiters wake and it is unused.
TEST_CASE("k13_assigning_over_the_last_consumer_wakes_its_cells_consumer_count_waiters") {
    WakeCounter consumer_task;
    const Waiter consumer_waiter{consumer_task.waker()};
    Producer<int> watched{0};
    Producer<int> other{0};
    Consumer<int> consumer = watched.consume();
    CHECK(watched.poll_unused(consumer_waiter).is_pending());
    consumer = other.consume();
    CHECK(consumer_task.wakes() == 1);
    auto unused = watched.poll_unused(consumer_waiter);
    REQUIRE(unused.is_ready());
    CHECK(unused.value());
}

TEST_CASE("consumer_churn_does_not_wake_value_or_closed_waiters") {
    WakeCounter value_task;
    WakeCounter closed_task;
    const Waiter value_waiter{value_task.waker()};
    const Waiter closed_waiter{closed_task.waker()};
    Producer<int> producer{0};
    Consumer<int> consumer = producer.consume();
    CHECK(consumer.poll(value_waiter, at_least(1)).is_pending());
    CHECK(consumer.poll_closed(closed_waiter).is_pending());
    for (int i = 0; i < 100; ++i) {
        [[maybe_unused]] Consumer<int> churn = producer.consume();
    }
    CHECK(value_task.wakes() == 0);
    CHECK(closed_task.wakes() == 0);
    producer.modify([](int& value) { value = 1; });
    CHECK(value_task.wakes() == 1);
}

TEST_CASE("the_first_consumer_wakes_a_used_waiter") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{0};
    CHECK(producer.poll_used(waiter).is_pending());
    Consumer<int> consumer = producer.consume();
    CHECK(task.wakes() == 1);
    CHECK(producer.poll_used(waiter).value());
}

TEST_CASE("waking_does_not_hold_the_lock") {
    // The waker re-enters the cell it was woken by. Under the lock this would deadlock.
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{0};
    Consumer<int> consumer = producer.consume();
    int seen = -1;
    task.on_wake = [&] { seen = consumer.read([](const int& value) { return value; }); };
    CHECK(consumer.poll(waiter, at_least(1)).is_pending());
    producer.modify([](int& value) { value = 7; });
    CHECK(seen == 7);
    // Re-registering from inside the wake must land in the drained list, too.
    CHECK(consumer.poll(waiter, at_least(100)).is_pending());
    task.on_wake = [&] { (void)consumer.poll(waiter, at_least(100)); };
    producer.modify([](int& value) { value = 8; });
    task.on_wake = nullptr;
    producer.modify([](int& value) { value = 9; });
    CHECK(task.wakes() == 3);
}

TEST_CASE("read_and_watch_registers_every_time") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{0};
    Consumer<int> consumer = producer.consume();
    for (int round = 1; round <= 3; ++round) {
        const int seen = consumer.read_and_watch(waiter, [](const int& value) { return value; });
        CHECK(seen == round - 1);
        producer.modify([](int& value) { ++value; });
        CHECK(task.wakes() == round);
    }
}

TEST_CASE("a_closed_cell_refuses_changes_and_a_second_close") {
    Producer<int> producer{0};
    CHECK(producer.modify([](int& value) { value = 1; }));  // open: accepted
    CHECK(producer.close());
    CHECK_FALSE(producer.close());
    CHECK_FALSE(producer.modify([](int& value) { value = 2; }));
    CHECK_FALSE(producer.modify_quietly([](int& value) { value = 3; }));
    CHECK(producer.read([](const int& value) { return value; }) == 1);
}

TEST_CASE("poll_closed_parks_until_the_cell_closes_and_then_answers_at_once") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{0};
    CHECK(producer.poll_closed(waiter).is_pending());
    producer.modify([](int& value) { value = 1; });
    CHECK(task.wakes() == 0);  // a change is not a close
    CHECK(producer.close());
    CHECK(task.wakes() == 1);
    CHECK(producer.poll_closed(waiter).is_ready());
}

TEST_CASE("a_producer_moved_onto_another_lets_go_of_the_cell_it_held") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> held{0};
    Consumer<int> reader = held.consume();
    CHECK(reader.poll_closed(waiter).is_pending());
    Producer<int> other{5};
    held = std::move(other);  // the last producer of the first cell goes
    CHECK(task.wakes() == 1);
    CHECK(reader.poll_closed(waiter).is_ready());
    auto& same = held;
    held = std::move(same);  // onto itself: keeps its cell
    CHECK(held.read([](const int& value) { return value; }) == 5);
}

// Rust parity (loom write_wakes_a_parked_consumer): a write then the last producer's drop
// still hands a parked consumer the value it waited for; the close comes after it.
TEST_CASE("a_write_then_the_last_producer_going_still_hands_out_the_value") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    std::optional<Producer<int>> producer{std::in_place, 0};
    const Consumer<int> consumer = producer->consume();
    CHECK(consumer.poll(waiter, at_least(1)).is_pending());
    producer->modify([](int& value) { value = 1; });
    producer.reset();
    CHECK(task.wakes() >= 1);
    auto answer = consumer.poll(waiter, at_least(1));
    REQUIRE(answer.is_ready());
    CHECK(answer.value() == 1);
    CHECK(consumer.poll(waiter, at_least(2)).is_closed());
}

// Closing is answered before the consumer count: a closed cell is neither used nor
// unused (Ready false), whatever its consumers (K13).
TEST_CASE("a_closed_cell_answers_used_and_unused_with_false") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{0};
    CHECK(producer.poll_used(waiter).is_pending());
    CHECK(producer.close());
    CHECK(task.wakes() == 1);
    CHECK_FALSE(producer.poll_used(waiter).value());
    CHECK_FALSE(producer.poll_unused(waiter).value());  // no consumer, yet not "unused"
    const Consumer<int> consumer = producer.consume();
    CHECK_FALSE(producer.poll_used(waiter).value());  // a consumer, yet not "used"
}

TEST_CASE("a_copy_of_a_moved_from_handle_is_moved_from_and_counts_for_nothing") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{0};
    Consumer<int> consumer = producer.consume();
    Consumer<int> live_consumer = std::move(consumer);
    Producer<int> live_producer = std::move(producer);
    {
        // NOLINTBEGIN(bugprone-use-after-move): copying the moved-from handles is the case
        const Consumer<int> consumer_copy = consumer;
        const Producer<int> producer_copy = producer;
        // NOLINTEND(bugprone-use-after-move)
    }
    // The copies joined no count: the one live consumer still keeps the cell used, and
    // its going leaves it unused.
    CHECK(live_producer.poll_unused(waiter).is_pending());
    { const Consumer<int> last = std::move(live_consumer); }
    CHECK(task.wakes() == 1);
    CHECK(live_producer.poll_unused(waiter).is_ready());
}

TEST_CASE("a_cell_poll_names_its_state") {
    using State = moq::kio::CellPoll<int>::State;
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{0};
    Consumer<int> consumer = producer.consume();
    CHECK(consumer.poll(waiter, at_least(1)).state() == State::pending);
    producer.modify([](int& value) { value = 1; });
    CHECK(consumer.poll(waiter, at_least(1)).state() == State::ready);
    CHECK(producer.close());
    CHECK(consumer.poll(waiter, at_least(2)).state() == State::closed);
}
