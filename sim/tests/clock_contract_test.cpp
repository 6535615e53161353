// One contract, every clock: the manual clock tests drive by hand, the simulator's
// virtual clock (moved by the executor when no task can run), the system clock with its
// timer thread, and the system clock's code with its timer thread a simulated task. A wake at an instant already passed
// comes without time passing; a wake at `never` never comes; wakes whose deadlines tie all come when the time does; a
// wake asked again for an earlier instant comes at the earlier one. The simulated timer thread's lock and waits are
// sync points (MOQ_SYNC_POINTS).
#define MOQ_SYNC_POINTS 1

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "kio/manual_clock.hpp"
#include "kio/system_clock.hpp"
#include "kio/timer_thread_clock.hpp"
#include "sim/executor.hpp"
#include "sim/simulated_thread_platform.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Duration;
using moq::kio::Instant;
using moq::kio::Waiter;
using moq::test::WakeCounter;
using namespace std::chrono_literals;

namespace {

// A clock and the way its time passes.
class ClockUnderTest {
public:
    virtual ~ClockUnderTest() = default;
    virtual moq::kio::Clock& clock() = 0;
    // Lets `by` of the clock's time pass, firing what comes due.
    virtual void pass(Duration by) = 0;
    // Waits (if the clock's wakes come from another thread, up to `limit` of real time)
    // until `counter` has `wakes` wakes; its count then.
    virtual int settle(const WakeCounter& counter, int wakes, std::chrono::milliseconds limit) = 0;
    // Lets a timer thread that was woken run meanwhile, where the test can (a simulated
    // one); nothing elsewhere.
    virtual void let_timer_thread_run() {}
};

class Manual final : public ClockUnderTest {
public:
    moq::kio::Clock& clock() override { return clock_; }
    void pass(Duration by) override { clock_.advance_by(by); }
    int settle(const WakeCounter& counter, int, std::chrono::milliseconds) override { return counter.wakes(); }

private:
    moq::kio::ManualClock clock_;
};

// The executor's clock, from inside a simulated task: time passes while the task waits.
class Simulated final : public ClockUnderTest {
public:
    explicit Simulated(moq::sim::Task& task) : task_(task) {}
    moq::kio::Clock& clock() override { return task_.clock(); }
    void pass(Duration by) override {
        moq::kio::Deadline deadline{task_.clock()};
        deadline.after(by);
        task_.wait([&](const Waiter& waiter) { return deadline.poll(waiter); });
    }
    int settle(const WakeCounter& counter, int, std::chrono::milliseconds) override {
        task_.yield();
        return counter.wakes();
    }

private:
    moq::sim::Task& task_;
};

class System final : public ClockUnderTest {
public:
    moq::kio::Clock& clock() override { return clock_; }
    void pass(Duration by) override { std::this_thread::sleep_for(by); }
    int settle(const WakeCounter& counter, int wakes, std::chrono::milliseconds limit) override {
        const auto until = std::chrono::steady_clock::now() + limit;
        while (counter.wakes() < wakes && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
        return counter.wakes();
    }

private:
    moq::kio::SystemClock clock_;
};

// The system clock's code with its timer thread a task of the simulator, from another
// task: time passes while that task waits, and the wakes due have come once the timer
// thread waits again.
class TimerThread final : public ClockUnderTest {
public:
    TimerThread(moq::sim::Executor& executor, moq::sim::Task& task) : task_(task), clock_(executor, "timer") {
        clock_.platform().joined_by(task);
    }
    moq::kio::Clock& clock() override { return clock_; }
    void pass(Duration by) override {
        moq::kio::Deadline deadline{task_.clock()};
        deadline.after(by);
        task_.wait([&](const Waiter& waiter) { return deadline.poll(waiter); });
    }
    int settle(const WakeCounter& counter, int, std::chrono::milliseconds) override {
        clock_.platform().wait_parked(task_);
        return counter.wakes();
    }
    void let_timer_thread_run() override { task_.yield(); }

private:
    moq::sim::Task& task_;
    moq::kio::TimerThreadClock<moq::sim::SimulatedThreadPlatform> clock_;
};

void check_contract(ClockUnderTest& subject) {
    moq::kio::Clock& clock = subject.clock();
    // A system clock's timer thread gets a second for a wake that needs no time to pass.
    constexpr auto at_once = std::chrono::milliseconds(1000);

    // Each waiter lives until its wake is checked: a dropped waiter's registrations die.
    WakeCounter past;
    const Waiter past_waiter{past.waker()};
    const Instant start = clock.now();
    subject.pass(10ms);
    clock.wake_at(start, past_waiter);
    CHECK(subject.settle(past, 1, at_once) == 1);

    WakeCounter never;
    const Waiter never_waiter{never.waker()};
    clock.wake_at(Instant::never(), never_waiter);
    subject.pass(50ms);
    CHECK(subject.settle(never, 1, 20ms) == 0);

    WakeCounter first;
    WakeCounter second;
    const Waiter first_waiter{first.waker()};
    const Waiter second_waiter{second.waker()};
    const Instant tie = clock.now() + 20ms;
    clock.wake_at(tie, first_waiter);
    clock.wake_at(tie, second_waiter);
    subject.pass(20ms);
    CHECK(subject.settle(first, 1, at_once) == 1);
    CHECK(subject.settle(second, 1, at_once) == 1);

    // Asked for a far instant, then again for a near one: the near one is the wake's.
    WakeCounter moved;
    const Waiter waiter{moved.waker()};
    // Between the two, a timer thread woken by the first may look at its deadlines and
    // be about to wait: the second must reach it all the same.
    clock.wake_at(clock.now() + 1h, waiter);
    subject.let_timer_thread_run();
    clock.wake_at(clock.now() + 10ms, waiter);
    subject.pass(10ms);
    CHECK(subject.settle(moved, 1, at_once) >= 1);
}

}  // namespace

TEST_CASE("the_manual_clock_keeps_the_clock_contract") {
    Manual subject;
    check_contract(subject);
}

TEST_CASE("the_simulated_clock_keeps_the_clock_contract") {
    moq::sim::Options options;
    options.strategy.kind = moq::sim::StrategyKind::fifo;
    moq::sim::Executor executor{options};
    bool checked = false;
    executor.spawn("contract", [&](moq::sim::Task& task) {
        Simulated subject{task};
        check_contract(subject);
        checked = true;
    });
    CHECK(executor.run().outcome == moq::sim::Outcome::finished);
    CHECK(checked);
}

TEST_CASE("the_system_clock_keeps_the_clock_contract") {
    System subject;
    check_contract(subject);
}

// Under the random strategy the timer thread and the task interleave at the lock and the
// condition variable: every seed must keep the contract.
TEST_CASE("the_system_clocks_code_on_a_simulated_timer_thread_keeps_the_clock_contract") {
    for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
        CAPTURE(seed);
        moq::sim::Options options;
        options.seed = seed;
        options.strategy.kind = moq::sim::StrategyKind::random;
        moq::sim::Executor executor{options};
        bool checked = false;
        executor.spawn("contract", [&](moq::sim::Task& task) {
            TimerThread subject{executor, task};
            check_contract(subject);
            checked = true;
        });
        CHECK(executor.run().outcome == moq::sim::Outcome::finished);
        CHECK(checked);
    }
}
