#include "executor.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <utility>

#include "kio/schedule_point.hpp"
#include "kio/sync.hpp"
#include "sim/fiber_sanitizer.hpp"
#include "sim/run_hook.hpp"
#include "sim/stack_pool.hpp"
#include "sim/task_slot.hpp"
#include "util/assert.hpp"

namespace moq::sim {

using detail::TaskSlot;
using detail::WakeTarget;

namespace {

thread_local Executor* running_executor = nullptr;

// A failed core assertion during a run: thrown by the handler run() installs, so the
// task it happened in fails with its message (a case's report) instead of the whole
// program stopping.
class CoreAssertionFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Thrown inside a suspended task when the executor is destroyed before it finished, so
// its stack unwinds (destructors run) and it returns through its ordinary last switch.
struct TaskUnwound {};

// The stack allocator of a task's fiber: a stack of this thread's pool, told to the
// sanitizers.
class PooledStack {
public:
    PooledStack(std::size_t size, FiberSanitizer& sanitizer) : size_(size), sanitizer_(&sanitizer) {}
    boost::context::stack_context allocate() {
        boost::context::stack_context context = stack_pool::allocate(size_);
        sanitizer_->set_stack(static_cast<const char*>(context.sp) - context.size, context.size);
        return context;
    }
    void deallocate(boost::context::stack_context& context) noexcept { stack_pool::deallocate(context); }

private:
    std::size_t size_;
    FiberSanitizer* sanitizer_;
};

void throw_core_assertion(const char* file, int line, const std::string& what) {
    throw CoreAssertionFailed("moq assertion failed at " + std::string(file) + ":" + std::to_string(line) + ": " +
                              what);
}

}  // namespace

std::string_view outcome_name(Outcome outcome) {
    switch (outcome) {
        case Outcome::finished: return "finished";
        case Outcome::quiet: return "quiet";
        case Outcome::deadlock: return "deadlock";
        case Outcome::livelock: return "livelock";
        case Outcome::time_budget: return "time_budget";
        case Outcome::missed_wake: return "missed_wake";
        case Outcome::task_failed: return "task_failed";
    }
    return "unknown";
}

std::string RunResult::report(std::string_view replay_command) const {
    char digest_hex[17];
    std::snprintf(digest_hex, sizeof digest_hex, "%016llx", static_cast<unsigned long long>(digest));
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(time.since_start).count();
    std::string text = "moqsim: " + std::string(outcome_name(outcome)) + ": " + message + "\n";
    text += "  seed " + std::to_string(seed) + ", step " + std::to_string(steps) + ", virtual time " +
            std::to_string(millis) + " ms, digest " + digest_hex + "\n";
    if (!replay_command.empty()) text += "  replay: " + std::string(replay_command) + "\n";
    return text;
}

// ---- task handle ----

const kio::Waiter& Task::begin_poll() {
    TaskSlot& slot = *slot_;
    Executor& executor = *executor_;
    if (executor.options_.fresh_task_polls && executor.choose_fresh_poll()) {
        // The same body, polled from another task from now on.
        slot.identity = executor.new_wake_target(slot.id);
        ++slot.stats.fresh_polls;
        executor.trace_event(Event{.kind = EventKind::fresh_task, .task = slot.id}.with(
            1, static_cast<std::int64_t>(slot.identity->identity)));
    }
    slot.woken = false;
    ++slot.stats.polls;
    ++executor.polls_;
    return slot.park.hold(slot.identity->waker());
}

void Task::end_poll(bool ready) {
    if (ready) {
        TaskSlot& slot = *slot_;
        executor_->trace_event(
            Event{.kind = EventKind::poll, .code = static_cast<std::uint8_t>(PollResult::ready), .task = slot.id});
        ++slot.stats.ready;
        return;
    }
    if (!park_until_over()) throw TaskUnwound{};
}

bool Task::park_until_over() {
    TaskSlot& slot = *slot_;
    Executor& executor = *executor_;
    executor.trace_event(
        Event{.kind = EventKind::poll, .code = static_cast<std::uint8_t>(PollResult::pending), .task = slot.id});
    executor.touched_task(slot);
    if (slot.woken) {
        // Woken during its own poll: it runs again when picked.
        executor.make_runnable(slot);
    } else {
        slot.state = TaskSlot::State::parked;
    }
    return executor.suspend_until_over(slot);
}

void Task::yield() {
    executor_->touched_task(*slot_);
    executor_->make_runnable(*slot_);
    executor_->suspend(*slot_);
}

void Task::schedule_point(const char* where, const void* object) { executor_->preempt_point(where, object); }

kio::Clock& Task::clock() { return executor_->clock_; }
std::uint32_t Task::id() const { return slot_->id; }
std::string_view Task::name() const { return slot_->name; }
Random& Task::random() { return executor_->task_random_; }

// ---- executor ----

Executor::Executor(Options options)
    : options_(std::move(options)),
      random_(options_.seed),
      task_random_(random_.fork(1)),
      own_decider_(options_.decider ? nullptr : make_strategy(options_.strategy, random_.fork(2))),
      decider_(options_.decider ? options_.decider : own_decider_.get()),
      footprints_(decider_->wants_footprints()),
      wants_state_(decider_->wants_state()),
      trace_(options_.keep_trace),
      now_(clock_.now().since_start.count()) {
    trace_event(Event{.kind = EventKind::seed}.with(0, static_cast<std::int64_t>(options_.seed)));
}

Executor::~Executor() {
    if (options_.abandon_unfinished && unfinished_ != 0) abandon_fibers();
    // Unwind the fibers of tasks that never finished while the executor still exists:
    // each is resumed once more and returns, from a wait_until_over at once, from
    // anywhere else by TaskUnwound thrown where it was suspended.
    unwinding_ = true;
    for (auto& slot : tasks_)
        if (slot->fiber) resume(*slot);
    for (auto& slot : tasks_) slot->park.release();
    // Every target, current or old, goes dead: a waker kept past this point wakes nothing.
    for (WakeTarget* target : wake_targets_) {
        target->executor = nullptr;
        target->release();
    }
}

WakeTarget* Executor::new_wake_target(std::uint32_t task) {
    auto* target = new WakeTarget();
    target->executor = this;
    target->task = task;
    target->identity = next_identity_++;
    wake_targets_.push_back(target);
    return target;
}

Executor* Executor::current() { return running_executor; }

Task Executor::running_task() {
    MOQ_ASSERT(running_ != nullptr);
    return Task(*this, *running_);
}

namespace {

// The fibers of runs that ended with tasks unfinished and asked not to unwind them; kept
// (reachable, so no leak checker reports them) until the process ends.
std::vector<boost::context::fiber>& abandoned_fibers() {
    static auto* fibers = new std::vector<boost::context::fiber>();
    return *fibers;
}
std::size_t abandoned_run_count = 0;

}  // namespace

std::size_t Executor::abandoned_runs() { return abandoned_run_count; }

void Executor::abandon_fibers() {
    ++abandoned_run_count;
    for (auto& slot : tasks_)
        if (slot->fiber) abandoned_fibers().push_back(std::move(slot->fiber));
}

std::uint32_t Executor::spawn(std::string name, std::function<void(Task&)> body) {
    auto slot = std::make_unique<TaskSlot>();
    slot->id = static_cast<std::uint32_t>(tasks_.size());
    slot->name = std::move(name);
    slot->body = std::move(body);
    slot->identity = new_wake_target(slot->id);
    TaskSlot* raw = slot.get();
    if (options_.happens_before)
        happens_before_.spawned(running_ ? std::optional<std::uint32_t>(running_->id) : std::nullopt, raw->id);
    if (running_) {
        raw->fiber_pending = true;
        // Ids go in the order of spawns: two steps that spawn do not commute.
        touch(&tasks_);
    } else {
        make_fiber(*raw);
    }
    trace_event(Event{.kind = EventKind::spawn, .task = raw->id, .name = raw->name.c_str()});
    tasks_.push_back(std::move(slot));
    ++unfinished_;
    decider_->spawned(raw->id);
    runnable_.push_back(raw->id);
    return raw->id;
}

void Executor::make_fiber(TaskSlot& slot) {
    TaskSlot* raw = &slot;
    raw->fiber_pending = false;
    raw->fiber = boost::context::fiber(std::allocator_arg, PooledStack(options_.stack_size, raw->sanitizer),
                                       [this, raw](boost::context::fiber&& scheduler) {
                                           raw->sanitizer.arrived();
                                           raw->back = std::move(scheduler);
                                           try {
                                               if (!unwinding_) {
                                                   Task handle(*this, *raw);
                                                   raw->body(handle);
                                               }
                                           } catch (const TaskUnwound&) {
                                               // the executor is going away: this task ends here
                                           } catch (...) {
                                               task_error_ = std::current_exception();
                                           }
                                           raw->state = TaskSlot::State::finished;
                                           touched_task(*raw);
                                           --unfinished_;
                                           raw->sanitizer.leaving_for_good();
                                           return std::move(raw->back);
                                       });
    raw->sanitizer.created();
}

TaskStats Executor::task_stats(std::uint32_t task) const {
    MOQ_ASSERT_LT(task, tasks_.size());
    return tasks_[task]->stats;
}

void Executor::record(Event event, std::string_view message, std::string detail) {
    if (event.task == no_task && running_) event.task = running_->id;
    if (detail.empty())
        trace_.record(event, steps_, now_, message);
    else
        trace_.record(event, steps_, now_, message, std::move(detail));
}

std::optional<std::string> Executor::judge(const char* check,
                                           const std::function<std::optional<std::string>()>& judged) {
    std::optional<std::string> found = judged();
    const Verdict verdict = found ? Verdict::violated : Verdict::ok;
    trace_.record(Event{.kind = EventKind::verdict, .code = static_cast<std::uint8_t>(verdict), .name = check}, steps_,
                  now_, found ? std::string_view(*found) : std::string_view());
    return found;
}

void Executor::note(const char* name, std::string_view text) {
    trace_.record(Event{.kind = EventKind::note, .name = name}, steps_, now_, text);
}

// A task is in runnable_ exactly while its state is runnable.
void Executor::make_runnable(TaskSlot& slot) {
    if (slot.state == TaskSlot::State::runnable) return;
    slot.state = TaskSlot::State::runnable;
    runnable_.push_back(slot.id);
}

void Executor::wake(std::uint32_t task, std::uint64_t identity) {
    MOQ_ASSERT_LT(task, tasks_.size());
    if (holding_timer_wakes_) {
        held_wakes_.emplace_back(task, identity);
        return;
    }
    TaskSlot& slot = *tasks_[task];
    touched_task(slot);
    // The waking task, when a task wakes it (not the clock or the scheduler).
    Event event{.kind = EventKind::wake, .task = slot.id};
    if (running_) event.with(0, running_->id);
    if (slot.identity->identity != identity) {
        event.kind = EventKind::stale_wake;
        trace_event(event.with(1, static_cast<std::int64_t>(identity)));
        return;
    }
    ++wakes_;
    ++slot.stats.wakes;
    if (options_.happens_before && running_) happens_before_.woke(running_->id, slot.id);
    WakeEffect effect = WakeEffect::queued;
    switch (slot.state) {
        case TaskSlot::State::parked:
            slot.woken = true;
            if (options_.inline_wakes && in_run_) {
                // Polled right here, before the waker returns to the code that woke it.
                event.code = static_cast<std::uint8_t>(WakeEffect::inlined);
                trace_event(event);
                resume(slot);
                return;
            }
            make_runnable(slot);
            break;
        case TaskSlot::State::running:
            slot.woken = true;
            effect = WakeEffect::during_poll;
            break;
        case TaskSlot::State::runnable:
            slot.woken = true;
            effect = WakeEffect::deduplicated;
            break;
        case TaskSlot::State::finished: effect = WakeEffect::finished; break;
    }
    event.code = static_cast<std::uint8_t>(effect);
    trace_event(event);
}

void Executor::resume(TaskSlot& slot) {
    TaskSlot* const outer = running_;
    running_ = &slot;
    slot.state = TaskSlot::State::running;
    ++switches_;
    FiberSanitizer::Resuming switching = slot.sanitizer.resuming();
    slot.fiber = std::move(slot.fiber).resume();
    switching.returned(!slot.fiber);
    running_ = outer;
}

void Executor::suspend(TaskSlot& slot) {
    if (!suspend_until_over(slot)) throw TaskUnwound{};
}

bool Executor::suspend_until_over(TaskSlot& slot) {
    slot.sanitizer.leaving();
    slot.back = std::move(slot.back).resume();
    slot.sanitizer.arrived();
    return !unwinding_;
}

const std::vector<std::uint32_t>& Executor::runnable_except(std::uint32_t task) {
    // A spinner waits for another task to act: switching to it would only spin again.
    others_.clear();
    for (std::uint32_t id : runnable_)
        if (id != task && !spinning(id)) others_.push_back(id);
    return others_;
}

void Executor::preempt_point(const char* where, const void* object) {
    TaskSlot* slot = running_;
    if (!slot) return;
    if (!options_.wake_points && kio::is_wake_point(where)) {
        touch(object);  // the step goes on past it
        return;
    }
    ++slot->stats.events;
    choose_preempt(*slot, where, object);
}

void Executor::schedule_point_hook(const char* where, const void* object) {
    if (Executor* executor = running_executor) executor->preempt_point(where, object);
}

void Executor::sync_yield_hook() {
    if (Executor* executor = running_executor; executor && executor->running_)
        executor->spin_yield();
    else
        std::this_thread::yield();  // not a task of this run: a thread, which yields as it would
}

void Executor::spin_yield() {
    if (!spinning(running_->id)) spinning_.push_back(running_->id);
    running_task().yield();
}

bool Executor::spinning(std::uint32_t task) const {
    return std::find(spinning_.begin(), spinning_.end(), task) != spinning_.end();
}

const std::vector<std::uint32_t>& Executor::pickable() {
    if (spinning_.empty()) return runnable_;
    pickable_.clear();
    for (std::uint32_t id : runnable_)
        if (!spinning(id)) pickable_.push_back(id);
    return pickable_.empty() ? runnable_ : pickable_;
}

void Executor::sync_point_hook(const char* where, const void* object) {
    if (Executor* executor = running_executor; executor && executor->options_.sync_points)
        executor->preempt_point(where, object);
}

void Executor::touched_hook(const void* object) {
    if (Executor* executor = running_executor; executor && executor->running_) executor->touch(object);
}

void Executor::sync_blocked_hook(const void* object) {
    Executor* executor = running_executor;
    MOQ_ASSERT(executor != nullptr && executor->running_ != nullptr);
    executor->block_on(object);
}

void Executor::sync_released_hook(const void* object) {
    if (Executor* executor = running_executor) executor->release_blocked(object);
}

void Executor::sync_ordered_hook(const void* object, kio::SyncAccess access, std::memory_order order) {
    if (Executor* executor = running_executor; executor && executor->running_ && executor->options_.happens_before)
        executor->happens_before_.ordered(executor->running_->id, object, access, order);
}

void Executor::sync_freed_hook(const char* what, const void* object) {
    Executor* executor = running_executor;
    if (!executor || !executor->running_ || !executor->options_.happens_before) return;
    if (executor->unordered_free_.empty() && !executor->happens_before_.after_every_use(executor->running_->id, object))
        executor->unordered_free_ = "E4: " + std::string(what) + " freed by " + executor->running_->name +
                                    ", which does not happen after every use of its count: a data race on its memory";
}

void Executor::joined(std::uint32_t task) {
    // Outside a run (a host destroyed after it) nothing follows to order.
    if (running_ && options_.happens_before) happens_before_.woke(task, running_->id);
}

Stamp Executor::stamp() const {
    MOQ_ASSERT(running_ != nullptr);
    return happens_before_.stamp(running_->id);
}

bool Executor::saw(Stamp stamp) const {
    MOQ_ASSERT(running_ != nullptr);
    return !options_.happens_before || happens_before_.saw(running_->id, stamp);
}

void Executor::block_on(const void* object) {
    TaskSlot& slot = *running_;
    // One entry a task: one resumed by something else than the release (a spurious poll,
    // an eager step) and blocked again is not listed twice.
    std::erase_if(blocked_,
                  [&](const std::pair<const void*, std::uint32_t>& blocked) { return blocked.second == slot.id; });
    blocked_.emplace_back(object, slot.id);
    trace_event(Event{.kind = EventKind::preempt, .task = slot.id, .name = "blocked"});
    slot.state = TaskSlot::State::parked;
    touched_task(slot);
    // Its next step tries the lock again: it touches the lock.
    slot.resume_object = object;
    slot.stopped_at = "blocked";
    suspend(slot);
}

void Executor::release_blocked(const void* object) {
    // Every task parked on the lock tries again; one gets it, the others park again.
    std::erase_if(blocked_, [&](const std::pair<const void*, std::uint32_t>& blocked) {
        if (blocked.first != object) return false;
        make_runnable(*tasks_[blocked.second]);
        return true;
    });
}

std::string Executor::parked_tasks() const {
    std::string names;
    for (const auto& slot : tasks_) {
        if (slot->state != TaskSlot::State::parked) continue;
        if (!names.empty()) names += ", ";
        names += slot->name;
    }
    return names;
}

RunResult Executor::finish(Outcome outcome, std::string message) {
    const bool ok = outcome == Outcome::finished || outcome == Outcome::quiet;
    trace_.record(Event{.kind = EventKind::end, .code = static_cast<std::uint8_t>(outcome)}, steps_, now_,
                  ok ? std::string_view() : std::string_view(message));
    RunResult result;
    result.outcome = outcome;
    result.message = std::move(message);
    result.seed = options_.seed;
    result.steps = steps_;
    result.polls = polls_;
    result.switches = switches_;
    result.wakes = wakes_;
    result.digest = trace_.digest();
    result.answers_digest = trace_.answers_digest();
    result.time = clock_.now();
    result.decisions.reserve(taken_.size());
    for (const Taken& taken : taken_) {
        result.decisions.push_back(Decision{taken.kind, taken.options, taken.choice, taken.where, taken.fallback});
        if (taken.costly && taken.choice != taken.fallback) ++result.costly_choices;
    }
    return result;
}

std::optional<std::string> Executor::clock_stuck(kio::Instant to) const {
    const kio::Instant now = clock_.now();
    if (now < to)
        return "the clock cannot advance: told to move to " + std::to_string(to.since_start.count()) +
               " ns, it stays at " + std::to_string(now.since_start.count()) + " ns";
    // The clock fires every deadline at or before its time, so one still due fired nothing.
    if (const auto next = clock_.next_deadline(); next && *next <= now)
        return "advancing the clock fired nothing: a deadline at " + std::to_string(next->since_start.count()) +
               " ns is still pending at " + std::to_string(now.since_start.count()) + " ns";
    return std::nullopt;
}

RunResult Executor::run() {
    run_began();
    Executor* outer = running_executor;
    running_executor = this;
    const kio::SchedulePointHook previous = kio::schedule_point_hook.load();
    if (options_.schedule_points) kio::set_schedule_point_hook(&Executor::schedule_point_hook);
    static constexpr kio::SyncHooks sync_hooks{&Executor::sync_point_hook,   &Executor::touched_hook,
                                               &Executor::sync_blocked_hook, &Executor::sync_released_hook,
                                               &Executor::sync_ordered_hook, &Executor::sync_freed_hook,
                                               &Executor::sync_yield_hook};
    const kio::SyncHooks* previous_sync = kio::sync_hooks.load();
    kio::set_sync_hooks(&sync_hooks);
    const kio::CoreLockObserver previous_observer = kio::core_lock_observer.load();
    if (footprints_) kio::core_lock_observer.store(&Executor::touched_hook);
    in_run_ = true;
    const util::AssertionHandler previous_handler = util::set_assertion_handler(&throw_core_assertion);
    struct Restore {
        Executor* executor;
        Executor* outer;
        kio::SchedulePointHook previous;
        const kio::SyncHooks* previous_sync;
        kio::CoreLockObserver previous_observer;
        util::AssertionHandler previous_handler;
        ~Restore() {
            executor->in_run_ = false;
            running_executor = outer;
            kio::set_schedule_point_hook(previous);
            kio::set_sync_hooks(previous_sync);
            kio::core_lock_observer.store(previous_observer);
            util::set_assertion_handler(previous_handler);
        }
    } restore{this, outer, previous, previous_sync, previous_observer, previous_handler};
    try {
        return run_loop();
    } catch (const CoreAssertionFailed& failed) {
        return finish(Outcome::task_failed, failed.what());
    }
}

RunResult Executor::run_loop() {
    for (;;) {
        if (task_error_) return finish(Outcome::task_failed, thrown_task_message());
        // Found in a path that cannot throw (a release): the run fails at the next step.
        if (!unordered_free_.empty()) return finish(Outcome::task_failed, unordered_free_);
        if (unfinished_ == 0) return finish(Outcome::finished, "every task finished");
        poll_spuriously();
        if (runnable_.empty()) {
            if (const auto next = clock_.next_deadline()) {
                if (std::optional<RunResult> ended = advance_clock(*next)) return std::move(*ended);
                continue;
            }
            return finish_idle();
        }
        if (++steps_ > options_.max_steps)
            return finish(Outcome::livelock, "step budget of " + std::to_string(options_.max_steps) + " exceeded");
        advances_without_step_ = 0;
        step();
    }
}

std::string Executor::thrown_task_message() const {
    std::string what = "a task threw";
    try {
        std::rethrow_exception(task_error_);
    } catch (const std::exception& error) {
        what += ": " + std::string(error.what());
    } catch (...) {}
    return what;
}

void Executor::poll_spuriously() {
    if (options_.eager || !options_.spurious_polls) return;
    choose_spurious_poll();
}

std::optional<RunResult> Executor::advance_clock(kio::Instant next) {
    if (settled_) {
        if (std::optional<std::string> missed = judge("settled", settled_))
            return finish(Outcome::missed_wake, *missed);
    }
    kio::Instant to = next;
    touched_unknown();
    if (options_.clock_jumps && options_.clock_jump_max.count() > 0) to = to + choose_clock_jump();
    trace_event(Event{.kind = EventKind::time}.with(0, to.since_start.count()));
    firing_timers_ = true;  // an inline wake may poll a task before the last timer fired
    now_ = to.since_start.count();
    // Timers due together wake in an order the decider gives, where the order shows.
    holding_timer_wakes_ = options_.inline_wakes;
    clock_.advance_to(to);
    holding_timer_wakes_ = false;
    deliver_timer_wakes();
    now_ = clock_.now().since_start.count();
    firing_timers_ = false;
    if (std::optional<std::string> stuck = clock_stuck(to)) return finish(Outcome::livelock, *stuck);
    if (clock_.now().since_start > options_.max_time)
        return finish(Outcome::time_budget, "virtual time passed its budget");
    if (++advances_without_step_ > options_.max_advances_without_step)
        return finish(Outcome::livelock, "the clock moved more than " +
                                             std::to_string(options_.max_advances_without_step) +
                                             " times in a row with no task to run: timers keep firing "
                                             "without progress");
    return std::nullopt;
}

RunResult Executor::finish_idle() {
    // A task parked on a lock at the end waits for ever, whatever the run allows of parks.
    for (const auto& [lock, task] : blocked_)
        if (tasks_[task]->state == TaskSlot::State::parked)
            return finish(Outcome::deadlock, "a task waits for a lock no task will release: " + tasks_[task]->name +
                                                 "; parked: " + parked_tasks());
    if (quiescence_) {
        if (std::optional<std::string> missed = judge("quiescent", quiescence_))
            return finish(Outcome::missed_wake, *missed);
    }
    if (options_.parked_at_quiescence_is_quiet) return finish(Outcome::quiet, "quiet: " + parked_tasks());
    return finish(Outcome::deadlock, "every task parked, no deadline pending: " + parked_tasks());
}

void Executor::step() {
    const std::vector<std::uint32_t>& candidates = pickable();
    const std::uint32_t chosen = choose_pick(candidates);
    // Another task steps: every spinner may look again after it.
    if (!spinning(chosen)) spinning_.clear();
    runnable_.erase(std::find(runnable_.begin(), runnable_.end(), chosen));
    TaskSlot& slot = *tasks_[chosen];
    if (slot.fiber_pending) make_fiber(slot);
    trace_event(Event{.kind = EventKind::run, .task = slot.id});
    ++slot.stats.events;
    // Switched away at a point: what that point names (null: unknown); else it starts or
    // goes on after a park, which touched its slot.
    if (slot.stopped_at) {
        touch(slot.resume_object);
    } else {
        touched_task(slot);
    }
    slot.resume_object = nullptr;
    slot.stopped_at = nullptr;
    last_stepped_ = chosen;
    resume(slot);
    if (!options_.eager) return;
    // Every parked task is polled once more each step, woken or not. Done after the
    // strategy's pick, so a strict priority order cannot starve the others. By index: a
    // task resumed here may spawn another (Task::executor), which grows tasks_ and would
    // invalidate a range-for's iterators.
    for (std::size_t i = 0; i < tasks_.size(); ++i) {  // NOLINT(modernize-loop-convert)
        TaskSlot& parked = *tasks_[i];
        if (parked.state != TaskSlot::State::parked) continue;
        trace_event(Event{.kind = EventKind::eager, .task = parked.id});
        touched_unknown();
        resume(parked);
    }
}

}  // namespace moq::sim
