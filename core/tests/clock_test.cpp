#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "kio/manual_clock.hpp"
#include "kio/system_clock.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Deadline;
using moq::kio::Duration;
using moq::kio::Instant;
using moq::kio::ManualClock;
using moq::kio::Waiter;
using moq::test::WakeCounter;
using namespace std::chrono_literals;

TEST_CASE("a_deadline_fires_at_its_instant") {
    ManualClock clock;
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Deadline deadline{clock};
    deadline.after(10ms);
    CHECK(deadline.poll(waiter).is_pending());
    clock.advance_by(9ms);
    CHECK(task.wakes() == 0);
    CHECK(deadline.poll(waiter).is_pending());
    clock.advance_by(1ms);
    CHECK(task.wakes() == 1);
    CHECK(deadline.poll(waiter).is_ready());
    CHECK(deadline.poll(waiter).is_ready());  // stays ready
}

TEST_CASE("a_disarmed_deadline_never_fires_and_registers_nothing") {
    ManualClock clock;
    WakeCounter task;
    const Waiter waiter{task.waker()};
    const Deadline deadline{clock};
    CHECK(deadline.poll(waiter).is_pending());
    CHECK_FALSE(clock.next_deadline().has_value());
    clock.advance_by(1h);
    CHECK(task.wakes() == 0);
}

TEST_CASE("re_arming_later_defers_the_fire") {
    ManualClock clock;
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Deadline deadline{clock};
    deadline.after(5ms);
    CHECK(deadline.poll(waiter).is_pending());
    deadline.set(Instant{20ms});
    clock.advance_to(Instant{6ms});
    // The old registration fires (a spurious wake is allowed); the deadline is not due.
    CHECK(deadline.poll(waiter).is_pending());
    CHECK(clock.next_deadline() == Instant{20ms});
    clock.advance_to(Instant{20ms});
    CHECK(deadline.poll(waiter).is_ready());
}

TEST_CASE("the_manual_clock_reports_its_earliest_deadline_and_never_goes_back") {
    ManualClock clock;
    WakeCounter task;
    const Waiter waiter{task.waker()};
    clock.wake_at(Instant{30ms}, waiter);
    clock.wake_at(Instant{10ms}, waiter);
    CHECK(clock.next_deadline() == Instant{10ms});
    clock.advance_to(Instant{15ms});
    CHECK(task.wakes() == 1);
    CHECK(clock.next_deadline() == Instant{30ms});
    clock.advance_to(Instant{5ms});
    CHECK(clock.now() == Instant{15ms});
}

TEST_CASE("the_system_clock_wakes_a_deadline") {
    moq::kio::SystemClock clock;
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Deadline deadline{clock};
    deadline.after(2ms);
    CHECK(deadline.poll(waiter).is_pending());
    // Bounded: the timer thread must deliver well inside this.
    for (int i = 0; i < 2000 && task.wakes() == 0; ++i) std::this_thread::sleep_for(1ms);
    CHECK(task.wakes() == 1);
    CHECK(deadline.poll(waiter).is_ready());
}

TEST_CASE("a_deadline_too_far_to_represent_is_the_farthest_instant") {
    const Instant late{Duration::max() - 1s};
    CHECK(late + 10s == Instant{Duration::max()});
    CHECK(Instant{Duration::min() + 1s} + (-10s) == Instant{Duration::min()});
    CHECK(Instant{5s} + 2s == Instant{7s});
    CHECK(Instant{Duration::max()} - Instant{Duration::min()} == Duration::max());
    CHECK(Instant{Duration::min()} - Instant{Duration::max()} == Duration::min());
    CHECK(Instant{7s} - Instant{5s} == 2s);
}

TEST_CASE("a_deadline_after_a_far_duration_never_fires") {
    ManualClock clock;
    WakeCounter task;
    Deadline deadline{clock};
    clock.advance_to(Instant{1s});
    deadline.after(Duration::max());  // would wrap into the past without saturation
    CHECK(deadline.poll(Waiter{task.waker()}).is_pending());
    clock.advance_to(Instant{1000s});
    CHECK(task.wakes() == 0);
}

TEST_CASE("a_wake_asked_for_the_present_instant_comes_at_once") {
    ManualClock clock;
    WakeCounter task;
    clock.advance_to(Instant{3s});
    clock.wake_at(Instant{3s}, Waiter{task.waker()});  // due now: no timer, a wake at once
    CHECK(task.wakes() == 1);
    CHECK_FALSE(clock.next_deadline().has_value());
    clock.wake_at(Instant{1s}, Waiter{task.waker()});  // already past
    CHECK(task.wakes() == 2);
}

TEST_CASE("k16_a_deadline_at_never_registers_no_timer_and_never_fires") {
    ManualClock clock;
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Deadline deadline{clock};
    deadline.after(Duration::max());
    CHECK(deadline.at() == Instant::never());
    CHECK(deadline.poll(waiter).is_pending());
    // A timer at never would draw a simulated clock to the end of time.
    CHECK_FALSE(clock.next_deadline().has_value());
    clock.wake_at(Instant::never(), waiter);
    CHECK_FALSE(clock.next_deadline().has_value());
    // No clock reaches never: the farthest advance stops short of it.
    clock.advance_by(Duration::max());
    clock.advance_to(Instant::never());
    CHECK(clock.now() < Instant::never());
    CHECK(task.wakes() == 0);
    CHECK(deadline.poll(waiter).is_pending());
}

TEST_CASE("k16_a_near_max_instant_still_fires_and_a_step_past_it_is_never") {
    ManualClock clock;
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Deadline deadline{clock};
    const Instant last{Duration::max() - 1ns};
    deadline.set(last);
    CHECK(deadline.poll(waiter).is_pending());
    CHECK(clock.next_deadline() == last);
    clock.advance_to(Instant{Duration::max() - 2ns});
    CHECK(task.wakes() == 0);
    clock.advance_by(Duration::max());  // saturates: reaches the last instant, not never
    CHECK(clock.now() == last);
    CHECK(task.wakes() == 1);
    CHECK(deadline.poll(waiter).is_ready());
    deadline.after(1ns);
    CHECK(deadline.at() == Instant::never());
    CHECK(deadline.poll(waiter).is_pending());
    CHECK_FALSE(clock.next_deadline().has_value());
}

TEST_CASE("k14_the_system_clock_sleeps_through_a_far_deadline") {
    moq::kio::SystemClock clock;
    WakeCounter far_task;
    WakeCounter near_task;
    const Waiter far_waiter{far_task.waker()};
    const Waiter near_waiter{near_task.waker()};
    clock.wake_at(Instant{Duration::max() - 1s}, far_waiter);
    const std::uint64_t turns_before = clock.timer_turns();
    std::this_thread::sleep_for(20ms);
    // A deadline past the steady clock's range must not turn into one in the past, which
    // would spin the timer thread.
    CHECK(clock.timer_turns() - turns_before < 10);
    const std::uint64_t turns_at_near = clock.timer_turns();
    clock.wake_at(clock.now() + 2ms, near_waiter);
    for (int i = 0; i < 2000 && near_task.wakes() == 0; ++i) std::this_thread::sleep_for(1ms);
    CHECK(near_task.wakes() == 1);
    CHECK(far_task.wakes() == 0);
    // The count the check above reads is live: firing the near deadline took a turn.
    CHECK(clock.timer_turns() > turns_at_near);
}

// Rust parity (re_arming_to_the_same_instant_does_not_restart,
// disarming_a_live_countdown_stops_it, re_arming_after_disarm_fires_again).
TEST_CASE("a_deadline_set_again_keeps_its_instant_disarmed_stays_quiet_and_re_armed_fires") {
    ManualClock clock;
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Deadline deadline{clock};
    deadline.set(Instant{10ms});
    CHECK(deadline.poll(waiter).is_pending());
    clock.advance_to(Instant{6ms});
    deadline.set(Instant{10ms});  // the same instant: the countdown does not restart
    CHECK(deadline.poll(waiter).is_pending());
    clock.advance_to(Instant{10ms});
    CHECK(deadline.poll(waiter).is_ready());

    deadline.set(Instant{20ms});
    CHECK(deadline.poll(waiter).is_pending());
    deadline.disarm();
    clock.advance_to(Instant{30ms});  // the old registration may fire: a spurious wake
    CHECK(deadline.poll(waiter).is_pending());
    CHECK(deadline.poll(waiter).is_pending());
    task.reset();
    deadline.set(Instant{40ms});
    CHECK(deadline.poll(waiter).is_pending());
    clock.advance_to(Instant{40ms});
    CHECK(task.wakes() == 1);
    CHECK(deadline.poll(waiter).is_ready());
}
