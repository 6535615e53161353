#include "properties/simulated_workers.hpp"

#include <string>
#include <utility>

#include "kio/deadline.hpp"
#include "kio/poll.hpp"
#include "util/assert.hpp"

namespace moq::properties {

void SimulatedWorkers::spawn_worker(std::string name, runtime::Drainer drainer, std::optional<kio::Duration> delay) {
    executor_.touch(this);
    ++(delay ? delayed_ : running_);
    spawned_.push_back(executor_.spawn(std::move(name), [this, drainer, delay](sim::Task& task) {
        if (delay) {
            // Waiting for its time, it holds no run back: the workers count as idle
            // meanwhile, so a settle neither waits for it nor lets time pass for it.
            kio::Deadline until{task.clock()};
            until.set(task.clock().now() + *delay);
            task.wait([&](const kio::Waiter& waiter) { return until.poll(waiter); });
            executor_.touch(this);
            --delayed_;
            ++running_;
        }
        // Counted out however the drainer ends: one of the runtime's assertions may throw
        // out of it in the simulated build.
        struct Leaving {
            SimulatedWorkers& workers;
            ~Leaving() {
                workers.executor_.touch(&workers);
                if (--workers.running_ == 0 && workers.idle_) std::exchange(workers.idle_, std::nullopt)->wake();
            }
        } leaving{*this};
        drainer();
    }));
}

void SimulatedWorkers::run(runtime::Drainer drainer) {
    spawn_worker("worker" + std::to_string(++called_), drainer, std::nullopt);
}

void SimulatedWorkers::run_after(runtime::Drainer drainer, kio::Duration delay) {
    spawn_worker("spread" + std::to_string(++called_), drainer, delay);
}

void SimulatedWorkers::stop_and_join() {
    executor_.touch(this);
    if (running_ != 0 || delayed_ != 0) {
        MOQ_ASSERT(joiner_ != nullptr);
        wait_until(*joiner_, true);
    }
    // As a thread pool's join: what every worker did happens before what comes next.
    for (const std::uint32_t worker : spawned_) executor_.joined(worker);
}

void SimulatedWorkers::wait_idle(sim::Task& task) { wait_until(task, false); }

void SimulatedWorkers::wait_until(sim::Task& task, bool delayed_too) {
    task.wait([&](const kio::Waiter& waiter) -> kio::Poll<kio::Done> {
        executor_.touch(this);
        if (running_ == 0 && (!delayed_too || delayed_ == 0)) return kio::Done{};
        idle_ = waiter.waker();
        return kio::Poll<kio::Done>::pending();
    });
}

}  // namespace moq::properties
