// Where the runtime's workers run. By default a pool of threads; a runtime may instead be
// given a host that runs each drainer its own way (the simulator runs each as a task),
// with the clock its tasks read, so the same runtime code runs under the model checker.
#pragma once

#include <cstddef>

#include "kio/time.hpp"
#include "runtime/variant.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

class Runtime;

// One worker's turn at the run queue: polls queued tasks until none is left, then returns.
// A spreading turn, given to WorkerHost::run_after, first checks that runs still wait
// longer than the runtime lets them before another core takes part; if not, it returns.
class Drainer {
public:
    enum class Turn { drain, spread };
    explicit Drainer(Runtime& runtime, Turn turn = Turn::drain) noexcept : runtime_(&runtime), turn_(turn) {}
    void operator()() const;
    [[nodiscard]] Turn turn() const noexcept { return turn_; }
    [[nodiscard]] bool same_runtime(const Drainer& other) const noexcept { return runtime_ == other.runtime_; }

private:
    Runtime* runtime_;
    Turn turn_;
};

class WorkerHost {
public:
    virtual ~WorkerHost() = default;
    // How many drainers may usefully run at once (the cores the host has).
    [[nodiscard]] virtual std::size_t cores() const = 0;
    // Runs `drainer` on a worker soon. From any thread, a worker included.
    virtual void run(Drainer drainer) = 0;
    // How long a queued run waits for a busy worker before the runtime calls another
    // drainer for it. On few cores a short burst of runs costs less on the core that made
    // it than spread over two, whose threads then share every cache line the tasks touch.
    // Zero: another drainer is called as soon as more runs wait than drainers drain.
    [[nodiscard]] virtual kio::Duration spread_delay() const { return kio::Duration::zero(); }
    // Runs the spreading `drainer` on a worker once `delay` has passed. Called only with
    // a spread delay, at most once until that drainer ran. From any thread.
    virtual void run_after(Drainer drainer, kio::Duration delay) = 0;
    // Waits until every drainer given to run has returned; the runtime has told them to
    // stop at their next run. Called once, from outside the workers.
    virtual void stop_and_join() = 0;
};

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
