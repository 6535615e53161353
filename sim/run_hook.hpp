// A process-wide call as each simulated run begins, for a caller that watches runs go by
// (moqsim's watchdog, which reports a run that never ends). It sees nothing of the run
// and changes nothing in it.
#pragma once

namespace moq::sim {

using RunBeginHook = void (*)();
// Null: none (the default).
void set_run_begin_hook(RunBeginHook hook);
// Executor::run calls it first.
void run_began();

}  // namespace moq::sim
