// The resume suite: a driver applies a generated list of operations to three copies, a
// route and the preferences, while a reader task peeks and takes groups; the resume model
// judges every take, every end, the state at quiescence, and the reader's walks.
#include <array>
#include <chrono>
#include <sstream>
#include <variant>

#include "kio/cell.hpp"
#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "model/resume.hpp"
#include "model/route.hpp"
#include "model/track.hpp"
#include "oracle/resume_model.hpp"
#include "model/subscriber.hpp"
#include "properties/drive.hpp"
#include "properties/mailbox.hpp"
#include "properties/suites.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

namespace {

using namespace std::chrono_literals;

enum class Op : std::uint8_t {
    land, finish, kill, serve, park, end_clean, end_error, set_range, update, advance, skip, poke
};
constexpr std::array<const char*, 12> op_names{"land",      "finish", "kill",   "serve",   "park", "end_clean",
                                               "end_error", "range",  "update", "advance", "skip", "poke"};

struct Step {
    Op op = Op::land;
    std::uint8_t copy = 0;      // 0..2: A, B, C
    std::uint8_t sequence = 0;  // land: the group; range: the start; skip: the floor
    std::uint8_t extra = 0;     // range: the end (0: none); advance: tenths of a second
};

struct ResumeCase {
    std::vector<Step> steps;
    model::Walk walk = model::Walk::arrival;
    Drive drive = Drive::woken;
    std::uint64_t seed = 0;
};

constexpr kio::Duration grace = 1s;

// What the driver asks of the reader's own handle (set_range, skip_ordered), or a poke:
// a wake of the reader's task from another of its futures, which its gates must ride.
struct Command {
    Op op = Op::poke;
    std::uint64_t start = 0;
    std::optional<std::uint64_t> end;
};

struct Traits {
    static rc::Gen<ResumeCase> generator() {
        const auto step = rc::gen::build<Step>(
            rc::gen::set(&Step::op, rc::gen::weightedElement<Op>({{30, Op::land},
                                                                  {10, Op::serve},
                                                                  {5, Op::finish},
                                                                  {3, Op::kill},
                                                                  {3, Op::park},
                                                                  {1, Op::end_clean},
                                                                  {1, Op::end_error},
                                                                  {4, Op::set_range},
                                                                  {3, Op::update},
                                                                  {6, Op::advance},
                                                                  {2, Op::skip},
                                                                  {3, Op::poke}})),
            rc::gen::set(&Step::copy, rc::gen::inRange<std::uint8_t>(0, 3)),
            rc::gen::set(&Step::sequence, rc::gen::inRange<std::uint8_t>(0, 12)),
            rc::gen::set(&Step::extra, rc::gen::inRange<std::uint8_t>(0, 15)));
        return rc::gen::build<ResumeCase>(
            rc::gen::set(&ResumeCase::steps, rc::gen::container<std::vector<Step>>(step)),
            rc::gen::set(&ResumeCase::walk, rc::gen::element(model::Walk::arrival, model::Walk::sequence)),
            rc::gen::set(&ResumeCase::drive, drive_generator()),
            rc::gen::set(&ResumeCase::seed, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>())));
    }

    static CaseOutcome run(const ResumeCase& value, const RunSettings& settings) {
        sim::Options options = simulation_options(value.seed, value.drive, settings);
        sim::Executor executor{options};
        std::array<model::TrackProducer, oracle::ResumeModel::copy_count> copies;
        model::Route route;
        kio::Producer<model::Preferences> preferences;
        oracle::ResumeModel oracle{value.walk, grace};
        Mailbox<Command> mailbox;
        std::optional<std::uint8_t> priority;  // the last preferences update
        std::string violation;
        auto fail = [&](std::optional<std::string> found) {
            if (found && violation.empty()) violation = *found;
        };

        executor.spawn("driver", [&](sim::Task& task) {
            for (const Step& step : value.steps) {
                task.yield();
                const kio::Instant now = task.clock().now();
                const int copy = step.copy;
                switch (step.op) {
                    case Op::land: {
                        auto created = copies[copy].create_group(step.sequence);
                        const bool accepted = std::holds_alternative<model::GroupProducer>(created);
                        if (accepted) std::get<model::GroupProducer>(created).finish();
                        if (oracle.landed(copy, step.sequence, now) != accepted)
                            fail("copy " + std::string(1, static_cast<char>('A' + copy)) +
                                 (accepted ? " accepted" : " refused") + " group " + std::to_string(step.sequence) +
                                 " against the model");
                        break;
                    }
                    case Op::finish: {
                        const bool accepted = !copies[copy].finish();
                        if (oracle.finished(copy, now) != accepted) fail("copy finish disagrees with the model");
                        break;
                    }
                    case Op::kill:
                        copies[copy].abort(model::Error::route_failed);
                        oracle.killed(copy, now);
                        break;
                    case Op::serve:
                        route.serve_from(copies[copy].consume());
                        oracle.served(copy, now);
                        break;
                    case Op::park:
                        route.park();
                        oracle.parked(now);
                        break;
                    case Op::end_clean:
                        route.end(std::nullopt);
                        oracle.ended(std::nullopt, now);
                        break;
                    case Op::end_error:
                        route.end(model::Error::unroutable);
                        oracle.ended(model::Error::unroutable, now);
                        break;
                    case Op::set_range:
                        mailbox.post(Command{Op::set_range, step.sequence,
                                             step.extra == 0 ? std::nullopt
                                                             : std::optional<std::uint64_t>(step.sequence + step.extra)});
                        break;
                    case Op::skip: mailbox.post(Command{Op::skip, step.sequence, std::nullopt}); break;
                    case Op::poke: mailbox.post(Command{}); break;
                    case Op::update:
                        priority = step.extra;
                        preferences.modify([&](model::Preferences& p) { p.priority = step.extra; });
                        oracle.touched(now);
                        break;
                    case Op::advance: {
                        kio::Deadline deadline{task.clock()};
                        deadline.after(step.extra * 100ms);
                        task.wait([&](const kio::Waiter& waiter) { return deadline.poll(waiter); });
                        oracle.touched(task.clock().now());
                        break;
                    }
                }
            }
        });

        std::uint64_t walks = 0;
        std::uint64_t meters = 0;
        bool stopped = false;
        model::TrackSubscriber* live = nullptr;
        const std::uint32_t reader_task = executor.spawn("reader", [&](sim::Task& task) {
            // Read as an export reads: through the track subscriber and its stats meter.
            model::TrackSubscriber subscriber{model::ResumeReader{route.consume(), preferences.consume(), task.clock(),
                                                                  model::ResumeOptions{.grace = grace}}};
            live = &subscriber;
            model::ResumeReader& reader = subscriber.reader();
            for (;;) {
                auto answer = task.wait([&](const kio::Waiter& waiter) -> kio::Poll<model::Next<std::uint64_t>> {
                    // Its own changes first, as the task that owns the reader makes them.
                    for (const Command& command : mailbox.collect(waiter)) {
                        if (command.op == Op::set_range) {
                            reader.set_range(command.start, command.end);
                            oracle.range_set(command.start, command.end, task.clock().now());
                        } else if (command.op == Op::skip) {
                            reader.skip_ordered(command.start);
                            oracle.skipped(command.start, task.clock().now());
                        }
                    }
                    const std::optional<std::uint64_t> newest_before = oracle.newest();
                    oracle.poll_started(reader.route_generation());
                    auto got = subscriber.poll_group(waiter, value.walk);
                    walks = reader.walk_counter(value.walk).walks;
                    meters = subscriber.stats().polls;
                    if (got.is_pending()) {
                        oracle.observed(reader.route_generation(), newest_before, task.clock().now());
                        return kio::Poll<model::Next<std::uint64_t>>::pending();
                    }
                    if (got.value().is_end()) return model::Next<std::uint64_t>(model::End{});
                    if (got.value().is_error()) return model::Next<std::uint64_t>(got.value().error());
                    const std::uint64_t sequence = got.value().item().sequence();
                    fail(oracle.took(sequence, *reader.taken_from(), reader.route_generation(), task.clock().now()));
                    oracle.observed(reader.route_generation(), newest_before, task.clock().now());
                    return model::Next<std::uint64_t>(sequence);
                });
                if (answer.is_item()) continue;
                stopped = true;
                live = nullptr;
                fail(oracle.stopped(answer.is_end() ? std::nullopt : std::optional<model::Error>(answer.error()),
                                    reader.route_generation(), task.clock().now()));
                return;
            }
        });
        executor.on_quiescence([&]() -> std::optional<std::string> {
            if (auto missed = oracle.quiescent(executor.clock().now())) return missed;
            if (stopped || !live) return std::nullopt;
            if (mailbox.unread() != 0) return "missed wake: the reader never read its own posted changes";
            // A live reader mirrors its latest preferences into the copy that serves it.
            const auto views = live->reader().copies();
            if (priority && !views.empty() && !views.back().replaced && views.back().demand.priority != *priority)
                return "missed wake: the serving copy's demand has priority " +
                       std::to_string(views.back().demand.priority) + ", not the preferences' " +
                       std::to_string(*priority);
            return std::nullopt;
        });

        const sim::RunResult result = executor.run();
        // Efficiency: a re-poll nothing woke walks nothing, so every walk is paid for by a
        // wake, a poll from a fresh task, the poll after a Ready, or the gate's set-up; and
        // an idle poll builds no meter.
        const sim::TaskStats stats = executor.task_stats(reader_task);
        const std::uint64_t paid = stats.wakes + stats.fresh_polls + stats.ready + 2;
        if (walks > paid)
            fail("the reader walked " + std::to_string(walks) + " times for " + std::to_string(paid) +
                 " wakes, fresh polls and ready answers");
        if (meters > walks)
            fail("the subscriber built " + std::to_string(meters) + " meters for " + std::to_string(walks) + " walks");
        return outcome_of(result, violation, executor);
    }

    static nlohmann::json to_json(const ResumeCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps)
            steps.push_back({op_names[static_cast<std::size_t>(step.op)], step.copy, step.sequence, step.extra});
        return {{"steps", steps},
                {"walk", value.walk == model::Walk::arrival ? "arrival" : "sequence"},
                {"drive", drive_name(value.drive)},
                {"seed", value.seed}};
    }

    static ResumeCase from_json(const nlohmann::json& json) {
        ResumeCase value;
        value.seed = require_u64(json, "seed");
        value.drive = require_drive(json);
        const std::string walk = require_string(json, "walk");
        if (walk == "arrival") {
            value.walk = model::Walk::arrival;
        } else if (walk == "sequence") {
            value.walk = model::Walk::sequence;
        } else {
            throw std::invalid_argument("unknown walk '" + walk + "'");
        }
        for (const nlohmann::json& step : require_array(json, "steps")) {
            if (!step.is_array() || step.size() != 4 || !step[0].is_string())
                throw std::invalid_argument("a step is [name, copy, sequence, extra]");
            Step parsed;
            const auto name = step[0].get<std::string>();
            const auto found = std::find(op_names.begin(), op_names.end(), name);
            if (found == op_names.end()) throw std::invalid_argument("unknown step '" + name + "'");
            parsed.op = static_cast<Op>(found - op_names.begin());
            parsed.copy = require_small(step[1], 2, "copy");
            parsed.sequence = require_small(step[2], 255, "sequence");
            parsed.extra = require_small(step[3], 255, "extra");
            value.steps.push_back(parsed);
        }
        return value;
    }

    static std::string describe(const ResumeCase& value) {
        std::ostringstream out;
        out << (value.walk == model::Walk::arrival ? "arrival" : "sequence") << " walk, " << drive_name(value.drive)
            << ", seed " << value.seed << ":";
        for (const Step& step : value.steps) {
            out << " " << op_names[static_cast<std::size_t>(step.op)];
            if (step.op == Op::land || step.op == Op::finish || step.op == Op::kill || step.op == Op::serve)
                out << "(" << static_cast<char>('A' + step.copy)
                    << (step.op == Op::land ? "," + std::to_string(step.sequence) : std::string()) << ")";
            if (step.op == Op::set_range)
                out << "(" << int{step.sequence} << ".."
                    << (step.extra ? std::to_string(step.sequence + step.extra) : std::string()) << ")";
            if (step.op == Op::advance) out << "(" << step.extra * 100 << "ms)";
            if (step.op == Op::skip) out << "(" << int{step.sequence} << ")";
        }
        return out.str();
    }
};

}  // namespace

const Suite& resume_suite() {
    static const TypedSuite<ResumeCase, Traits> suite{
        "resume", "the resume reader over three copies and a flapping route, against the resume model", 3000};
    return suite;
}

}  // namespace moq::properties
