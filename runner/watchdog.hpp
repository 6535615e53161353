// A hang is a finding. A run that loops without reaching a schedule point never gives
// control back to the simulator, so no step or virtual-time budget can end it: a sweep
// would stay silent until its job is killed. The process's watchdog, a thread of wall
// time, watches the cases go by; when none ends within the limit it prints what was
// running and the command that runs it again, and ends the process with status 1 (a case
// failed). Wall time only ends the process: it never changes a run, a digest or a result.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace moq::runner::watchdog {

inline constexpr std::uint64_t default_limit_seconds = 300;

// What runs now, given the two numbers at() last passed: a line naming it, and the
// command that runs it again.
struct Described {
    std::string what;
    std::string again;
};
using Describe = std::function<Described(std::uint64_t first, std::uint64_t second)>;

// Where the watch reads the time: the steady clock, or a test's own, which moves as the
// test says, so that no test waits out a limit of wall time.
using Now = std::chrono::steady_clock::time_point (*)();

// Starts the watch (once a process; a later call changes only the limit and the clock).
// After `limit_seconds` in which no simulated run (sim/run_hook.hpp) began and at() was
// not called, the process ends. The watch looks eight times a limit of wall time (20 ms to
// 5 s apart), reading `now` each time.
void start(std::uint64_t limit_seconds, Now now = &std::chrono::steady_clock::now);
// What is run from here on. Called on the watchdog's thread only when it fires, so it may
// read what the caller keeps unchanged while it runs.
void describe(Describe describe);
// Ends the watch: the thread joined, the description dropped. moqsim's main calls it
// before what the descriptions point at goes away.
void stop();
// A new case (an explored schedule, a replay) begins, with the numbers describe() names
// it by: two relaxed stores and an increment, cheap enough for every schedule.
void at(std::uint64_t first, std::uint64_t second);

}  // namespace moq::runner::watchdog
