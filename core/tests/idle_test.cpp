// The idle gate of the whole-frame reads, and every disarm point of a group consumer.
#include <doctest/doctest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <utility>
#include <variant>

#include "doubles/recover.hpp"
#include "kio/cell.hpp"
#include "kio/clock.hpp"
#include "kio/manual_clock.hpp"
#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "model/gated_read.hpp"
#include "model/group.hpp"
#include "model/idle.hpp"
#include "support/allocation_counter.hpp"
#include "support/counting_waker.hpp"
#include "support/lagging_clock.hpp"
#include "support/one_group.hpp"

using moq::kio::Consumer;
using moq::kio::Duration;
using moq::kio::Instant;
using moq::kio::ManualClock;
using moq::kio::Producer;
using moq::kio::Waiter;
using moq::model::Bytes;
using moq::model::DeadlineExpiry;
using moq::model::Error;
using moq::model::GroupConsumer;
using moq::model::GroupProducer;
using moq::model::Idle;
using moq::test::ended;
using moq::test::frame_of;
using moq::test::OneGroup;
using moq::test::TestPreferences;
using moq::test::TestRecover;
using moq::test::TestRouteState;
using moq::test::WakeCounter;
using namespace std::chrono_literals;

namespace {

// Re-polls a parked read until its gate is armed: two parks set it up, the third arms it.
void park_until_armed(GroupConsumer& consumer, const Waiter& waiter) {
    for (int i = 0; i < 3; ++i) REQUIRE(consumer.poll_read_frame(waiter).is_pending());
    REQUIRE(consumer.gate_armed());
}

// The consumer has read its one frame and parked for the next, gate armed.
void read_one_then_park(OneGroup& group) {
    group.producer.write_frame("a");
    CHECK(frame_of(group.consumer.poll_read_frame(group.waiter)) == "a");
    park_until_armed(group.consumer, group.waiter);
}

// Group 4 as another copy holds it, for a route to offer as the replacement.
std::shared_ptr<GroupProducer> copy_of_group(std::initializer_list<const char*> frames, bool finished = false) {
    auto copy = std::make_shared<GroupProducer>(4);
    for (const char* frame : frames) copy->write_frame(frame);
    if (finished) copy->finish();
    return copy;
}

// A route and preferences, as a resume reader would hand a group.
struct Route {
    Producer<TestRouteState> route;
    Producer<TestPreferences> preferences;
    std::unique_ptr<TestRecover> recover(std::uint64_t generation) const {
        return std::make_unique<TestRecover>(route.consume(), preferences.consume(), generation);
    }
    void serve(std::shared_ptr<GroupProducer> copy) {
        route.modify([&](TestRouteState& state) { state.serve(copy->consume().cell()); });
    }
};

}  // namespace

TEST_CASE("an_idle_frame_read_parks_for_the_task_polling_it") {
    WakeCounter first_task;
    WakeCounter second_task;
    const Waiter first{first_task.waker()};
    const Waiter second{second_task.waker()};
    GroupProducer producer{0};
    GroupConsumer consumer = producer.consume();
    park_until_armed(consumer, first);
    const auto walks = consumer.walk_counter().walks;
    for (int i = 0; i < 10; ++i) CHECK(consumer.poll_read_frame(first).is_pending());
    CHECK(consumer.walk_counter().walks == walks);  // nothing woke it: nothing walked
    CHECK(consumer.walk_counter().idle_answers == 10);
    // Another task polls: it walks, and the read now belongs to it.
    CHECK(consumer.poll_read_frame(second).is_pending());
    CHECK(consumer.walk_counter().walks == walks + 1);
    producer.write_frame("next");
    CHECK(second_task.wakes() == 1);
    CHECK(frame_of(consumer.poll_read_frame(second)) == "next");
}

TEST_CASE_FIXTURE(OneGroup, "a_read_woken_by_its_frame_takes_no_gate") {
    for (int i = 0; i < 20; ++i) {
        CHECK(consumer.poll_read_frame(waiter).is_pending());
        producer.write_frame("f");
        CHECK(task.wakes() == i + 1);
        CHECK(frame_of(consumer.poll_read_frame(waiter)) == "f");
    }
    CHECK_FALSE(consumer.has_gate());
}

TEST_CASE_FIXTURE(OneGroup, "a_chunked_read_moves_a_parked_frame_read_on") {
    consumer.with_end(1);
    REQUIRE_FALSE(producer.start_frame(4));
    REQUIRE_FALSE(producer.write_chunk("ab"));
    park_until_armed(consumer, waiter);  // a whole-frame read waits out the arriving frame
    auto handed = consumer.poll_next_frame(waiter);
    REQUIRE(handed.value().is_item());
    // The cursor is now at its cap: the whole-frame read must say so, not stay parked.
    CHECK(ended(consumer.poll_read_frame(waiter)));
}

TEST_CASE_FIXTURE(OneGroup, "the_idle_path_allocates_nothing") {
    park_until_armed(consumer, waiter);
    const moq::test::AllocationScope scope;
    for (int i = 0; i < 100; ++i) CHECK(consumer.poll_read_frame(waiter).is_pending());
    CHECK(scope.count() == 0);
}

TEST_CASE("nested_gates_wake_through") {
    // An outer reader gates its own walk and polls the group through its gate's waiter.
    struct Outer {
        Idle<int> gate;
        GroupConsumer inner;
        int walks = 0;
        moq::kio::Poll<moq::model::Next<Bytes>> poll(const Waiter& waiter) {
            if (gate.parked(waiter, 0)) return moq::kio::Poll<moq::model::Next<Bytes>>::pending();
            ++walks;
            auto answer = inner.poll_read_frame(gate.start(waiter, 0));
            gate.finish(answer.is_pending());
            return answer;
        }
    };
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer producer{0};
    Outer outer{Idle<int>(), producer.consume()};
    for (int i = 0; i < 3; ++i) {
        CHECK(outer.poll(waiter).is_pending());
        outer.gate.disarm();  // make the outer walk, so the inner read is polled again
    }
    // The outer gate's waiter is the same task to the inner gate: it stays armed.
    CHECK(outer.inner.gate_armed());
    const auto inner_walks = outer.inner.walk_counter().walks;
    CHECK(outer.poll(waiter).is_pending());
    CHECK(outer.inner.walk_counter().walks == inner_walks);
    CHECK(outer.gate.armed());
    producer.write_frame("through");
    // inner gate -> outer gate -> task (the inner walks made before its gate existed
    // registered the outer waiter directly too, so a second, spurious wake is allowed)
    CHECK(task.wakes() >= 1);
    CHECK_FALSE(outer.gate.parked(waiter, 0));
    CHECK(frame_of(outer.poll(waiter)) == "through");
}

TEST_CASE("a_wake_during_a_walk_keeps_the_gate_unarmed") {
    // An expiry whose input changes while the walk is still running: the walk must not
    // arm, or that change would be lost behind the gate.
    class RacingExpiry final : public moq::model::Expiry {
    public:
        bool is_expired(std::optional<Duration>, const Waiter& waiter) override {
            (void)input.consume().poll(waiter, [](const int&) -> std::optional<int> { return std::nullopt; });
            input.modify([](int& value) { ++value; });  // another thread's write, mid-walk
            return false;
        }
        [[nodiscard]] std::optional<Instant> deadline(std::optional<Duration>) const override { return {}; }
        Producer<int> input{0};
    };
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer producer{0};
    GroupConsumer consumer = producer.consume();
    consumer.with_expiry(std::make_shared<RacingExpiry>());
    for (int i = 0; i < 3; ++i) CHECK(consumer.poll_read_frame(waiter).is_pending());
    CHECK(consumer.has_gate());
    CHECK_FALSE(consumer.gate_armed());
    const auto walks = consumer.walk_counter().walks;
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    CHECK(consumer.walk_counter().walks == walks + 1);
}

TEST_CASE_FIXTURE(OneGroup, "skip_to_disarms_the_gate") {
    consumer.with_end(3);
    read_one_then_park(*this);
    consumer.skip_to(3);  // onto the cap: the read is over
    CHECK(ended(consumer.poll_read_frame(waiter)));
}

TEST_CASE_FIXTURE(OneGroup, "with_range_disarms_the_gate") {
    read_one_then_park(*this);
    consumer.with_range(0, 1);  // never rewinds; the new end is where the cursor stands
    CHECK(ended(consumer.poll_read_frame(waiter)));
}

TEST_CASE_FIXTURE(OneGroup, "with_end_disarms_the_gate") {
    read_one_then_park(*this);
    consumer.with_end(1);
    CHECK(ended(consumer.poll_read_frame(waiter)));
}

TEST_CASE("with_expiry_disarms_the_gate") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    ManualClock clock;
    clock.advance_to(Instant{5s});
    GroupProducer producer{0};
    GroupConsumer consumer = producer.consume();
    park_until_armed(consumer, waiter);
    // Already stale, with nothing unread: the read ends cleanly.
    consumer.with_expiry(std::make_shared<DeadlineExpiry>(clock, Instant{0s}, 1s));
    CHECK(ended(consumer.poll_read_frame(waiter)));
}

TEST_CASE("with_recover_disarms_the_gate") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer stalled{4};
    auto replacement = copy_of_group({"from the new copy"});
    Route route;
    GroupConsumer consumer = stalled.consume();
    park_until_armed(consumer, waiter);
    route.serve(replacement);  // the route moved on before the recover was attached
    consumer.with_recover(route.recover(0));
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "from the new copy");
}

TEST_CASE("a_new_expiry_verdict_disarms_the_gate") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    moq::test::LaggingClock clock;
    GroupProducer producer{0};
    GroupConsumer consumer = producer.consume();
    consumer.with_expiry(std::make_shared<DeadlineExpiry>(clock, Instant{0s}, 1s));
    park_until_armed(consumer, waiter);
    clock.set_now(Instant{2s});  // time moved; its timer has not fired yet
    auto finished = consumer.poll_finished(waiter);
    REQUIRE(finished.is_ready());  // the verdict: stale with nothing unread, a clean end
    CHECK(ended(consumer.poll_read_frame(waiter)));
    clock.fire();
}

TEST_CASE("an_adopted_replacement_disarms_the_gate") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer stalled{4};
    auto replacement = copy_of_group({"from the new copy"});
    Route route;
    GroupConsumer consumer = stalled.consume();
    consumer.with_recover(route.recover(0));
    park_until_armed(consumer, waiter);
    // The route's write is visible before its wake lands (it wakes after unlocking).
    route.route.modify_quietly([&](TestRouteState& state) { state.serve(replacement->consume().cell()); });
    CHECK(consumer.poll_finished(waiter).is_pending());  // adopts the new copy, which is not finished
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "from the new copy");
    route.route.notify();
}

TEST_CASE("a_parked_read_with_an_expiry_ends_when_its_deadline_passes") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    ManualClock clock;
    GroupProducer producer{0};
    GroupConsumer consumer = producer.consume();
    consumer.with_expiry(std::make_shared<DeadlineExpiry>(clock, Instant{0s}, 1s));
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    clock.advance_to(Instant{1s});
    CHECK(task.wakes() == 1);
    CHECK(ended(consumer.poll_read_frame(waiter)));  // stale with nothing unread
    // Final (G10): a frame written later changes no read's answer, poll_finished's included,
    // which counts the frames this reader read.
    REQUIRE_FALSE(producer.write_frame("late"));
    auto finished = consumer.poll_finished(waiter);
    REQUIRE(finished.is_ready());
    REQUIRE(finished.value().is_item());
    CHECK(finished.value().item() == 0);
}

TEST_CASE("a_stale_group_with_a_frame_still_arriving_is_old") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    ManualClock clock;
    GroupProducer producer{0};
    GroupConsumer consumer = producer.consume();
    consumer.with_expiry(std::make_shared<DeadlineExpiry>(clock, Instant{0s}, 1s));
    REQUIRE_FALSE(producer.start_frame(2));
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    clock.advance_to(Instant{2s});
    auto answer = consumer.poll_read_frame(waiter);
    REQUIRE(answer.value().is_error());
    CHECK(answer.value().error() == Error::old);
    // Sticky: the frame completing later does not undo the verdict, nor does the group
    // finishing for poll_finished (G10).
    REQUIRE_FALSE(producer.write_chunk("ok"));
    REQUIRE_FALSE(producer.end_frame());
    CHECK(consumer.poll_read_frame(waiter).value().error() == Error::old);
    REQUIRE_FALSE(producer.finish());
    auto finished = consumer.poll_finished(waiter);
    REQUIRE(finished.is_ready());
    REQUIRE(finished.value().is_error());
    CHECK(finished.value().error() == Error::old);
}

TEST_CASE("a_budget_change_wakes_a_parked_read") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    ManualClock clock;
    clock.advance_to(Instant{2s});
    GroupProducer producer{0};
    Route route;
    route.preferences.modify([](TestPreferences& p) { p.budget = 10s; });
    GroupConsumer consumer = producer.consume();
    consumer.with_expiry(std::make_shared<DeadlineExpiry>(clock, Instant{0s}, 10s));
    consumer.with_recover(route.recover(0));
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    route.preferences.modify([](TestPreferences& p) { p.budget = 1s; });
    CHECK(task.wakes() == 1);
    CHECK(ended(consumer.poll_read_frame(waiter)));
}

TEST_CASE("a_parked_group_wakes_when_the_route_changes") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer stalled{4};
    auto replacement = copy_of_group({"a", "b"});
    stalled.write_frame("a");
    Route route;
    GroupConsumer consumer = stalled.consume();
    consumer.with_recover(route.recover(0));
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "a");
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    route.serve(replacement);
    CHECK(task.wakes() == 1);
    // Continues at the same frame index on the new copy.
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "b");
}

TEST_CASE("a_failed_copy_continues_from_the_replacement") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer failing{4};
    auto replacement = copy_of_group({"a", "b"}, true);
    failing.write_frame("a");
    Route route;
    GroupConsumer consumer = failing.consume();
    consumer.with_recover(route.recover(0));
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "a");
    failing.abort(Error::route_failed);
    CHECK(consumer.poll_read_frame(waiter).is_pending());  // no replacement yet
    route.serve(replacement);
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "b");
    CHECK(ended(consumer.poll_read_frame(waiter)));
}

TEST_CASE("g11_a_route_that_ends_releases_a_waiting_read_with_its_error") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer failing{4};
    Route route;
    GroupConsumer consumer = failing.consume();
    consumer.with_recover(route.recover(0));
    failing.abort(Error::route_failed);
    CHECK(consumer.poll_read_frame(waiter).is_pending());  // waiting for a replacement
    route.route.modify([](TestRouteState& state) { state.end_with(Error::not_found); });
    CHECK(task.wakes() == 1);
    auto answer = consumer.poll_read_frame(waiter);
    REQUIRE(answer.is_ready());
    CHECK(answer.value().error() == Error::not_found);
}

TEST_CASE("an_end_an_ungated_read_hands_out_disarms_the_gate") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer failing{4};
    Route route;
    GroupConsumer consumer = failing.consume();
    consumer.with_recover(route.recover(0));
    failing.abort(Error::route_failed);
    park_until_armed(consumer, waiter);  // waiting for a replacement
    // The route's end is visible before its wake lands (it wakes after unlocking).
    route.route.modify_quietly([](TestRouteState& state) { state.end_with(Error::not_found); });
    auto finished = consumer.poll_finished(waiter);  // not gated: it walks and gives up
    REQUIRE(finished.is_ready());
    CHECK(finished.value().error() == Error::not_found);
    auto again = consumer.poll_read_frame(waiter);  // the gated read must not answer Pending
    REQUIRE(again.is_ready());
    CHECK(again.value().error() == Error::not_found);
    route.route.notify();
}

TEST_CASE("g11_an_error_a_recovering_read_hands_out_is_final") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer cancelled{4};
    auto replacement = copy_of_group({"a"}, true);
    Route route;
    GroupConsumer consumer = cancelled.consume();
    consumer.with_recover(route.recover(0));
    cancelled.abort(Error::cancel);  // a verdict: answered, not recovered from
    auto first = consumer.poll_read_frame(waiter);
    REQUIRE(first.is_ready());
    CHECK(first.value().error() == Error::cancel);
    route.serve(replacement);  // a later route cannot take the answer back
    auto again = consumer.poll_read_frame(waiter);
    REQUIRE(again.is_ready());
    CHECK(again.value().error() == Error::cancel);
}

namespace {

// A route that offers one more copy every time it is asked, each failed already.
class EndlessFailingRoute final : public moq::model::Recover {
public:
    using Answer = std::variant<moq::model::Replacement, Error>;
    explicit EndlessFailingRoute(int& adopted) : adopted_(&adopted) {}
    std::optional<Duration> poll_budget(const Waiter&) override { return std::nullopt; }
    bool wants(std::optional<Error>, const Waiter&) override { return true; }
    moq::kio::Poll<Answer> poll(std::size_t, std::optional<Error>, const Waiter&) override {
        GroupProducer copy{4};
        copy.abort(Error::route_failed);
        return Answer(moq::model::Replacement{copy.consume().cell(), nullptr, 0});
    }
    void adopt(const moq::model::Replacement&) override { ++*adopted_; }
    [[nodiscard]] std::unique_ptr<Recover> clone() const override {
        return std::make_unique<EndlessFailingRoute>(*this);
    }

private:
    int* adopted_;
};

}  // namespace

TEST_CASE("g11_a_read_adopts_at_most_eight_replacements_a_call") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer failing{4};
    failing.abort(Error::route_failed);
    int adopted = 0;
    GroupConsumer consumer = failing.consume();
    consumer.with_recover(std::make_unique<EndlessFailingRoute>(adopted));
    auto answer = consumer.poll_read_frame(waiter);
    REQUIRE(answer.is_ready());
    CHECK(answer.value().error() == Error::route_failed);
    CHECK(adopted == 8);
    auto again = consumer.poll_read_frame(waiter);  // final: no more adoptions
    REQUIRE(again.is_ready());
    CHECK(again.value().error() == Error::route_failed);
    CHECK(adopted == 8);
}

TEST_CASE("a_group_waiting_for_recovery_still_expires") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    ManualClock clock;
    GroupProducer failing{4};
    Route route;
    GroupConsumer consumer = failing.consume();
    consumer.with_expiry(std::make_shared<DeadlineExpiry>(clock, Instant{0s}, 1s));
    consumer.with_recover(route.recover(0));
    failing.write_frame("a");
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "a");
    failing.abort(Error::route_failed);
    CHECK(consumer.poll_read_frame(waiter).is_pending());  // waiting for a replacement
    task.reset();
    clock.advance_to(Instant{5s});
    CHECK(task.wakes() >= 1);
    auto answer = consumer.poll_read_frame(waiter);
    REQUIRE(answer.is_ready());
    CHECK(answer.value().error() == Error::old);  // what the failed copy held is lost
}

TEST_CASE("an_object_goes_stale_by_the_readers_budget") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    ManualClock clock;
    GroupProducer producer{0};
    Route route;
    route.preferences.modify([](TestPreferences& p) { p.budget = 1s; });
    GroupConsumer consumer = producer.consume();
    consumer.with_expiry(std::make_shared<DeadlineExpiry>(clock, Instant{0s}, 10s));
    consumer.with_recover(route.recover(0));
    CHECK(consumer.poll_read_object(waiter).is_pending());  // the verdict reads the budget
    producer.write_frame("x");
    auto object = consumer.poll_read_object(waiter);
    REQUIRE(object.value().is_item());
    CHECK(object.value().item().stale_at == Instant{1s});
}

// The gate on its own (the I rules of the spec).

TEST_CASE("i1_i3_a_gate_arms_after_a_pending_walk_and_parks_until_its_waiter_fires") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Idle<int> gate;
    CHECK_FALSE(gate.parked(waiter, 0));  // never walked
    const Waiter& through = gate.start(waiter, 0);
    gate.finish(false);  // a Ready walk leaves it unarmed
    CHECK_FALSE(gate.parked(waiter, 0));
    CHECK(&gate.start(waiter, 0) == &through);  // I2: the same waiter every walk
    gate.finish(true);
    CHECK(gate.parked(waiter, 0));
    CHECK_FALSE(gate.parked(waiter, 1));  // another kind of walk
    through.waker().wake();               // I4: an input fires the gate's waiter
    CHECK(task.wakes() == 1);
    CHECK_FALSE(gate.parked(waiter, 0));
}

TEST_CASE("i5_disarm_makes_the_next_read_walk") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Idle<int> gate;
    static_cast<void>(gate.start(waiter, 0));
    gate.finish(true);
    REQUIRE(gate.parked(waiter, 0));
    gate.disarm();
    CHECK_FALSE(gate.parked(waiter, 0));
}

TEST_CASE("i6_a_gate_wakes_the_task_that_walked_last") {
    WakeCounter first_task;
    WakeCounter second_task;
    const Waiter first{first_task.waker()};
    const Waiter second{second_task.waker()};
    Idle<int> gate;
    const Waiter& through = gate.start(first, 0);
    gate.finish(true);
    CHECK_FALSE(gate.parked(second, 0));  // another task walks
    static_cast<void>(gate.start(second, 0));
    gate.finish(true);
    through.waker().wake();
    CHECK(first_task.wakes() == 0);
    CHECK(second_task.wakes() == 1);
}

TEST_CASE("i8_a_gated_read_sets_its_gate_up_after_n_parks_in_a_row") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    moq::model::GatedRead<int> read{2};
    auto pending = [](const Waiter&) { return moq::kio::Poll<int>::pending(); };
    auto ready = [](const Waiter&) { return moq::kio::Poll<int>(7); };
    CHECK(read.walk(waiter, 0, true, pending).is_pending());
    CHECK(read.walk(waiter, 0, true, ready).is_ready());  // a Ready answer starts the count again
    CHECK(read.walk(waiter, 0, true, pending).is_pending());
    CHECK_FALSE(read.has_gate());
    CHECK(read.walk(waiter, 0, true, pending).is_pending());
    CHECK(read.has_gate());
    CHECK_FALSE(read.armed());  // set up unarmed: the next walk arms it
    CHECK_FALSE(read.answer_parked(waiter, 0, true));
    CHECK(read.walk(waiter, 0, true, pending).is_pending());
    CHECK(read.answer_parked(waiter, 0, true));
    // I9: five walks, one short answer.
    CHECK(read.counter().walks == 5);
    CHECK(read.counter().idle_answers == 1);
}

TEST_CASE("i10_with_the_gates_switched_off_every_read_walks") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Idle<int> gate;
    static_cast<void>(gate.start(waiter, 0));
    gate.finish(true);
    REQUIRE(gate.parked(waiter, 0));
    moq::model::set_gates_enabled(false);
    const bool parked_when_off = gate.parked(waiter, 0);
    moq::model::set_gates_enabled(true);
    CHECK_FALSE(parked_when_off);
    CHECK(gate.parked(waiter, 0));
}

TEST_CASE("i6_the_parked_task_is_known_by_its_waiter_or_by_will_wake") {
    WakeCounter task;
    WakeCounter other_task;
    const Waiter walked{task.waker()};
    Idle<int> gate;
    static_cast<void>(gate.start(walked, 0));
    gate.finish(true);
    const Waiter clone = walked;  // NOLINT(performance-unnecessary-copy-initialization)
    const Waiter same_task{task.waker()};
    REQUIRE(same_task.serial() != walked.serial());
    CHECK(gate.parked(walked, 0));
    CHECK(gate.parked(clone, 0));
    CHECK(gate.parked(same_task, 0));  // a new waiter of the same task: will_wake decides
    CHECK_FALSE(gate.parked(Waiter{other_task.waker()}, 0));
    // A walk by the new waiter keeps the task; the first waiter still parks by will_wake.
    static_cast<void>(gate.start(same_task, 0));
    gate.finish(true);
    CHECK(gate.parked(walked, 0));
    CHECK(gate.parked(same_task, 0));
}

TEST_CASE("i8_a_moved_gated_read_keeps_its_gate_and_leaves_none") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    moq::model::GatedRead<int> read{1};
    auto pending = [](const Waiter&) { return moq::kio::Poll<int>::pending(); };
    CHECK_FALSE(read.parked(waiter, 0));  // no gate yet: never parked
    CHECK(read.walk(waiter, 0, true, pending).is_pending());
    CHECK(read.walk(waiter, 0, true, pending).is_pending());
    REQUIRE(read.parked(waiter, 0));
    moq::model::GatedRead<int> moved{std::move(read)};
    CHECK(moved.parked(waiter, 0));
    CHECK(moved.has_gate());
    CHECK_FALSE(read.has_gate());  // NOLINT(bugprone-use-after-move): it is left without one
    CHECK_FALSE(read.parked(waiter, 0));
    moq::model::GatedRead<int> assigned{1};
    assigned = std::move(moved);
    CHECK(assigned.answer_parked(waiter, 0, true));
    CHECK_FALSE(moved.answer_parked(waiter, 0, true));  // NOLINT(bugprone-use-after-move)
    // The one left without a gate sets up its own: the gates are never shared.
    CHECK(moved.walk(waiter, 0, true, pending).is_pending());
    CHECK(moved.walk(waiter, 0, true, pending).is_pending());
    CHECK(moved.parked(waiter, 0));
    moved.disarm();
    CHECK_FALSE(moved.parked(waiter, 0));
    CHECK(assigned.parked(waiter, 0));
}

TEST_CASE("a_gate_frees_its_shared_block_once_the_gate_is_gone_though_a_list_still_holds_its_entry") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    std::ptrdiff_t while_armed = 0;
    const moq::test::AllocationScope scope;  // no check inside it: only the code under test allocates
    {
        moq::kio::WaiterList input;
        {
            Idle<int> gate;
            gate.start(waiter, 0).register_on(input);
            gate.finish(true);
            while_armed = scope.live();
        }
        input.wake();  // the gate is gone: its entry is dead and wakes nothing
    }
    const std::ptrdiff_t after = scope.live();
    CHECK(while_armed > 0);
    CHECK(after == 0);
    CHECK(task.wakes() == 0);
}

TEST_CASE("i8_a_gated_read_assigned_from_another_takes_its_threshold_parks_in_a_row_and_counts") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    auto pending = [](const Waiter&) { return moq::kio::Poll<int>::pending(); };
    moq::model::GatedRead<int> source{3};
    CHECK(source.walk(waiter, 0, true, pending).is_pending());  // one park of three
    moq::model::GatedRead<int> assigned{1};
    assigned = std::move(source);
    CHECK(assigned.walk(waiter, 0, true, pending).is_pending());
    CHECK_FALSE(assigned.has_gate());  // two parks in a row: the source's threshold is three
    CHECK(assigned.walk(waiter, 0, true, pending).is_pending());
    CHECK(assigned.has_gate());  // the third in a row, counting the one made before the move
    CHECK(assigned.counter().walks == 3);
}

TEST_CASE("i10_gates_enabled_answers_what_set_gates_enabled_chose") {
    moq::model::set_gates_enabled(false);
    const bool off = moq::model::gates_enabled();
    moq::model::set_gates_enabled(true);
    CHECK_FALSE(off);
    CHECK(moq::model::gates_enabled());
}

// The serial stands for the task only while a waiter holds it: a waiter moved from has
// no task to wake, so no gate is parked for it.
TEST_CASE("i6_a_waiter_moved_from_never_finds_the_gate_parked_for_it") {
    WakeCounter task;
    Waiter waiter{task.waker()};
    Idle<int> gate;
    static_cast<void>(gate.start(waiter, 0));
    gate.finish(true);
    REQUIRE(gate.parked(waiter, 0));
    const Waiter moved{std::move(waiter)};
    CHECK(gate.parked(moved, 0));
    CHECK_FALSE(gate.parked(waiter, 0));  // NOLINT(bugprone-use-after-move): what is left of it
}

// G11: a give-up is final for every kind of read, poll_finished's included, even once the
// route has moved on to a copy it could adopt.
TEST_CASE("g11_a_give_up_is_final_for_poll_finished") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer cancelled{4};
    Route route;
    GroupConsumer consumer = cancelled.consume();
    consumer.with_recover(route.recover(0));
    cancelled.abort(Error::cancel);  // a verdict: the read gives up while the route stays
    CHECK(consumer.poll_read_frame(waiter).value().error() == Error::cancel);
    route.serve(copy_of_group({"from the new copy"}, true));  // the route moves on after the give-up
    auto finished = consumer.poll_finished(waiter);
    REQUIRE(finished.is_ready());
    REQUIRE(finished.value().is_error());
    CHECK(finished.value().error() == Error::cancel);
}

namespace {

// A route that offers one replacement copy, with an expiry of its own.
class OneReplacement final : public moq::model::Recover {
public:
    using Answer = std::variant<moq::model::Replacement, Error>;
    OneReplacement(std::shared_ptr<GroupProducer> copy, std::shared_ptr<moq::model::Expiry> expiry)
        : copy_(std::move(copy)), expiry_(std::move(expiry)) {}
    std::optional<Duration> poll_budget(const Waiter&) override { return std::nullopt; }
    bool wants(std::optional<Error>, const Waiter&) override { return !adopted_; }
    moq::kio::Poll<Answer> poll(std::size_t, std::optional<Error>, const Waiter&) override {
        return Answer(moq::model::Replacement{copy_->consume().cell(), expiry_, 1});
    }
    void adopt(const moq::model::Replacement&) override { adopted_ = true; }
    [[nodiscard]] std::unique_ptr<Recover> clone() const override { return std::make_unique<OneReplacement>(*this); }

private:
    std::shared_ptr<GroupProducer> copy_;
    std::shared_ptr<moq::model::Expiry> expiry_;
    bool adopted_ = false;
};

}  // namespace

// G10, G11: a replacement that comes with an expiry of its own is judged by it from then on.
TEST_CASE("g11_a_replacement_with_an_expiry_of_its_own_is_judged_by_it") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    ManualClock clock;
    GroupProducer failing{4};
    failing.abort(Error::route_failed);
    auto replacement = std::make_shared<GroupProducer>(4);
    REQUIRE_FALSE(replacement->start_frame(2));  // a frame still arriving
    GroupConsumer consumer = failing.consume();
    consumer.with_recover(
        std::make_unique<OneReplacement>(replacement, std::make_shared<DeadlineExpiry>(clock, Instant{0s}, 1s)));
    CHECK(consumer.poll_read_frame(waiter).is_pending());  // on the replacement, its frame still arriving
    clock.advance_to(Instant{2s});
    auto answer = consumer.poll_read_frame(waiter);
    REQUIRE(answer.is_ready());
    REQUIRE(answer.value().is_error());
    CHECK(answer.value().error() == Error::old);
}
