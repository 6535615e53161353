// The runtime suite: the real runtime (runtime/, built with its atomics and locks as sync
// points, core/kio/sync.hpp) in the simulator. Its workers are simulated tasks, called
// through the runtime's own worker seam (runtime/workers.hpp), and every operation on
// its task state words, reference counts and pool locks is a point where the simulator
// may switch, so a sweep samples, and an exploration enumerates, their interleavings.
//
// A case is a driver's script over up to three runtime tasks. Each task has an inbox; at
// every poll it reads its new messages: a note (nothing to do), a forward (post a note
// to another task and wake it, a wake across workers), a wake of itself during its own
// poll, a sleep (it asks the clock for a wake 10 ms on), or its end (it answers Ready).
// The clock is the system clock's code (kio/timer_thread_clock.hpp), its timer thread a
// simulated task (sim/simulated_thread_platform.hpp). The driver spawns tasks, posts messages and wakes
// them from outside the workers, drops join handles (the last drop may free a task),
// lets the workers settle, and may shut the runtime down with runs still queued.
// Judged by oracle/runtime_model (the E rules): no lost wake at rest, no two polls of one
// task at once, no poll after the end, shutdown ends every task, each poll function
// dropped once, each task freed once with no reference used after its count hit zero.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kio/deadline.hpp"
#include "kio/poll.hpp"
#include "kio/timer_thread_clock.hpp"
#include "kio/waker.hpp"
#include "oracle/runtime_model.hpp"
#include "properties/case_json.hpp"
#include "properties/commands.hpp"
#include "properties/drive.hpp"
#include "properties/scope.hpp"
#include "properties/simulated_workers.hpp"
#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "runtime/runtime.hpp"
#include "runtime/thread_pool.hpp"
#include "sim/executor.hpp"
#include "sim/simulated_thread_platform.hpp"
#include "sim/simulated_threads.hpp"
#include "util/assert.hpp"

namespace moq::properties {

namespace {

constexpr std::size_t task_count = 3;
constexpr std::size_t max_workers = 3;

// What a message asks of the task that reads it.
enum class Message : std::uint8_t { note, forward, self, finish, sleep };
constexpr std::array<const char*, 5> message_names{"note", "forward", "self", "finish", "sleep"};

// How far on a sleep asks the clock to wake its task.
constexpr kio::Duration sleep_delay = std::chrono::milliseconds(10);

using SimulatedClock = kio::TimerThreadClock<sim::SimulatedThreadPlatform>;
// The runtime's own thread pool, its threads simulated tasks.
using SimulatedPool = runtime::BasicThreadPool<sim::SimulatedThreads>;

// Where the runtime's drainers run: each a new simulated task (SimulatedWorkers), or the
// runtime's thread pool on simulated threads, whose park and wake handshakes are then
// explored too.
enum class Host : std::uint8_t { workers, pool };
constexpr std::array<const char*, 2> host_names{"workers", "pool"};

struct Letter {
    Message message = Message::note;
    std::uint8_t to = 0;  // forward: the task it posts a note to
    sim::Stamp posted;    // the poster's moment as it posted (E6)
};

struct Inbox {
    std::vector<Letter> letters;
    std::size_t read = 0;
    std::optional<kio::Waker> waker;  // the task's, once it polled
};

// What the tasks share besides the runtime: the model and the inboxes. Every use goes
// through model() or inbox(), which tell an exploration that the step touched the world
// (sim::Executor::touch), so two steps that both use it never commute, even when a sync
// point inside a wake split the code between them.
struct World {
    World(sim::Executor& runs, std::size_t cores, kio::Duration spread_delay)
        : executor(runs), workers(runs, cores, spread_delay) {}

    sim::Executor& executor;
    SimulatedWorkers workers;
    std::optional<SimulatedPool> pool;    // the host instead of `workers`, in a pool case
    std::optional<SimulatedClock> clock;  // the runtime's; outlives it
    std::optional<runtime::Runtime> runtime;
    std::array<runtime::JoinHandle, task_count> handles;  // the driver's alone
    std::size_t spawned = 0;                              // the driver's alone

    runtime::WorkerHost& host() { return pool ? static_cast<runtime::WorkerHost&>(*pool) : workers; }
    // Parks `task` until the host runs no drainer (delayed turns still waiting count as idle).
    void wait_idle(sim::Task& task) {
        if (pool)
            pool->platform().wait_idle(task, [this] { return !pool->waking(); });
        else
            workers.wait_idle(task);
    }

    oracle::RuntimeModel& model() {
        executor.touch(this);
        return model_;
    }
    Inbox& inbox(std::size_t task) {
        executor.touch(this);
        return inboxes_[task];
    }
    [[nodiscard]] const std::string& violation() const { return violation_; }

    void fail(std::optional<std::string> found) {
        executor.touch(this);
        trace_verdict(executor, found);
        if (found && violation_.empty()) violation_ = *found;
    }

    // The model first, then the letter, then the wake: a poll the wake causes must find
    // the letter, and every poll that begins once the wake returned must happen after the
    // post (E6).
    void post(std::size_t to, Letter letter) {
        model().posted(to);
        Inbox& inbox = this->inbox(to);
        letter.posted = executor.stamp();
        inbox.letters.push_back(letter);
        const std::size_t index = inbox.letters.size() - 1;
        if (inbox.waker) {
            const kio::Waker waker = *inbox.waker;
            waker.wake();
            model().delivered(to, index);
        }
    }

    // Where the poll that answered Ready ended, for the join handle's check (E6).
    void ended(std::size_t task, sim::Stamp at) {
        executor.touch(this);
        ended_at_[task] = at;
    }
    // Whether the running task's next step happens after that poll's end; true for a task
    // that never answered Ready.
    bool saw_end(std::size_t task) {
        executor.touch(this);
        return !ended_at_[task] || executor.saw(*ended_at_[task]);
    }

    void forget_wakers() {
        executor.touch(this);
        for (Inbox& inbox : inboxes_) inbox.waker.reset();
    }

private:
    oracle::RuntimeModel model_{task_count};
    std::array<Inbox, task_count> inboxes_;
    std::array<std::optional<sim::Stamp>, task_count> ended_at_;
    std::string violation_;
};

// Counts the poll function's drop (once: the moved-from copies count nothing).
class DropToken {
public:
    DropToken(World& world, std::size_t task) : world_(&world), task_(task) {}
    DropToken(DropToken&& other) noexcept : world_(std::exchange(other.world_, nullptr)), task_(other.task_) {}
    DropToken(const DropToken&) = delete;
    DropToken& operator=(const DropToken&) = delete;
    DropToken& operator=(DropToken&&) = delete;
    ~DropToken() {
        if (world_) world_->fail(world_->model().body_dropped(task_));
    }

private:
    World* world_;
    std::size_t task_;
};

// A runtime task's poll function: reads its new letters, does what they ask, and
// answers Ready once a `finish` was read.
class Body {
public:
    Body(World& world, std::size_t task) : world_(&world), task_(task), token_(world, task) {}

    kio::Poll<kio::Done> operator()(const kio::Waiter& waiter) {
        World& world = *world_;
        world.fail(world.model().poll_began(task_));
        world.model().polled_at(task_, world.clock->now().since_start.count());
        if (previous_end_) world.fail(world.model().after_previous_poll(task_, world.executor.saw(*previous_end_)));
        if (Inbox& inbox = world.inbox(task_); !inbox.waker) inbox.waker = waiter.waker();
        bool again = false;
        bool ready = false;
        // A forward's wake may switch tasks, and a letter posted meanwhile is read here too
        // (the inbox is asked for again after each: the step after a switch touches it anew).
        while (true) {
            Inbox& inbox = world.inbox(task_);
            if (inbox.read == inbox.letters.size()) break;
            const std::size_t index = inbox.read++;
            const Letter letter = inbox.letters[index];
            world.fail(world.model().after_post(task_, index, world.executor.saw(letter.posted)));
            switch (letter.message) {
                case Message::note: break;
                case Message::forward: world.post(letter.to, Letter{Message::note, 0, {}}); break;
                case Message::self: again = true; break;
                case Message::finish: ready = true; break;
                case Message::sleep: {
                    const kio::Instant at = world.clock->now() + sleep_delay;
                    world.model().timer_set(task_, at.since_start.count());
                    world.clock->wake_at(at, waiter);
                    break;
                }
            }
        }
        const std::size_t read = world.inbox(task_).read;
        world.fail(world.model().read(task_, read));
        trace_item(world.executor, "inbox", read, task_);
        if (again && !ready) {
            world.model().woke_itself(task_);
            waiter.waker().wake();
        }
        world.model().answered(task_, ready);
        previous_end_ = world.executor.stamp();
        if (ready) {
            world.ended(task_, *previous_end_);
            // An ended task needs no more wakes: its last reference may go on a worker,
            // where its free must follow every use of its count (E4).
            world.inbox(task_).waker.reset();
            return kio::Done{};
        }
        return kio::Poll<kio::Done>::pending();
    }

private:
    World* world_;
    std::size_t task_;
    DropToken token_;
    std::optional<sim::Stamp> previous_end_;  // where the last poll ended (E6)
};

struct Step {
    std::uint8_t command = 0;  // an index into Commands
    std::uint8_t task = 0;
    Message message = Message::note;
    std::uint8_t to = 0;
};

constexpr Argument task_argument{"task", 0, task_count};
constexpr Argument message_argument{"message", 0, message_names.size()};
constexpr Argument to_argument{"to", 0, task_count};

// Every command but yield needs the runtime, which `stop` destroys.
struct Running {
    static bool applies(const World& world, const Step&) { return world.runtime.has_value(); }
};
struct WithHandle {
    static bool applies(const World& world, const Step& step) {
        return world.runtime.has_value() && world.handles[step.task].valid();
    }
};

struct Spawn {
    static constexpr const char* name = "spawn";
    static constexpr std::size_t weight = 6;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World& world, const Step&) {
        return world.runtime.has_value() && world.spawned < task_count;
    }
    static void run(World& world, const Step&, sim::Task&) {
        const std::size_t task = world.spawned++;
        world.model().spawned(task);
        world.handles[task] = world.runtime->spawn(Body(world, task));
    }
};

// A letter from outside the workers, and its wake.
struct Post : Running {
    static constexpr const char* name = "post";
    static constexpr std::size_t weight = 20;
    static constexpr std::array<Argument, 3> arguments{task_argument, message_argument, to_argument};
    static void run(World& world, const Step& step, sim::Task&) {
        world.post(step.task, Letter{step.message, step.to, {}});
    }
};

// A wake with nothing new: the task polls and finds no letter.
struct Wake : WithHandle {
    static constexpr const char* name = "wake";
    static constexpr std::size_t weight = 4;
    static constexpr std::array<Argument, 1> arguments{task_argument};
    static void run(World& world, const Step& step, sim::Task&) { world.handles[step.task].waker().wake(); }
};

// The join handle goes; once the task is done, its last reference may go with it. A
// handle that answers finished first must see the task's end (E6): what its last poll
// and the runtime's finish wrote.
struct Drop : WithHandle {
    static constexpr const char* name = "drop";
    static constexpr std::size_t weight = 3;
    static constexpr std::array<Argument, 1> arguments{task_argument};
    static void run(World& world, const Step& step, sim::Task&) {
        runtime::JoinHandle& handle = world.handles[step.task];
        if (handle.finished()) world.fail(world.model().after_end(step.task, world.saw_end(step.task)));
        handle = runtime::JoinHandle();
    }
};

struct Yield {
    static constexpr const char* name = "yield";
    static constexpr std::size_t weight = 6;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World&, const Step&) { return true; }
    static void run(World&, const Step&, sim::Task& task) { task.yield(); }
};

// Until no worker runs: then every task must be at rest (E1).
void settle(World& world, sim::Task& task) {
    world.wait_idle(task);
    world.fail(world.model().at_rest());
}

struct Settle : Running {
    static constexpr const char* name = "settle";
    static constexpr std::size_t weight = 3;
    static constexpr auto& arguments = no_arguments;
    static void run(World& world, const Step&, sim::Task& task) { settle(world, task); }
};

// Shutdown at once, with runs maybe still queued: the runtime drops what is unfinished.
// Only once a task is spawned: a stop before would leave the case nothing to do.
struct Stop {
    static constexpr const char* name = "stop";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World& world, const Step&) { return world.runtime.has_value() && world.spawned != 0; }
    static void run(World& world, const Step&, sim::Task&) { world.runtime.reset(); }
};

using Commands = CommandTable<Spawn, Post, Wake, Drop, Yield, Settle, Stop>;

// A spread delay (runtime/workers.hpp) in the cases that have one: a sleep's, so a
// spreading turn armed with a sleep falls due with its timer, and the two race.
constexpr auto case_spread_delay = std::chrono::milliseconds(10);

struct RuntimeCase {
    std::vector<Step> steps;
    std::uint8_t workers = 1;
    bool spread = false;  // the workers' host has a spread delay
    Host host = Host::workers;
    std::uint64_t seed = 0;
};

// Every timer owed to a task that can still be polled (E1): wait for the latest, then
// for the timer thread to wait again (it fired what was due) and the workers to settle.
void settle_timers(World& world, sim::Task& task) {
    const std::optional<std::int64_t> latest = world.model().latest_timer();
    if (!latest) return;
    kio::Deadline until{task.clock()};
    until.set(kio::Instant{kio::Duration(*latest)});
    task.wait([&](const kio::Waiter& waiter) { return until.poll(waiter); });
    world.clock->platform().wait_parked(task);
    settle(world, task);
    world.fail(world.model().timers_at_rest(world.clock->now().since_start.count()));
}

// After the script: settle, the timers too, and shut down (unless a stop did), then
// judge every drop and join, and once every handle and registration is gone (the
// clock's timers hold some), the tasks' frees (E4, E5).
void wind_up(World& world, sim::Task& task, std::size_t unfreed_before) {
    if (world.runtime) {
        settle(world, task);
        settle_timers(world, task);
        world.runtime.reset();
    }
    world.clock.reset();  // joins its timer thread
    world.fail(world.model().shut_down());
    for (std::size_t index = 0; index < world.spawned; ++index) {
        const runtime::JoinHandle& handle = world.handles[index];
        if (handle.valid())
            world.fail(world.model().joined(index, handle.finished(), handle.finished() && handle.join()));
    }
    world.forget_wakers();
    for (runtime::JoinHandle& handle : world.handles) handle = runtime::JoinHandle();
    world.fail(world.model().freed(runtime::detail::unreleased_tasks() - unfreed_before,
                                   runtime::detail::uses_at_zero_count()));
    // While the world is still here: a task freed with its poll function (a count that
    // fell to zero too soon) drops it now, and its drop is judged.
    runtime::detail::free_released_tasks();
}

std::string describe_step(const Step& step) {
    std::string name = Commands::names[step.command];
    if (step.command == Commands::index_of<Post>()) {
        name += "(" + std::to_string(step.task) + "," + message_names[static_cast<std::size_t>(step.message)];
        if (step.message == Message::forward) name += "," + std::to_string(step.to);
        return name + ")";
    }
    if (Commands::has_arguments[step.command]) name += "(" + std::to_string(step.task) + ")";
    return name;
}

// The worlds of runs that ended with tasks unfinished: their fibers were left as they
// were (sim::Options::abandon_unfinished), holding the runtime's locks and pointing into
// the world, so the world is kept too.
std::vector<std::unique_ptr<World>>& abandoned_worlds() {
    static auto* worlds = new std::vector<std::unique_ptr<World>>();
    return *worlds;
}

CaseOutcome run_case(const RuntimeCase& value, const RunSettings& settings) {
    // Tasks an abandoned run released are forgotten, and those it still holds are counted
    // as there before this case (a case that ran to its end freed its own).
    runtime::detail::abandon_released_tasks();
    const std::size_t unfreed_before = runtime::detail::unreleased_tasks();
    sim::Options options = simulation_options(value.seed, Drive::woken, settings);
    options.parked_at_quiescence_is_quiet = false;  // a task parked on a lock at the end is a deadlock
    options.abandon_unfinished = true;
    options.footprints_complete = true;  // the runtime's atomics and locks, the world's touches
    options.happens_before = true;       // E6
    sim::Executor executor{options};
    auto world = std::make_unique<World>(executor, value.workers,
                                         value.spread ? kio::Duration(case_spread_delay) : kio::Duration::zero());

    executor.spawn("driver", [&](sim::Task& task) {
        World& driven = *world;
        driven.workers.joined_by(task);
        driven.clock.emplace(executor, "timer");
        driven.clock->platform().joined_by(task);
        if (value.host == Host::pool) {
            // One look before a thread parks: the spinner's window, at one switch point.
            const runtime::ThreadPoolSettings pool_settings{
                .spin_rounds = 1, .spread_delay = driven.workers.spread_delay(), .cores = value.workers};
            driven.pool.emplace(value.workers, pool_settings, executor);
        }
        driven.runtime.emplace(value.workers, driven.host(), *driven.clock);
        for (const Step& step : value.steps) {
            task.yield();
            Commands::run(
                step.command, driven, step,
                [&](const char* name) {
                    trace_operation(task, name, {step.task, static_cast<std::int64_t>(step.message), step.to});
                },
                task);
        }
        wind_up(driven, task, unfreed_before);
    });

    const sim::RunResult result = executor.run();
    CaseOutcome outcome = outcome_of(result, world->violation(), executor);
    if (executor.unfinished_tasks() != 0) abandoned_worlds().push_back(std::move(world));
    return outcome;
}

struct Traits {
    using Commands = moq::properties::Commands;

    static rc::Gen<RuntimeCase> generator(Mix mix) {
        return Commands::generator(mix, [](const rc::Gen<std::uint8_t>& kind) {
            const auto task = rc::gen::inRange<std::uint8_t>(0, task_count);
            const auto step = rc::gen::build<Step>(
                rc::gen::set(&Step::command, kind), rc::gen::set(&Step::task, task),
                rc::gen::set(&Step::message, rc::gen::weightedElement<Message>({{4, Message::note},
                                                                                {4, Message::forward},
                                                                                {2, Message::self},
                                                                                {1, Message::finish},
                                                                                {2, Message::sleep}})),
                rc::gen::set(&Step::to, task));
            return rc::gen::build<RuntimeCase>(
                rc::gen::set(&RuntimeCase::steps, rc::gen::container<std::vector<Step>>(step)),
                rc::gen::set(&RuntimeCase::workers, rc::gen::inRange<std::uint8_t>(1, max_workers + 1)),
                rc::gen::set(&RuntimeCase::spread, rc::gen::weightedElement<bool>({{3, false}, {1, true}})),
                rc::gen::set(&RuntimeCase::seed, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>())),
                // Drawn last, so every earlier draw (and the cases on the workers) stays as it was.
                rc::gen::set(&RuntimeCase::host,
                             rc::gen::weightedElement<Host>({{2, Host::workers}, {1, Host::pool}})));
        });
    }

    static CaseOutcome run(const RuntimeCase& value, const RunSettings& settings) { return run_case(value, settings); }

    static nlohmann::json to_json(const RuntimeCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps)
            steps.push_back({Commands::names[step.command], step.task,
                             message_names[static_cast<std::size_t>(step.message)], step.to});
        nlohmann::json json{{"steps", steps}, {"workers", value.workers}, {"seed", value.seed}};
        if (value.spread) json["spread"] = true;
        if (value.host != Host::workers) json["host"] = host_names[static_cast<std::size_t>(value.host)];
        return json;
    }

    static RuntimeCase from_json(const nlohmann::json& json) {
        if (!json.is_object()) throw std::invalid_argument("a runtime case is an object");
        RuntimeCase value;
        value.seed = require_u64(json, "seed");
        value.workers =
            require_small(json.contains("workers") ? json["workers"] : nlohmann::json(), max_workers, "workers");
        if (value.workers == 0) throw std::invalid_argument("workers must be 1 to " + std::to_string(max_workers));
        if (json.contains("spread")) {
            if (!json["spread"].is_boolean()) throw std::invalid_argument("spread is true or false");
            value.spread = json["spread"].get<bool>();
        }
        if (json.contains("host")) {
            const nlohmann::json& host = json["host"];
            const auto found = host.is_string()
                                   ? std::find(host_names.begin(), host_names.end(), host.get<std::string>())
                                   : host_names.end();
            if (found == host_names.end()) throw std::invalid_argument("host is \"workers\" or \"pool\"");
            value.host = static_cast<Host>(found - host_names.begin());
        }
        for (const nlohmann::json& step : require_array(json, "steps")) {
            if (!step.is_array() || step.size() != 4 || !step[0].is_string() || !step[2].is_string())
                throw std::invalid_argument("a step is [name, task, message, to]");
            const auto name = step[0].get<std::string>();
            const auto found = Commands::find(name);
            if (!found) throw std::invalid_argument("unknown step '" + name + "'");
            const auto message = step[2].get<std::string>();
            const auto kind = std::find(message_names.begin(), message_names.end(), message);
            if (kind == message_names.end()) throw std::invalid_argument("unknown message '" + message + "'");
            value.steps.push_back(Step{*found, require_small(step[1], task_count - 1, "task"),
                                       static_cast<Message>(kind - message_names.begin()),
                                       require_small(step[3], task_count - 1, "to")});
        }
        return value;
    }

    static std::string describe(const RuntimeCase& value) {
        std::string out = std::to_string(value.workers) + " worker" + (value.workers == 1 ? "" : "s") +
                          (value.host == Host::pool ? " on the thread pool" : "") +
                          (value.spread ? ", spread after 10 ms" : "") + ", seed " + std::to_string(value.seed) + ":";
        for (const Step& step : value.steps) out += " " + describe_step(step);
        return out;
    }

    // Two workers or one, two with a spread delay, and one thread of the pool (two make
    // its exploration eight times larger); tasks 0 and 1 (spawned in order, so
    // no renaming), seed 0.
    static SmallScope small_scope() {
        std::vector<nlohmann::json> steps;
        const auto step = [](const char* name, int task, const char* message, int to) {
            return nlohmann::json{name, task, message, to};
        };
        for (const char* name : {"spawn", "yield", "settle", "stop"}) steps.push_back(step(name, 0, "note", 0));
        for (int task : {0, 1}) {
            for (const char* message : {"note", "self", "finish", "sleep"})
                steps.push_back(step("post", task, message, 0));
            steps.push_back(step("post", task, "forward", 1 - task));
            for (const char* name : {"wake", "drop"}) steps.push_back(step(name, task, "note", 0));
        }
        SmallScope scope;
        for (int workers : {1, 2}) scope.shapes.push_back({nlohmann::json{{"workers", workers}, {"seed", 0}}, steps});
        scope.shapes.push_back({nlohmann::json{{"workers", 2}, {"spread", true}, {"seed", 0}}, steps});
        scope.shapes.push_back({nlohmann::json{{"workers", 1}, {"host", "pool"}, {"seed", 0}}, steps});
        return scope;
    }
};

}  // namespace

const Suite& runtime_suite() {
    static const TypedSuite<RuntimeCase, Traits> suite{
        "runtime",
        "the runtime's task state words, references and pool on simulated workers, and the system clock's timer "
        "thread, with happens-before: E1-E6",
        2000};
    return suite;
}

}  // namespace moq::properties
