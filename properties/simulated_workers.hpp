// The runtime's workers as simulated tasks (runtime/workers.hpp's seam): each drainer the
// runtime calls is a new task of the executor, so the runtime's pool runs on the
// simulator, and joining parks the joiner until every one returned (a joiner that yielded
// in a loop instead would starve them under PCT, which always runs the task of highest
// priority). Every use of its count touches it (sim::Executor::touch) for explorations.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "kio/waker.hpp"
#include "runtime/workers.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

class SimulatedWorkers final : public runtime::WorkerHost {
public:
    SimulatedWorkers(sim::Executor& executor, std::size_t cores) : executor_(executor), cores_(cores) {}

    [[nodiscard]] std::size_t cores() const override { return cores_; }
    void run(runtime::Drainer drainer) override;
    // Parks the joiner until no worker runs; returns at once outside a run when none does
    // (a runtime destroyed after its run ended well).
    void stop_and_join() override;

    // The task that shuts the runtime down.
    void joined_by(sim::Task& task) { joiner_ = &task; }
    // Parks `task` until no worker runs.
    void wait_idle(sim::Task& task);

private:
    std::optional<kio::Waker> idle_;  // the joiner's, while it waits
    sim::Executor& executor_;
    std::size_t cores_;
    std::size_t running_ = 0;
    std::size_t called_ = 0;
    std::vector<std::uint32_t> spawned_;  // every worker's task, for the join's order
    sim::Task* joiner_ = nullptr;
};

}  // namespace moq::properties
