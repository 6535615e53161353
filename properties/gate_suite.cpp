// The gate suite: Idle<int> on its own, in the simulator. A reader task owns a small
// gated read over a cell: each walk looks at the value and, below the reader's target,
// registers the gate's waiter and parks. The read runs through Idle<int> directly
// (parked / start / finish, as the group and track reads use it) or through
// GatedRead<int> with its lazy set-up. A writer task writes the value (waking, or
// quietly with a notify later), asks the reader to change its target (the reader's own
// change, so a disarm point), pokes the reader's task (a wake from another future,
// which the gate must ride out without walking), yields and waits. Checked: a parked
// reader owed a look by a write or its own change never stays parked with the value at
// its target (missed wake); the gate never answers for a look that is out of date; a
// re-poll no input woke walks nothing; a poll from a new task walks; a walk its gate's
// waiter fired during leaves the gate unarmed; walks that find nothing stay in budget.
#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "kio/cell.hpp"
#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "model/gated_read.hpp"
#include "model/idle.hpp"
#include "oracle/gate_model.hpp"
#include "properties/commands.hpp"
#include "properties/drive.hpp"
#include "properties/poll_checks.hpp"
#include "properties/scope.hpp"
#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

namespace {

using namespace std::chrono_literals;

// The writer's world: the watched value, the reader's mailbox and the model.
struct World {
    explicit World(sim::Executor& runs) : executor(runs) {}

    sim::Executor& executor;
    kio::Producer<int> cell{0};
    // New targets for the reader; an empty one only wakes its task, as another future of
    // the same task would.
    Mailbox<std::optional<int>> mailbox;
    oracle::GateModel oracle;
    std::string violation;

    // Every verdict goes to the trace; the first violation is the case's.
    void fail(std::optional<std::string> found) {
        trace_verdict(executor, found);
        if (found && violation.empty()) violation = *found;
    }
    // The shared idle-path checks, under their rules: a poll from a new task (I6), a
    // re-poll nothing woke (I1).
    void fail_idle(std::optional<std::string> found) {
        if (found) fail((found->find("new task") != std::string::npos ? "I6: " : "I1: ") + *found);
    }
};

kio::Duration wait_of(std::uint8_t value) { return (value % 10 + 1) * 10ms; }

// Every step draws its byte from 0 to 15, whatever its command.
constexpr std::uint32_t value_high = 16;

// The commands, one operation each (see properties/commands.hpp). The model hears a
// write before the real one, and when its wakes are delivered: a wake may poll the
// reader inside the write (inline), which must find the model already told.
struct Write {
    static constexpr const char* name = "write";
    static constexpr std::size_t weight = 30;
    static constexpr std::array<Argument, 1> arguments{Argument{"value", 0, value_high}};
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World& world, std::uint8_t value, sim::Task&) {
        world.oracle.written(value, true);
        world.cell.modify([&](int& held) { held = value; });
        world.oracle.delivered();
    }
};

// A write that wakes nobody (a notify may follow).
struct Quiet {
    static constexpr const char* name = "quiet";
    static constexpr std::size_t weight = 10;
    static constexpr std::array<Argument, 1> arguments{Argument{"value", 0, value_high}};
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World& world, std::uint8_t value, sim::Task&) {
        world.oracle.written(value, false);
        world.cell.modify_quietly([&](int& held) { held = value; });
    }
};

struct Notify {
    static constexpr const char* name = "notify";
    static constexpr std::size_t weight = 8;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World& world, std::uint8_t, sim::Task&) {
        world.oracle.notified();
        world.cell.notify();
        world.oracle.delivered();
    }
};

// The reader's own change, applied at its next poll.
struct Target {
    static constexpr const char* name = "target";
    static constexpr std::size_t weight = 10;
    static constexpr std::array<Argument, 1> arguments{Argument{"target", 0, value_high}};
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World& world, std::uint8_t target, sim::Task&) { world.mailbox.post(target); }
};

struct Poke {
    static constexpr const char* name = "poke";
    static constexpr std::size_t weight = 8;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World& world, std::uint8_t, sim::Task&) { world.mailbox.post(std::nullopt); }
};

struct Yield {
    static constexpr const char* name = "yield";
    static constexpr std::size_t weight = 6;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World&, std::uint8_t, sim::Task& task) { task.yield(); }
};

struct Wait {
    static constexpr const char* name = "wait";
    static constexpr std::size_t weight = 8;
    static constexpr std::array<Argument, 1> arguments{Argument{"tens_of_ms", 0, value_high}};
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World&, std::uint8_t tens, sim::Task& task) {
        kio::Deadline deadline{task.clock()};
        deadline.after(wait_of(tens));
        task.wait([&](const kio::Waiter& waiter) { return deadline.poll(waiter); });
    }
};

using Commands = CommandTable<Write, Quiet, Notify, Target, Poke, Yield, Wait>;

struct Step {
    std::uint8_t command = 0;  // an index into Commands
    std::uint8_t value = 0;    // write, quiet: the value; target: the new target; wait: tens of ms
};

// How the reader's read is gated.
enum class Mode : std::uint8_t { idle, gated_one, gated_two };
constexpr std::array<const char*, 3> mode_names{"idle", "gated1", "gated2"};

struct GateCase {
    std::vector<Step> steps;
    Mode mode = Mode::idle;
    Drive drive = Drive::woken;
    std::uint64_t seed = 0;
};

// Walks no wake pays for: the first poll's, and the parks a lazily made gate waits for.
std::uint64_t setup_walks(Mode mode) {
    switch (mode) {
        case Mode::idle: return 1;
        case Mode::gated_one: return 2;
        case Mode::gated_two: return 3;
    }
    return 3;
}

// The reader: a small gated read over the cell, through Idle<int> directly (parked /
// start / finish, as the group and track reads use it) or through GatedRead<int> with its
// lazy set-up. Each walk looks at the value and, below the target, parks.
class Reader {
public:
    Reader(World& world, sim::Task& task, Mode mode)
        : world_(world),
          task_(task),
          mode_(mode),
          input_(world.cell.consume()),
          gated_(mode == Mode::gated_one ? 1 : 2) {}

    kio::Poll<int> poll(const kio::Waiter& waiter) {
        checks_.begin(task_, walks_, world_.mailbox, world_.oracle.delivering());
        const bool changed = apply_targets(waiter);
        kio::Poll<int> answer = kio::Poll<int>::pending();
        bool armed = false;
        if (mode_ == Mode::idle) {
            if (!gate_.parked(waiter, key)) answer = walk_through_gate(waiter);
            armed = gate_.armed();
        } else {
            if (!gated_.answer_parked(waiter, key, true))
                answer = gated_.walk(waiter, key, true, [&](const kio::Waiter& through) { return walk(through); });
            armed = gated_.armed();
        }
        // An idle answer stands for the last look: nothing it registered on may have
        // changed since, nor the reader's target.
        if (checks_.idle(walks_)) world_.fail(world_.oracle.idle_answer());
        world_.fail_idle(checks_.end(task_, answer.is_pending(), armed, walks_, changed, true, answer.is_pending(),
                                     world_.mailbox.posted()));
        // A Ready read: the next waits for a higher value. No disarm: a Ready walk leaves
        // the gate unarmed.
        if (answer.is_ready()) {
            trace_item(world_.executor, "value", static_cast<std::uint64_t>(answer.value()));
            world_.oracle.read(answer.value());
        } else {
            trace_pending(world_.executor, "value");
        }
        return answer;
    }

    [[nodiscard]] const IdleChecks& checks() const { return checks_; }

private:
    static constexpr int key = 0;

    // The reader's own change: no input fires for it, so it disarms (I5).
    bool apply_targets(const kio::Waiter& waiter) {
        bool changed = false;
        for (const std::optional<int>& target : world_.mailbox.collect(waiter)) {
            if (!target) continue;
            target_ = *target;
            world_.oracle.target_changed(*target);
            changed = true;
        }
        if (changed) mode_ == Mode::idle ? gate_.disarm() : gated_.disarm();
        return changed;
    }

    kio::Poll<int> walk_through_gate(const kio::Waiter& waiter) {
        const kio::Waiter& through = gate_.start(waiter, key);
        const std::uint64_t wakes = task_.executor().task_stats(task_.id()).wakes;
        const std::size_t posted = world_.mailbox.posted();
        // A post, or a write that fired the gate before this walk, may still be waking
        // the task (past a wake point).
        const bool delivering = world_.mailbox.delivering() || world_.oracle.delivering();
        kio::Poll<int> answer = walk(through);
        gate_.finish(answer.is_pending());
        // Only the gate's waiter and the mailbox can wake this task (I3): a wake during
        // the walk with nothing being delivered at its start and no post since is the
        // gate's, fired during the walk.
        if (gate_.armed() && task_.executor().task_stats(task_.id()).wakes != wakes && !delivering &&
            world_.mailbox.posted() == posted)
            world_.fail("I3: the gate armed although its waiter fired during the walk");
        return answer;
    }

    // The walk: look at the value, register below the target.
    kio::Poll<int> walk(const kio::Waiter& through) {
        ++walks_;
        task_.schedule_point("gate.before_look");
        auto answer = input_.poll(through, [&](const int& held) -> std::optional<int> {
            world_.fail(world_.oracle.looked(held));  // under the cell's lock
            if (held >= target_) return held;
            return std::nullopt;
        });
        if (answer.is_ready()) {
            target_ = answer.value() + 1;
            return answer.value();
        }
        if (answer.is_closed()) world_.fail("I2: the value cell closed under the reader");
        // A write here fires the gate while the walk is still running.
        task_.schedule_point("gate.after_register");
        return kio::Poll<int>::pending();
    }

    World& world_;
    sim::Task& task_;
    Mode mode_;
    kio::Consumer<int> input_;
    model::Idle<int> gate_;
    model::GatedRead<int> gated_;
    int target_ = 1;
    std::uint64_t walks_ = 0;
    IdleChecks checks_;
};

// The small scope (properties/scope.hpp): values 0 and 1 (the watched value starts at
// 0), every mode, the drives woken, inline, fresh and eager, seed 0. No symmetry: 0 is the start.
SmallScope gate_scope() {
    SmallScope scope;
    std::vector<nlohmann::json> steps;
    for (const char* name : {"write", "quiet", "target"})
        for (int value : {0, 1}) steps.push_back({name, value});
    for (const char* name : {"notify", "poke", "yield", "wait"}) steps.push_back({name, 0});
    for (const nlohmann::json& settings : every_combination(
             {{"idle", "gated1", "gated2"}, {"woken", "inline", "fresh", "eager"}}, [](const auto& chosen) {
                 return nlohmann::json{{"mode", chosen[0]}, {"drive", chosen[1]}, {"seed", 0}};
             }))
        scope.shapes.push_back({settings, steps});
    return scope;
}

struct Traits {
    using Commands = moq::properties::Commands;

    static SmallScope small_scope() { return gate_scope(); }

    static rc::Gen<GateCase> generator(Mix mix) {
        return Commands::generator(mix, [](const rc::Gen<std::uint8_t>& kind) {
            const auto step =
                rc::gen::build<Step>(rc::gen::set(&Step::command, kind),
                                     rc::gen::set(&Step::value, rc::gen::inRange<std::uint8_t>(0, value_high)));
            return rc::gen::build<GateCase>(
                rc::gen::set(&GateCase::steps, rc::gen::container<std::vector<Step>>(step)),
                rc::gen::set(&GateCase::mode, rc::gen::element(Mode::idle, Mode::gated_one, Mode::gated_two)),
                rc::gen::set(&GateCase::drive, drive_generator()),
                rc::gen::set(&GateCase::seed, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>())));
        });
    }

    static CaseOutcome run(const GateCase& value, const RunSettings& settings) {
        sim::Executor executor{simulation_options(value.seed, value.drive, settings)};
        World world{executor};

        executor.spawn("writer", [&](sim::Task& task) {
            for (const Step& step : value.steps) {
                task.yield();
                Commands::run(step.command, world, step.value, Commands::trace_byte(task, step.command, step.value),
                              task);
            }
        });

        std::optional<Reader> reader;
        const std::uint32_t reader_task = executor.spawn("reader", [&](sim::Task& task) {
            reader.emplace(world, task, value.mode);
            while (task.wait_until_over([&](const kio::Waiter& waiter) { return reader->poll(waiter); })) {}
        });

        executor.on_quiescence([&]() -> std::optional<std::string> {
            if (world.mailbox.unread() != 0)
                return "I4: missed wake: the reader never read " + std::to_string(world.mailbox.unread()) + " posts";
            return world.oracle.quiescent();
        });

        const sim::RunResult result = executor.run();
        if (reader)
            world.fail(
                reader->checks().budget(executor.task_stats(reader_task), setup_walks(value.mode), "I1: the reader"));
        return outcome_of(result, world.violation, executor);
    }

    static nlohmann::json to_json(const GateCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps) steps.push_back({Commands::names[step.command], step.value});
        return {{"steps", steps},
                {"mode", mode_names[static_cast<std::size_t>(value.mode)]},
                {"drive", drive_name(value.drive)},
                {"seed", value.seed}};
    }

    static GateCase from_json(const nlohmann::json& json) {
        if (!json.is_object()) throw std::invalid_argument("a gate case is an object");
        GateCase value;
        value.seed = require_u64(json, "seed");
        value.drive = require_drive(json);
        const std::string mode = require_string(json, "mode");
        const auto found_mode = std::find(mode_names.begin(), mode_names.end(), mode);
        if (found_mode == mode_names.end()) throw std::invalid_argument("unknown mode '" + mode + "'");
        value.mode = static_cast<Mode>(found_mode - mode_names.begin());
        for (const nlohmann::json& step : require_array(json, "steps")) {
            if (!step.is_array() || step.size() != 2 || !step[0].is_string())
                throw std::invalid_argument("a step is [name, value]");
            const auto name = step[0].get<std::string>();
            const auto found = Commands::find(name);
            if (!found) throw std::invalid_argument("unknown step '" + name + "'");
            value.steps.push_back(Step{*found, require_small(step[1], 255, "value")});
        }
        return value;
    }

    static std::string describe(const GateCase& value) {
        std::ostringstream out;
        out << mode_names[static_cast<std::size_t>(value.mode)] << " gate, " << drive_name(value.drive) << ", seed "
            << value.seed << ":";
        for (const Step& step : value.steps) {
            out << " " << Commands::names[step.command];
            if (step.command == Commands::index_of<Wait>())
                out << "(" << std::chrono::duration_cast<std::chrono::milliseconds>(wait_of(step.value)).count()
                    << "ms)";
            else if (Commands::has_arguments[step.command])
                out << "(" << int{step.value} << ")";
        }
        return out.str();
    }
};

}  // namespace

const Suite& gate_suite() {
    static const TypedSuite<GateCase, Traits> suite{
        "gate", "Idle<int> and GatedRead<int> over a watched value: missed wakes, idle re-polls, W6", 3000};
    return suite;
}

}  // namespace moq::properties
