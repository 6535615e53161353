// The deterministic executor. Tasks are fibers whose bodies are straight-line code:
// `task.wait(poll)` polls and, on Pending, suspends the fiber until its waker fires. Every
// point where a run could go more than one way (which task runs, a switch at a schedule
// point, the drive's faults, timer ties: sim/decisions.hpp) is asked of one decider,
// whichever it is: by default the seeded strategy its options name, from the run's seed.
// Time is a virtual clock that moves only when no task can run. Failures are reports,
// never hangs: deadlock, step budget, time budget, or a missed wake declared by a
// quiescence check.
#pragma once

#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/context/fiber.hpp>

#include "kio/clock.hpp"
#include "kio/park.hpp"
#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "sim/decider.hpp"
#include "sim/event.hpp"
#include "sim/happens_before.hpp"
#include "sim/random.hpp"
#include "sim/strategy.hpp"
#include "sim/trace.hpp"
#include "sim/virtual_clock.hpp"

namespace moq::sim {

struct Options {
    std::uint64_t seed = 1;
    // The seeded decider the executor makes from `seed`, unless `decider` is given.
    StrategyOptions strategy;
    // Asked instead at every decision (an exploration, a replay, the guided search); not
    // owned. The seed still feeds the task bodies' own draws (Task::random).
    Decider* decider = nullptr;
    // Drive modes: the world the decider decides in. By default a task is polled only
    // when its waker fired.
    bool eager = false;             // every parked task re-polled every step
    bool spurious_polls = false;    // a parked task may be polled without a wake
    bool fresh_task_polls = false;  // a poll may come from a new task identity
    bool schedule_points = true;    // switch tasks inside core walks
    // Switch tasks at the core's wake points too (inside wake paths).
    bool wake_points = false;
    // Switch tasks at the sync points of code built with them (core/kio/sync.hpp: the
    // runtime's atomics and locks); a lock another task holds parks the caller either way.
    bool sync_points = true;
    // At the end of a run that did not finish, leave the unfinished tasks' fibers as they
    // are instead of unwinding them: code on real threads (the runtime) catches every
    // exception of a poll and holds its locks through noexcept paths, so unwinding it
    // would end the process. Their stacks are kept for the rest of the process, so what
    // those frames point at must be kept too (see abandoned_runs()).
    bool abandon_unfinished = false;
    // The suite reports every state its tasks share: through schedule and sync points
    // that name their objects, the core's locks, and Executor::touch. A step's footprint
    // then starts empty where a task starts or goes on after a park, and a park, wake or
    // end touches only the task's own slot; otherwise each of these makes it unknown, and
    // an exploration lets no such step commute with another.
    bool footprints_complete = false;
    // Keep happens-before (sim/happens_before.hpp) over the orders of the sync points'
    // operations, spawns and the simulator's wakes, for Executor::stamp and saw.
    bool happens_before = false;
    // A wake polls a parked task at once, on the waking task's fiber, as executors that
    // run a woken task inline do; a task already polling records a re-poll instead. The
    // wakes of timers due together are then held and delivered in the decided order.
    bool inline_wakes = false;
    // Faults: the clock may jump past the next deadline, by up to clock_jump_max.
    bool clock_jumps = false;
    kio::Duration clock_jump_max = std::chrono::seconds(1);
    // Budgets that turn a hang into a report.
    std::uint64_t max_steps = 200000;
    kio::Duration max_time = std::chrono::hours(1);
    // Clock moves in a row with no task picked to run (tasks polled only inline from
    // timers that keep re-arming): past this the run is a livelock.
    std::uint64_t max_advances_without_step = 100000;
    // At quiescence with tasks still parked: a quiet end (true) or a deadlock (false).
    bool parked_at_quiescence_is_quiet = false;
    bool keep_trace = false;
    // Keep every decision the run made (RunResult::decisions): what a replay file holds.
    bool record_decisions = false;
    std::string replay_command;  // printed with a failure report
    std::size_t stack_size = std::size_t{256} * 1024;
};

enum class Outcome { finished, quiet, deadlock, livelock, time_budget, missed_wake, task_failed };
std::string_view outcome_name(Outcome outcome);

struct RunResult {
    Outcome outcome = Outcome::finished;
    std::string message;
    std::uint64_t seed = 0;
    std::uint64_t steps = 0;
    std::uint64_t polls = 0;
    std::uint64_t switches = 0;
    std::uint64_t wakes = 0;
    std::uint64_t digest = 0;
    std::uint64_t answers_digest = 0;  // the answer events alone (Trace::answers_digest)
    kio::Instant time;
    // With Options::record_decisions: every decision, and how many left a costly default
    // (the preemption bound the run used).
    std::vector<Decision> decisions;
    std::uint32_t costly_choices = 0;
    [[nodiscard]] bool ok() const { return outcome == Outcome::finished || outcome == Outcome::quiet; }
    // Several lines: what failed, the seed, the one command that replays it.
    [[nodiscard]] std::string report(std::string_view replay_command) const;
};

class Executor;

// What one task did, for efficiency checks (walks never exceed wakes plus fresh polls).
struct TaskStats {
    std::uint64_t polls = 0;
    std::uint64_t ready = 0;        // polls that answered Ready
    std::uint64_t wakes = 0;        // wakes delivered to its current identity
    std::uint64_t fresh_polls = 0;  // polls made from a new identity
    // Decision points it stood at: each time it was picked to run, and each schedule
    // point it passed (what SURW weighs a task by: sim/strategy.hpp).
    std::uint32_t events = 0;
};

namespace detail {
struct TaskSlot;
struct WakeTarget;
}  // namespace detail

// The handle a task body gets.
class Task {
public:
    // Polls `poll(waiter)` until Ready, suspending on Pending until the waker fires.
    template <class Poll>
    auto wait(Poll&& poll) {
        for (;;) {
            auto answer = poll(begin_poll());
            if (answer.is_ready()) {
                end_poll(true);
                return std::move(answer).value();
            }
            end_poll(false);
        }
    }
    // Like wait(), for a task that may still be parked when the run ends (a reader that
    // reads for ever): once the run is over and the executor winds its tasks up, it
    // answers std::nullopt, and the task returns. Any other wait unwinds the task's
    // frames by an exception then, which costs tens of thousands of instructions.
    template <class Poll>
    auto wait_until_over(Poll&& poll) {
        using Answer = std::decay_t<decltype(wait(std::forward<Poll>(poll)))>;
        for (;;) {
            auto answer = poll(begin_poll());
            if (answer.is_ready()) {
                end_poll(true);
                return std::optional<Answer>(std::move(answer).value());
            }
            if (!park_until_over()) return std::optional<Answer>();
        }
    }
    // Lets other tasks run; this one stays runnable.
    void yield();
    // A point where the strategy may switch to another task (as the core's hook does);
    // `object`: what the code up to this task's next point touches (null: unknown).
    void schedule_point(const char* where, const void* object = nullptr);

    [[nodiscard]] kio::Clock& clock();
    [[nodiscard]] Executor& executor() { return *executor_; }
    [[nodiscard]] std::uint32_t id() const;
    [[nodiscard]] std::string_view name() const;
    // Draws from this run's seed, for task bodies that make choices.
    Random& random();

private:
    friend class Executor;
    Task(Executor& executor, detail::TaskSlot& slot) : executor_(&executor), slot_(&slot) {}
    const kio::Waiter& begin_poll();
    void end_poll(bool ready);
    // After a Pending poll: false when the run is over instead of resumed.
    bool park_until_over();

    Executor* executor_;
    detail::TaskSlot* slot_;
};

class Executor {
public:
    explicit Executor(Options options);
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    std::uint32_t spawn(std::string name, std::function<void(Task&)> body);
    // Runs until every task finished or a failure.
    RunResult run();

    // Called when no task can run and no deadline is pending, before a deadlock is
    // declared: return a message to declare a missed wake.
    void on_quiescence(std::function<std::optional<std::string>()> check) { quiescence_ = std::move(check); }
    // Called when no task can run but a deadline is pending, before the clock moves to it:
    // every task is parked, so one that could go on has missed a wake already.
    void on_settled(std::function<std::optional<std::string>()> check) { settled_ = std::move(check); }

    // The digest of the suite's part of what decides the run's future: its core objects,
    // its model, and each task's own progress (which operation a driver is at). With it an
    // exploration may skip a decision point whose whole state it reached before.
    void on_state(std::function<std::uint64_t()> digest) { state_digest_ = std::move(digest); }

    // The running step touches `object`: state the tasks share that no schedule point,
    // atomic or core lock names (a suite's model and inboxes). An exploration lets two
    // steps commute only when neither touched what the other did. Null: unknown.
    void touch(const void* object) {
        if (footprints_) decider_->touched(object);
    }

    // With Options::happens_before: the running task's moment, and whether what a task
    // did up to `stamp` happens before the running task's next step (always true
    // without the option, which knows nothing of the orders).
    [[nodiscard]] Stamp stamp() const;
    [[nodiscard]] bool saw(Stamp stamp) const;
    // The running task joined `task`: what `task` did so far happens before its next
    // step (a thread's join, which a host of simulated threads calls as it returns).
    void joined(std::uint32_t task);

    [[nodiscard]] TaskStats task_stats(std::uint32_t task) const;
    [[nodiscard]] std::uint32_t task_count() const { return static_cast<std::uint32_t>(tasks_.size()); }
    [[nodiscard]] VirtualClock& clock() { return clock_; }
    // The clock has moved and the timers due are still firing: a task polled inline from
    // one of them may see the new time before its own deadline's wake has come.
    [[nodiscard]] bool firing_timers() const { return firing_timers_; }
    [[nodiscard]] const Trace& trace() const { return trace_; }
    [[nodiscard]] Trace& trace() { return trace_; }
    [[nodiscard]] const Options& options() const { return options_; }
    Random& random() { return task_random_; }
    // Records an event of the caller's (an operation, an answer, a verdict) in the trace,
    // and so in the digest, at this step and virtual time; an event that names no task is
    // the running task's. `message` is hashed with it (a failure's); `detail` is kept only
    // with a kept trace, so build it only when keeps_trace() says so.
    void record(Event event, std::string_view message = {}, std::string detail = {});
    [[nodiscard]] bool keeps_trace() const { return trace_.keeping(); }
    // A scenario's own event: its name and text.
    void note(const char* name, std::string_view text);

    // The task running now, if any (the schedule point hook needs it).
    static Executor* current();
    // The task running now, for code that several tasks run and that must park its caller
    // (a simulated platform's condition variable). Only from inside a task.
    Task running_task();
    // Tasks spawned and not finished: after a run, those whose fibers its destructor will
    // unwind, or leave as they are (Options::abandon_unfinished).
    [[nodiscard]] std::size_t unfinished_tasks() const { return unfinished_; }
    // How many runs of this process left fibers behind (Options::abandon_unfinished).
    static std::size_t abandoned_runs();

private:
    friend class Task;
    friend struct detail::WakeTarget;

    RunResult run_loop();
    // run_loop's parts: a thrown task's message; a parked task polled with no wake (when
    // the options ask for it); the clock moved to the next deadline, with the run's end if
    // that ends it; the end of a run with nothing runnable and no deadline; one task's step.
    [[nodiscard]] std::string thrown_task_message() const;
    void poll_spuriously();
    std::optional<RunResult> advance_clock(kio::Instant next);
    RunResult finish_idle();
    void step();
    // Makes the fiber of a spawned task. Making one switches to its stack and back, which
    // the sanitizers are told of only from the scheduler's stack: a task spawned by a
    // running task gets its fiber when it is first stepped.
    void make_fiber(detail::TaskSlot& slot);
    void wake(std::uint32_t task, std::uint64_t identity);
    void make_runnable(detail::TaskSlot& slot);
    // Runs `slot` until it suspends, from the scheduler or (an inline wake) from the
    // task that woke it; returns to whoever resumed it.
    void resume(detail::TaskSlot& slot);
    void suspend(detail::TaskSlot& slot);
    // Suspends `slot`; false when it is resumed only because the run is over.
    bool suspend_until_over(detail::TaskSlot& slot);
    void preempt_point(const char* where, const void* object);
    static void schedule_point_hook(const char* where, const void* object);
    // The sync hooks (core/kio/sync.hpp): a switch point, a lock held by another task
    // (the caller parks until it is released), a lock released.
    static void sync_point_hook(const char* where, const void* object);
    static void touched_hook(const void* object);
    static void sync_blocked_hook(const void* object);
    static void sync_released_hook(const void* object);
    static void sync_ordered_hook(const void* object, kio::SyncAccess access, std::memory_order order);
    static void sync_freed_hook(const char* what, const void* object);
    static void sync_yield_hook();
    void block_on(const void* object);
    void abandon_fibers();
    void release_blocked(const void* object);
    // The decision points (executor_decisions.cpp): the task to run, a switch at a
    // schedule point, a spurious poll, a fresh-task poll, a clock jump, and the order of
    // the timer wakes held back while the clock moved.
    std::uint32_t choose_pick(const std::vector<std::uint32_t>& candidates);
    // The running task spins until another acts (kio::sync_yield): it yields, and is not
    // picked again while another task can run, until another task has taken a step.
    void spin_yield();
    [[nodiscard]] bool spinning(std::uint32_t task) const;
    // The runnable tasks a pick chooses from: those not spinning, unless only spinners are.
    const std::vector<std::uint32_t>& pickable();
    void choose_preempt(detail::TaskSlot& slot, const char* where, const void* object);
    void choose_spurious_poll();
    [[nodiscard]] bool choose_fresh_poll();
    [[nodiscard]] kio::Duration choose_clock_jump();
    void deliver_timer_wakes();
    // The decider's choice at `point`, with the run's state digest when it wants one.
    std::uint32_t decide(DecisionPoint point);
    [[nodiscard]] std::uint64_t state_digest();
    // An object's number in this run: the order the state digest first met it (an
    // address differs between runs and between builds, so it cannot name a state).
    std::uint64_t object_number(const void* object);
    // Something no schedule point covers ran since the last decision.
    void touched_unknown() { touch(nullptr); }
    // The step changed what the executor keeps of `slot` (parked, woken, ended).
    void touched_task(const detail::TaskSlot& slot);
    // The runnable tasks but `task`, in a vector kept for the purpose (no allocation a step).
    const std::vector<std::uint32_t>& runnable_except(std::uint32_t task);
    // An executor's event: at this step and virtual time.
    void trace_event(const Event& event) { trace_.record(event, steps_, now_); }
    // Runs a check of the suite's at quiescence, its verdict recorded.
    std::optional<std::string> judge(const char* check, const std::function<std::optional<std::string>()>& judged);
    detail::WakeTarget* new_wake_target(std::uint32_t task);
    // After the clock was told to move to `to`: why it cannot go on, if it cannot.
    std::optional<std::string> clock_stuck(kio::Instant to) const;
    RunResult finish(Outcome outcome, std::string message);
    std::string parked_tasks() const;

    Options options_;
    Random random_;
    Random task_random_;
    std::unique_ptr<Decider> own_decider_;  // the seeded strategy, unless Options::decider
    Decider* decider_;                      // asked at every decision
    bool footprints_;                       // the decider wants footprints (touch, touched_task)
    bool wants_state_;                      // the decider wants each point's state digest
    // Options::record_decisions: each decision as its point gave it (the label a
    // literal's pointer), made into Decisions when the run ends.
    struct Taken {
        const char* where;
        DecisionKind kind;
        bool costly;
        std::uint32_t options;
        std::uint32_t choice;
        std::uint32_t fallback;
    };
    std::vector<Taken> taken_;
    VirtualClock clock_;
    Trace trace_;
    std::deque<std::unique_ptr<detail::TaskSlot>> tasks_;
    std::vector<std::uint32_t> runnable_;    // in the order tasks became runnable
    std::vector<std::uint32_t> others_;      // runnable_except's answer
    std::vector<std::uint32_t> spinning_;    // spun since another task last stepped (spin_yield)
    std::vector<std::uint32_t> pickable_;    // pickable's answer
    std::vector<detail::TaskSlot*> parked_;  // the parked tasks, when a spurious poll picks one
    detail::TaskSlot* running_ = nullptr;    // the innermost task running (inline wakes nest)
    bool firing_timers_ = false;             // the clock has moved and its timers are firing
    bool in_run_ = false;                    // inline wakes only while run() drives the tasks
    bool unwinding_ = false;                 // the destructor is unwinding unfinished tasks
    std::size_t unfinished_ = 0;             // tasks spawned and not finished
    std::uint64_t steps_ = 0;
    std::uint64_t polls_ = 0;
    std::uint64_t switches_ = 0;
    std::uint64_t wakes_ = 0;
    std::uint64_t next_identity_ = 1;
    std::uint64_t advances_without_step_ = 0;
    // The task a switch at a schedule point chose, the task the last step ran, the tasks
    // of a decision's choices, and the timer wakes held back while the clock moves (inline
    // wakes), delivered in the chosen order.
    std::uint32_t forced_next_ = UINT32_MAX;
    std::uint32_t last_stepped_ = UINT32_MAX;
    std::vector<std::uint32_t> choice_tasks_;
    bool holding_timer_wakes_ = false;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> held_wakes_;
    std::int64_t now_ = 0;                           // the clock's time (ns), read once each time it moves
    std::vector<detail::WakeTarget*> wake_targets_;  // every one made, each holding a reference
    std::function<std::optional<std::string>()> quiescence_;
    std::function<std::optional<std::string>()> settled_;
    std::function<std::uint64_t()> state_digest_;
    std::vector<const void*> numbered_objects_;                   // object_number's order
    std::vector<std::pair<const void*, std::uint32_t>> blocked_;  // tasks parked on a lock, by lock
    std::exception_ptr task_error_;
    HappensBefore happens_before_;  // with Options::happens_before
    std::string unordered_free_;    // the first free it found unordered after a use, if any
};

}  // namespace moq::sim
