// The runtime's workers as simulated tasks (runtime/workers.hpp's seam): each drainer the
// runtime calls is a new task of the executor, so the runtime's pool runs on the
// simulator, and joining parks the joiner until every one returned (a joiner that yielded
// in a loop instead would starve them under PCT, which always runs the task of highest
// priority). Every use of its count touches it (sim::Executor::touch) for explorations.
// A delayed call (run_after) is a worker task that first sleeps on the virtual clock; the
// workers count as idle while it sleeps, and the join waits for it too.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "kio/time.hpp"
#include "kio/waker.hpp"
#include "runtime/workers.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

class SimulatedWorkers final : public runtime::WorkerHost {
public:
    SimulatedWorkers(sim::Executor& executor, std::size_t cores, kio::Duration spread_delay = kio::Duration::zero())
        : executor_(executor), cores_(cores), spread_delay_(spread_delay) {}

    [[nodiscard]] std::size_t cores() const override { return cores_; }
    void run(runtime::Drainer drainer) override;
    [[nodiscard]] kio::Duration spread_delay() const override { return spread_delay_; }
    void run_after(runtime::Drainer drainer, kio::Duration delay) override;
    // Parks the joiner until no worker runs; returns at once outside a run when none does
    // (a runtime destroyed after its run ended well).
    void stop_and_join() override;

    // The task that shuts the runtime down.
    void joined_by(sim::Task& task) { joiner_ = &task; }
    // Parks `task` until no worker runs.
    void wait_idle(sim::Task& task);

private:
    // A worker task named `name` that runs `drainer`, counted while it runs; with a
    // `delay`, it first sleeps that long on the virtual clock, counted as delayed.
    void spawn_worker(std::string name, runtime::Drainer drainer, std::optional<kio::Duration> delay);
    // Parks `task` until no worker runs, and none is delayed either with `delayed_too`.
    void wait_until(sim::Task& task, bool delayed_too);

    std::optional<kio::Waker> idle_;  // the joiner's, while it waits
    sim::Executor& executor_;
    std::size_t cores_;
    kio::Duration spread_delay_;
    std::size_t running_ = 0;
    std::size_t delayed_ = 0;  // spreading turns waiting for their time
    std::size_t called_ = 0;
    std::vector<std::uint32_t> spawned_;  // every worker's task, for the join's order
    sim::Task* joiner_ = nullptr;
};

}  // namespace moq::properties
