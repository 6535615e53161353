// Where the runtime's workers run. By default a pool of threads; a runtime may instead be
// given a host that runs each drainer its own way (the simulator runs each as a task),
// with the clock its tasks read, so the same runtime code runs under the model checker.
#pragma once

#include <cstddef>
#include "runtime/variant.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

class Runtime;

// One worker's turn at the run queue: polls queued tasks until none is left, then returns.
class Drainer {
public:
    explicit Drainer(Runtime& runtime) noexcept : runtime_(&runtime) {}
    void operator()() const;

private:
    Runtime* runtime_;
};

class WorkerHost {
public:
    virtual ~WorkerHost() = default;
    // How many drainers may usefully run at once (the cores the host has).
    [[nodiscard]] virtual std::size_t cores() const = 0;
    // Runs `drainer` on a worker soon. From any thread, a worker included.
    virtual void run(Drainer drainer) = 0;
    // Waits until every drainer given to run has returned; the runtime has told them to
    // stop at their next run. Called once, from outside the workers.
    virtual void stop_and_join() = 0;
};

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
