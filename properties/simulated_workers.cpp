#include "properties/simulated_workers.hpp"

#include <string>
#include <utility>

#include "kio/deadline.hpp"
#include "kio/poll.hpp"
#include "util/assert.hpp"

namespace moq::properties {

template <class Body>
void SimulatedWorkers::spawn_worker(std::string name, bool delayed, Body body) {
    executor_.touch(this);
    ++(delayed ? delayed_ : running_);
    spawned_.push_back(executor_.spawn(std::move(name), [this, delayed, body = std::move(body)](sim::Task& task) {
        // Counted out however the drainer ends: one of the runtime's assertions may throw
        // out of it in the simulated build.
        struct Leaving {
            SimulatedWorkers& workers;
            ~Leaving() {
                workers.executor_.touch(&workers);
                if (--workers.running_ == 0 && workers.idle_) std::exchange(workers.idle_, std::nullopt)->wake();
            }
        };
        if (delayed) {
            // Waiting for its time, it holds no run back: the workers count as idle
            // meanwhile, so a settle neither waits for it nor lets time pass for it.
            body.wait(task);
            executor_.touch(this);
            --delayed_;
            ++running_;
        }
        Leaving leaving{*this};
        body.run();
    }));
}

void SimulatedWorkers::run(runtime::Drainer drainer) {
    struct Now {
        runtime::Drainer drainer;
        void wait(sim::Task&) const {}
        void run() const { drainer(); }
    };
    spawn_worker("worker" + std::to_string(++called_), false, Now{drainer});
}

void SimulatedWorkers::run_after(runtime::Drainer drainer, kio::Duration delay) {
    struct Later {
        runtime::Drainer drainer;
        kio::Duration delay;
        void wait(sim::Task& task) const {
            kio::Deadline until{task.clock()};
            until.set(task.clock().now() + delay);
            task.wait([&](const kio::Waiter& waiter) { return until.poll(waiter); });
        }
        void run() const { drainer(); }
    };
    spawn_worker("spread" + std::to_string(++called_), true, Later{drainer, delay});
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
