#include "sim/run_hook.hpp"

#include <atomic>

namespace moq::sim {

namespace {
std::atomic<RunBeginHook> run_begin_hook{nullptr};
}

void set_run_begin_hook(RunBeginHook hook) { run_begin_hook.store(hook, std::memory_order_release); }

void run_began() {
    if (const RunBeginHook hook = run_begin_hook.load(std::memory_order_acquire)) hook();
}

}  // namespace moq::sim
