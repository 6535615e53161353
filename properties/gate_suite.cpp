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
#include <sstream>
#include <stdexcept>

#include "kio/cell.hpp"
#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "model/gated_read.hpp"
#include "model/idle.hpp"
#include "properties/drive.hpp"
#include "properties/poll_checks.hpp"
#include "properties/suites.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

namespace {

using namespace std::chrono_literals;

enum class Op : std::uint8_t { write, quiet, notify, target, poke, yield, wait };
constexpr std::array<const char*, 7> op_names{"write", "quiet", "notify", "target", "poke", "yield", "wait"};

struct Step {
    Op op = Op::write;
    std::uint8_t value = 0;  // write, quiet: the value; target: the new target; wait: tens of ms
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

kio::Duration wait_of(std::uint8_t value) { return (value % 10 + 1) * 10ms; }

struct Traits {
    static rc::Gen<GateCase> generator() {
        const auto step = rc::gen::build<Step>(
            rc::gen::set(&Step::op, rc::gen::weightedElement<Op>({{30, Op::write},
                                                                  {10, Op::quiet},
                                                                  {8, Op::notify},
                                                                  {10, Op::target},
                                                                  {8, Op::poke},
                                                                  {6, Op::yield},
                                                                  {8, Op::wait}})),
            rc::gen::set(&Step::value, rc::gen::inRange<std::uint8_t>(0, 16)));
        return rc::gen::build<GateCase>(
            rc::gen::set(&GateCase::steps, rc::gen::container<std::vector<Step>>(step)),
            rc::gen::set(&GateCase::mode, rc::gen::element(Mode::idle, Mode::gated_one, Mode::gated_two)),
            rc::gen::set(&GateCase::drive, drive_generator()),
            rc::gen::set(&GateCase::seed, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>())));
    }

    static CaseOutcome run(const GateCase& value, const RunSettings& settings) {
        sim::Executor executor{simulation_options(value.seed, value.drive, settings)};
        kio::Producer<int> cell{0};
        // New targets for the reader; an empty one only wakes its task, as another
        // future of the same task would.
        Mailbox<std::optional<int>> mailbox;
        // The model: the value, and how many writes woke its waiters.
        int model_value = 0;
        std::uint64_t notifies = 0;
        // The reader as the oracle sees it: its target, and what its last look saw.
        struct Reader {
            int target = 1;
            bool looked = false;
            int seen_target = 0;
            std::uint64_t seen_notifies = 0;
            std::uint64_t walks = 0;
        } reader;
        // Whether the reader owes a look: its inputs were written or its target changed
        // since its last one.
        auto owed = [&] {
            return !reader.looked || reader.seen_notifies != notifies || reader.seen_target != reader.target;
        };
        auto owed_reason = [&] {
            if (!reader.looked) return std::string("it never looked");
            if (reader.seen_target != reader.target) return std::string("its target changed since its last look");
            return std::string("a write woke its inputs since its last look");
        };
        IdleChecks checks;
        std::string violation;
        auto fail = [&](std::optional<std::string> found) {
            if (found && violation.empty()) violation = *found;
        };

        executor.spawn("writer", [&](sim::Task& task) {
            for (const Step& step : value.steps) {
                task.yield();
                switch (step.op) {
                    case Op::write:
                        cell.modify([&](int& held) { held = step.value; });
                        model_value = step.value;
                        ++notifies;
                        break;
                    case Op::quiet:
                        cell.modify_quietly([&](int& held) { held = step.value; });
                        model_value = step.value;
                        break;
                    case Op::notify:
                        cell.notify();
                        ++notifies;
                        break;
                    case Op::target: mailbox.post(step.value); break;
                    case Op::poke: mailbox.post(std::nullopt); break;
                    case Op::yield: task.yield(); break;
                    case Op::wait: {
                        kio::Deadline deadline{task.clock()};
                        deadline.after(wait_of(step.value));
                        task.wait([&](const kio::Waiter& waiter) { return deadline.poll(waiter); });
                        break;
                    }
                }
            }
        });

        const std::uint32_t reader_task = executor.spawn("reader", [&](sim::Task& task) {
            const kio::Consumer<int> input = cell.consume();
            model::Idle<int> gate;
            model::GatedRead<int> gated{value.mode == Mode::gated_one ? 1 : 2};
            constexpr int key = 0;
            // The walk: look at the value, register below the target.
            auto walk = [&](const kio::Waiter& through) -> kio::Poll<int> {
                ++reader.walks;
                task.schedule_point("gate.before_look");
                auto answer = input.poll(through, [&](const int& held) -> std::optional<int> {
                    // Under the cell's lock: what this look saw.
                    reader.looked = true;
                    reader.seen_target = reader.target;
                    reader.seen_notifies = notifies;
                    if (held != model_value)
                        fail("the cell holds " + std::to_string(held) + ", the model " + std::to_string(model_value));
                    if (held >= reader.target) return held;
                    return std::nullopt;
                });
                if (answer.is_ready()) return answer.value();
                if (answer.is_closed()) fail("the value cell closed under the reader");
                // A write here fires the gate while the walk is still running.
                task.schedule_point("gate.after_register");
                return kio::Poll<int>::pending();
            };
            for (;;) {
                const int got = task.wait([&](const kio::Waiter& waiter) -> kio::Poll<int> {
                    checks.begin(task, reader.walks, mailbox.posted());
                    // The reader's own change: no input fires for it, so it disarms.
                    bool changed = false;
                    for (const std::optional<int>& target : mailbox.collect(waiter)) {
                        if (!target) continue;
                        reader.target = *target;
                        changed = true;
                    }
                    if (changed) {
                        if (value.mode == Mode::idle) {
                            gate.disarm();
                        } else {
                            gated.disarm();
                        }
                    }
                    kio::Poll<int> answer = kio::Poll<int>::pending();
                    bool armed = false;
                    if (value.mode == Mode::idle) {
                        if (!gate.parked(waiter, key)) {
                            const kio::Waiter& through = gate.start(waiter, key);
                            const std::uint64_t wakes = executor.task_stats(task.id()).wakes;
                            const std::size_t posted = mailbox.posted();
                            answer = walk(through);
                            gate.finish(answer.is_pending());
                            // Only the gate's waiter and the mailbox can wake this task.
                            if (gate.armed() && executor.task_stats(task.id()).wakes != wakes &&
                                mailbox.posted() == posted)
                                fail("the gate armed although its waiter fired during the walk");
                        }
                        armed = gate.armed();
                    } else {
                        if (!gated.answer_parked(waiter, key, true)) answer = gated.walk(waiter, key, true, walk);
                        armed = gated.armed();
                    }
                    // An idle answer stands for the last look: nothing it registered on may
                    // have changed since, nor the reader's target.
                    if (checks.idle(reader.walks) && owed())
                        fail("the gate answered Pending without walking although " + owed_reason());
                    fail(checks.end(task, answer.is_pending(), armed, reader.walks, changed, true, answer.is_pending(),
                                    mailbox.posted()));
                    return answer;
                });
                // Read: the next read waits for a higher value. No disarm: a Ready walk
                // leaves the gate unarmed.
                reader.target = got + 1;
            }
        });

        executor.on_quiescence([&]() -> std::optional<std::string> {
            if (mailbox.unread() != 0)
                return "missed wake: the reader never read " + std::to_string(mailbox.unread()) + " posts";
            if (owed() && model_value >= reader.target)
                return "missed wake: the reader is parked with the value at " + std::to_string(model_value) +
                       " and its target at " + std::to_string(reader.target) + " (" + owed_reason() + ")";
            return std::nullopt;
        });

        const sim::RunResult result = executor.run();
        fail(checks.budget(executor.task_stats(reader_task), setup_walks(value.mode), "the reader"));
        return outcome_of(result, violation, executor);
    }

    static nlohmann::json to_json(const GateCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps) steps.push_back({op_names[static_cast<std::size_t>(step.op)], step.value});
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
            Step parsed;
            const auto name = step[0].get<std::string>();
            const auto found = std::find(op_names.begin(), op_names.end(), name);
            if (found == op_names.end()) throw std::invalid_argument("unknown step '" + name + "'");
            parsed.op = static_cast<Op>(found - op_names.begin());
            parsed.value = require_small(step[1], 255, "value");
            value.steps.push_back(parsed);
        }
        return value;
    }

    static std::string describe(const GateCase& value) {
        std::ostringstream out;
        out << mode_names[static_cast<std::size_t>(value.mode)] << " gate, " << drive_name(value.drive) << ", seed "
            << value.seed << ":";
        for (const Step& step : value.steps) {
            out << " " << op_names[static_cast<std::size_t>(step.op)];
            if (step.op == Op::write || step.op == Op::quiet || step.op == Op::target)
                out << "(" << int{step.value} << ")";
            if (step.op == Op::wait)
                out << "(" << std::chrono::duration_cast<std::chrono::milliseconds>(wait_of(step.value)).count()
                    << "ms)";
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
