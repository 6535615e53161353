// The fanout suite: the session fanout program (programs/fanout.*), the one the
// session_fanout_threads benchmark runs on the runtime's threads, run here in the
// simulator: a driver raises the publisher's pace and changes the viewers' preferences,
// the publisher lands one-frame groups, and each viewer reads the track as an export
// does. Every viewer is judged by its own resume model, told only what the publisher did
// and what that viewer's reads answered; at the end every viewer must have read every
// group the publisher landed, in order, each with its one frame, and walked no more than
// its wakes paid for. A case runs the publisher and the viewers either as the executor's
// own tasks or, with `workers`, as tasks of the real runtime (runtime/, its simulated
// build) whose workers are simulated tasks: then the runtime's state words, references
// and pool carry every wake between the core's readers.
#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kio/clock.hpp"
#include "oracle/resume_model.hpp"
#include "programs/fanout.hpp"
#include "properties/commands.hpp"
#include "properties/drive.hpp"
#include "properties/scope.hpp"
#include "properties/simulated_workers.hpp"
#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "runtime/runtime.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

namespace {

// The one copy the fanout's route serves, as the resume model names copies.
constexpr int served_copy = 0;
constexpr std::uint8_t max_viewers = 16;
constexpr std::uint8_t max_workers = 2;

struct Step {
    std::uint8_t command = 0;  // an index into Commands
    std::uint8_t extra = 0;    // allow: groups more (1 to 3); prefer: the priority of viewer extra % viewers
};

struct FanoutCase {
    std::uint8_t viewers = 1;
    std::vector<Step> steps;
    bool finish = true;  // the publisher finishes the track after the last step
    Drive drive = Drive::woken;
    std::uint64_t seed = 0;
    // 0: the publisher and viewers are the executor's tasks; 1 or 2: the runtime's, on
    // that many simulated workers.
    std::uint8_t workers = 0;
};

// Hears the program's events, tells each viewer's model, which judges each answer, and
// tells the trace: the publisher's writes, every answer of every viewer's reads, how
// each viewer's gate answered, and each verdict.
class Judge final : public programs::FanoutListener {
public:
    Judge(std::size_t viewers, sim::Executor& executor)
        : executor_(&executor), clock_(&executor.clock()), viewers_(viewers) {
        for (Viewer& viewer : viewers_) {
            viewer.resume.serve(served_copy, clock_->now());
            viewer.resume.operation_done();
        }
    }

    // The driver changes one viewer's preferences: its reader hears it.
    void preferences_changing(std::size_t viewer) { viewers_[viewer].resume.touch(clock_->now()); }
    void operation_done() {
        for (Viewer& viewer : viewers_) viewer.resume.operation_done();
    }

    void landing(std::uint64_t sequence) override {
        executor_->record(sim::operation_event("land", {static_cast<std::int64_t>(sequence)}), {},
                          executor_->keeps_trace() ? "land(" + std::to_string(sequence) + ")" : std::string());
        expected_ = sequence;
        accept_ = true;
        for (Viewer& viewer : viewers_) accept_ = viewer.resume.land(served_copy, sequence, clock_->now()) && accept_;
        landing_ = sequence;
    }
    void landed(std::optional<std::uint64_t> sequence) override {
        landing_.reset();
        operation_done();
        std::optional<std::string> found;
        if (sequence.has_value() != accept_ || (sequence && *sequence != expected_))
            found = "R2: the track " + std::string(sequence ? "landed group " + std::to_string(*sequence) : "refused") +
                    " where the model " + (accept_ ? "lands group " + std::to_string(expected_) : "refuses it");
        judged(found);
        if (sequence) landed_.push_back(*sequence);
    }
    void finishing() override {
        finishing_ = true;
        executor_->record(sim::operation_event("finish_track", {}));
        accept_ = true;
        for (Viewer& viewer : viewers_) accept_ = viewer.resume.finish(served_copy, clock_->now()) && accept_;
    }
    void finished(bool accepted) override {
        operation_done();
        judged(accepted != accept_ ? std::optional<std::string>("R2: the track's finish disagrees with the model")
                                   : std::nullopt);
    }

    void polling(std::size_t viewer) override { viewers_[viewer].resume.poll_begun(); }
    void polled(std::size_t /*viewer*/, bool walked, std::uint64_t walks) override {
        trace_gate(*executor_, !walked, walks);
    }
    void pending(std::size_t viewer, bool walked) override {
        trace_pending(*executor_, "group");
        viewers_[viewer].resume.answered_pending(clock_->now(), walked);
    }
    void group(std::size_t viewer, std::uint64_t sequence, std::optional<std::uint64_t> source) override {
        trace_item(*executor_, "group", sequence, source);
        Viewer& taker = viewers_[viewer];
        const std::optional<int> landing = landing_ == sequence ? std::optional(served_copy) : std::nullopt;
        fail(viewer, taker.resume.answered_unread_group(sequence, clock_->now(), landing));
        taker.groups.push_back(sequence);
    }
    void ended(std::size_t viewer, std::optional<model::Error> error) override {
        trace_ending(*executor_, "group", error);
        fail(viewer, viewers_[viewer].resume.answered_end(error, clock_->now()));
        viewers_[viewer].ended = true;
    }
    void reading(std::size_t viewer, std::uint64_t sequence) override {
        viewers_[viewer].resume.group_read_begins(sequence);
    }
    void frame(std::size_t viewer, std::uint64_t sequence, const std::string& payload) override {
        trace_item(*executor_, "frame", sequence, std::nullopt, payload);
        fail(viewer, viewers_[viewer].resume.group_frame(sequence, payload));
        viewers_[viewer].frames.push_back(sequence);
    }
    void group_ended(std::size_t viewer, std::uint64_t sequence, std::optional<model::Error> error) override {
        trace_ending(*executor_, "frame", error);
        fail(viewer, viewers_[viewer].resume.group_ended(sequence, error));
    }

    // With no task runnable and no deadline pending: a viewer owed something missed a wake.
    [[nodiscard]] std::optional<std::string> quiescent() const {
        for (std::size_t index = 0; index < viewers_.size(); ++index)
            if (auto missed = viewers_[index].resume.quiescent(clock_->now())) return named(index, *missed);
        return std::nullopt;
    }

    // At the end of a run whose every task finished (the runtime's workers return when
    // nothing is queued, so the executor never sees the viewers parked): as at quiescence.
    void check_quiescent() { judged(quiescent()); }

    // Once the runtime is gone: each of its tasks was freed, and no reference was taken or
    // dropped at a count of zero (SPEC E4, counted as the runtime suite counts them).
    void check_frees(std::size_t unfreed, std::size_t uses_at_zero) {
        std::optional<std::string> found;
        if (uses_at_zero != 0)
            found = "E4: " + std::to_string(uses_at_zero) + " reference(s) taken or dropped at a count of zero";
        else if (unfreed != 0)
            found = "E4: " + std::to_string(unfreed) + " runtime task(s) never freed";
        judged(found);
    }

    // At the end of a run that went well: every viewer took every group landed and read
    // its frame, in landing order, none twice and none missed.
    void check_complete() {
        for (std::size_t index = 0; index < viewers_.size(); ++index) {
            const Viewer& viewer = viewers_[index];
            std::optional<std::string> found;
            if (viewer.groups != landed_)
                found = "R7: took " + list(viewer.groups) + " of the groups " + list(landed_) + " landed";
            else if (viewer.frames != landed_)
                found = "R6: read the frames of " + list(viewer.frames) + " of the groups " + list(landed_);
            fail(index, found);
        }
    }

    // At the end of a run that went well: the publisher landed every group the driver
    // allowed, in order, and finished the track only when the driver asked it to. The
    // viewers are judged against what landed, so only this sees a publisher that stops
    // short.
    void check_published(std::uint64_t allowed, bool finish) {
        std::vector<std::uint64_t> expected(allowed);
        std::iota(expected.begin(), expected.end(), std::uint64_t{0});
        std::optional<std::string> found;
        if (landed_ != expected)
            found = "publisher: landed " + list(landed_) + " where the driver allowed " + list(expected);
        else if (finishing_ != finish)
            found =
                std::string("publisher: ") + (finishing_ ? "finished the track unasked" : "never finished the track");
        judged(found);
    }

    // Efficiency: a re-poll nothing woke walks nothing, so every walk of a viewer's
    // subscriber is paid for by a wake, a poll from a fresh task, the poll after a Ready
    // answer, or the gate's set-up; and an idle poll builds no meter. Without `stats` (a
    // viewer on the runtime, whose wakes no one counts) only the meters.
    void check_efficiency(std::size_t index, model::TrackSubscriber& subscriber, const sim::TaskStats* stats) {
        const std::uint64_t walks = subscriber.reader().walk_counter(model::Walk::arrival).walks;
        const Viewer& viewer = viewers_[index];
        const std::uint64_t ready_answers = viewer.groups.size() + (viewer.ended ? 1 : 0);
        const std::uint64_t paid = stats ? stats->wakes + stats->fresh_polls + ready_answers + 2 : walks;
        std::optional<std::string> found;
        if (walks > paid)
            found = "W2: the subscriber walked " + std::to_string(walks) + " times for " + std::to_string(paid) +
                    " wakes, fresh polls, Ready answers and set-up walks";
        else if (subscriber.stats().polls > walks)
            found = "S1: the subscriber built " + std::to_string(subscriber.stats().polls) + " meters for " +
                    std::to_string(walks) + " walks";
        fail(index, found);
    }

    [[nodiscard]] const std::string& violation() const { return violation_; }
    [[nodiscard]] std::uint64_t landed() const { return landed_.size(); }

private:
    struct Viewer {
        oracle::ResumeModel resume{model::Walk::arrival, std::chrono::seconds(1)};
        std::vector<std::uint64_t> groups;  // taken, in order
        std::vector<std::uint64_t> frames;  // the group of each frame read, in order
        bool ended = false;
    };

    static std::string named(std::size_t viewer, const std::string& what) {
        return "viewer " + std::to_string(viewer) + ": " + what;
    }
    static std::string list(const std::vector<std::uint64_t>& sequences) {
        std::string text = "[";
        for (std::size_t i = 0; i < sequences.size(); ++i) text += (i ? "," : "") + std::to_string(sequences[i]);
        return text + "]";
    }
    // Every verdict goes to the trace; the first violation is the case's.
    void judged(const std::optional<std::string>& found) {
        trace_verdict(*executor_, found);
        if (found && violation_.empty()) violation_ = *found;
    }
    void fail(std::size_t viewer, const std::optional<std::string>& what) {
        judged(what ? std::optional(named(viewer, *what)) : std::nullopt);
    }

    sim::Executor* executor_;
    kio::Clock* clock_;
    std::vector<Viewer> viewers_;
    std::vector<std::uint64_t> landed_;  // sequences the publisher landed, in order
    std::optional<std::uint64_t> landing_;
    bool finishing_ = false;  // the publisher went to finish the track
    std::uint64_t expected_ = 0;
    bool accept_ = true;
    std::string violation_;
};

// The driver's world: the program's track and viewers, and the judge.
struct World {
    programs::FanoutTrack& track;
    const std::vector<std::unique_ptr<programs::Viewer>>& viewers;
    Judge& judge;
    std::uint64_t allowed = 0;  // groups the publisher may land so far
};

std::string describe_step(const Step& step);

// The commands, one operation each (see properties/commands.hpp); each traces itself,
// with what it works out (the total allowed, the viewer).
struct Always {
    static bool applies(const World&, const Step&) { return true; }
};

struct Allow : Always {
    static constexpr const char* name = "allow";
    static constexpr std::size_t weight = 6;
    static constexpr std::array<Argument, 1> arguments{Argument{"groups", 1, 4}};
    static void run(World& world, const Step& step, sim::Task& task) {
        world.allowed += step.extra;
        trace_operation(task, "allow", {step.extra, static_cast<std::int64_t>(world.allowed)},
                        [&] { return describe_step(step); });
        world.track.allow(world.allowed);
    }
};

struct Idle : Always {
    static constexpr const char* name = "idle";
    static constexpr std::size_t weight = 2;
    static constexpr auto& arguments = no_arguments;
    static void run(World&, const Step&, sim::Task& task) { trace_operation(task, "idle", {}); }
};

struct Prefer : Always {
    static constexpr const char* name = "prefer";
    static constexpr std::size_t weight = 2;
    static constexpr std::array<Argument, 1> arguments{Argument{"priority", 0, 8}};
    static void run(World& world, const Step& step, sim::Task& task) {
        const std::size_t viewer = step.extra % world.viewers.size();
        trace_operation(task, "prefer", {step.extra, static_cast<std::int64_t>(viewer)},
                        [&] { return describe_step(step); });
        world.judge.preferences_changing(viewer);
        world.viewers[viewer]->set_priority(step.extra);
        world.judge.operation_done();
    }
};

using Commands = CommandTable<Allow, Idle, Prefer>;

// How a case's description writes a step: allow(2), idle, prefer(5).
std::string describe_step(const Step& step) {
    const std::string name = Commands::names[step.command];
    return Commands::has_arguments[step.command] ? name + "(" + std::to_string(step.extra) + ")" : name;
}

// A step of command `command`: its byte from the command's argument (0 if it has none).
rc::Gen<Step> step_of(std::uint8_t command) {
    static const std::vector<Operation> operations = Commands::operations();
    const std::vector<Argument>& arguments = operations[command].arguments;
    const auto low = static_cast<std::uint8_t>(arguments.empty() ? 0 : arguments[0].low);
    const auto high = static_cast<std::uint8_t>(arguments.empty() ? 1 : arguments[0].high);
    return rc::gen::map(rc::gen::inRange<std::uint8_t>(low, high), [command](std::uint8_t extra) {
        return Step{command, extra};
    });
}

void drive(const FanoutCase& value, World& world, sim::Task& task) {
    for (const Step& step : value.steps) {
        task.yield();
        Commands::run(
            step.command, world, step, [](const char*) {}, task);
    }
    if (value.finish) {
        task.yield();
        trace_operation(task, "finish", {});
        world.track.finish_after_allowed();
    }
}

// The small scope (properties/scope.hpp): one or two viewers, one or two groups allowed
// at a time, priorities 0-3 (which also pick the viewer), finishing or not, the default
// drive and inline, on the executor or on the runtime with one worker, seed 0. No symmetry:
// a priority names its viewer.
SmallScope fanout_scope() {
    SmallScope scope;
    std::vector<nlohmann::json> steps{{"allow", 1}, {"allow", 2}, {"idle", 0}};
    for (int priority = 0; priority < 4; ++priority) steps.push_back({"prefer", priority});
    for (const nlohmann::json& settings :
         every_combination({{1, 2}, {true, false}, {"woken", "inline"}, {0, 1}}, [](const auto& chosen) {
             return nlohmann::json{{"viewers", chosen[0]},
                                   {"finish", chosen[1]},
                                   {"drive", chosen[2]},
                                   {"seed", 0},
                                   {"workers", chosen[3]}};
         }))
        scope.shapes.push_back({settings, steps});
    return scope;
}

// What a run's tasks point at, on the heap: a run on the runtime that ends with tasks
// unfinished leaves their fibers as they are (sim::Options::abandon_unfinished), so it is
// kept for the rest of the process. The runtime goes first, before the publisher and the
// viewers its tasks poll.
struct Program {
    Program(const FanoutCase& value, sim::Executor& executor) : judge(value.viewers, executor) {
        track.emplace();
        publisher.emplace(
            *track, [](std::uint64_t sequence) { return oracle::ResumeModel::payload(served_copy, sequence); }, judge);
        for (std::size_t index = 0; index < value.viewers; ++index)
            viewers.push_back(std::make_unique<programs::Viewer>(index, *track, executor.clock(), judge));
    }

    // Everything but the judge, the runtime first: the track's waiter lists may hold the
    // last wakers of the runtime's tasks.
    void destroy_program() {
        runtime.reset();
        viewers.clear();
        publisher.reset();
        track.reset();
    }

    // The publisher and every viewer as the runtime's tasks, on `workers` simulated
    // workers.
    void run_on_runtime(std::size_t workers, sim::Executor& executor) {
        hosts.emplace(executor, workers);
        runtime.emplace(workers, *hosts, executor.clock());
        runtime->spawn([this](const kio::Waiter& waiter) { return publisher->poll(waiter); });
        for (std::size_t index = 0; index < viewers.size(); ++index)
            runtime->spawn([this, index](const kio::Waiter& waiter) { return viewers[index]->poll(waiter); });
    }

    Judge judge;
    std::optional<programs::FanoutTrack> track;
    std::optional<programs::Publisher> publisher;
    std::vector<std::unique_ptr<programs::Viewer>> viewers;
    std::optional<SimulatedWorkers> hosts;
    std::optional<runtime::Runtime> runtime;
};

std::vector<std::unique_ptr<Program>>& abandoned_programs() {
    static auto* programs = new std::vector<std::unique_ptr<Program>>();
    return *programs;
}

struct Traits {
    using Commands = moq::properties::Commands;

    static SmallScope small_scope() { return fanout_scope(); }

    static rc::Gen<FanoutCase> generator(Mix mix) {
        return Commands::generator(mix, [](const rc::Gen<std::uint8_t>& kind) {
            const auto step = rc::gen::mapcat(kind, step_of);
            return rc::gen::build<FanoutCase>(
                rc::gen::set(&FanoutCase::viewers, rc::gen::inRange<std::uint8_t>(1, 7)),
                rc::gen::set(&FanoutCase::steps, rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, 25),
                                                                 [step](std::size_t count) {
                                                                     return rc::gen::container<std::vector<Step>>(count,
                                                                                                                  step);
                                                                 })),
                rc::gen::set(&FanoutCase::finish, rc::gen::weightedElement<bool>({{4, true}, {1, false}})),
                rc::gen::set(&FanoutCase::drive, drive_generator()),
                rc::gen::set(&FanoutCase::seed, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>())),
                rc::gen::set(&FanoutCase::workers,
                             rc::gen::weightedElement<std::uint8_t>({{2, 0}, {1, 1}, {1, max_workers}})));
        });
    }

    static CaseOutcome run(const FanoutCase& value, const RunSettings& settings) {
        sim::Options options = simulation_options(value.seed, value.drive, settings);
        // The runtime cannot be unwound (it catches every exception of a poll): a run that
        // ends with tasks unfinished leaves their fibers, and keeps what they point at.
        options.abandon_unfinished = value.workers != 0;
        // Tasks an abandoned run released are forgotten; those it holds count as there before.
        if (value.workers != 0) runtime::detail::abandon_released_tasks();
        const std::size_t unfreed_before = runtime::detail::unreleased_tasks();
        sim::Executor executor{options};
        auto program = std::make_unique<Program>(value, executor);
        Judge& judge = program->judge;
        World world{*program->track, program->viewers, judge};
        executor.spawn("driver", [&](sim::Task& task) { drive(value, world, task); });
        std::vector<std::uint32_t> viewer_tasks;
        if (value.workers == 0) {
            executor.spawn("publisher", [&publisher = *program->publisher](sim::Task& task) {
                task.wait([&](const kio::Waiter& waiter) { return publisher.poll(waiter); });
            });
            for (std::size_t index = 0; index < program->viewers.size(); ++index)
                viewer_tasks.push_back(executor.spawn(
                    "viewer " + std::to_string(index), [&viewer = *program->viewers[index]](sim::Task& task) {
                        task.wait([&](const kio::Waiter& waiter) { return viewer.poll(waiter); });
                    }));
        } else {
            program->run_on_runtime(value.workers, executor);
        }
        executor.on_quiescence([&]() -> std::optional<std::string> {
            if (!judge.violation().empty()) return judge.violation();  // the first violation, not its consequence
            return judge.quiescent();
        });
        const sim::RunResult result = executor.run();
        if (result.ok()) {
            if (value.workers != 0) judge.check_quiescent();
            judge.check_complete();
            judge.check_published(world.allowed, value.finish);
        }
        // W2 only where the executor counts a viewer's wakes: the runtime polls a task only
        // after a wake, so its polls would pay for every walk and W2 could never fail.
        for (std::size_t index = 0; index < program->viewers.size(); ++index) {
            const sim::TaskStats stats =
                value.workers == 0 ? executor.task_stats(viewer_tasks[index]) : sim::TaskStats{};
            judge.check_efficiency(index, program->viewers[index]->subscriber(), value.workers == 0 ? &stats : nullptr);
        }
        // Kept too after a failed task: a worker that threw left the pool half updated.
        const bool kept = value.workers != 0 && (executor.unfinished_tasks() != 0 || !result.ok());
        if (value.workers != 0 && !kept) {
            program->destroy_program();  // no worker runs: the runtime stops at once
            judge.check_frees(runtime::detail::unreleased_tasks() - unfreed_before,
                              runtime::detail::uses_at_zero_count());
            runtime::detail::free_released_tasks();
        }
        CaseOutcome outcome = outcome_of(result, judge.violation(), executor);
        if (kept) abandoned_programs().push_back(std::move(program));
        return outcome;
    }

    static nlohmann::json to_json(const FanoutCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps) steps.push_back({Commands::names[step.command], step.extra});
        return {{"viewers", value.viewers},         {"steps", steps},     {"finish", value.finish},
                {"drive", drive_name(value.drive)}, {"seed", value.seed}, {"workers", value.workers}};
    }

    static FanoutCase from_json(const nlohmann::json& json) {
        FanoutCase value;
        value.seed = require_u64(json, "seed");
        value.drive = require_drive(json);
        if (!json.contains("viewers")) throw std::invalid_argument("'viewers' must be a whole number");
        value.viewers = require_small(json["viewers"], max_viewers, "viewers");
        if (value.viewers == 0) throw std::invalid_argument("'viewers' must be at least 1");
        if (!json.contains("finish") || !json["finish"].is_boolean())
            throw std::invalid_argument("'finish' must be true or false");
        value.finish = json["finish"].get<bool>();
        // Cases saved before the runtime ran them have no workers: the executor's tasks.
        if (json.contains("workers")) value.workers = require_small(json["workers"], max_workers, "workers");
        for (const nlohmann::json& step : require_array(json, "steps")) {
            if (!step.is_array() || step.size() != 2 || !step[0].is_string())
                throw std::invalid_argument("a step is [name, extra]");
            const auto name = step[0].get<std::string>();
            const auto found = Commands::find(name);
            if (!found) throw std::invalid_argument("unknown step '" + name + "'");
            value.steps.push_back(Step{*found, require_small(step[1], 255, "extra")});
        }
        return value;
    }

    static std::string describe(const FanoutCase& value) {
        std::ostringstream out;
        out << int{value.viewers} << (value.viewers == 1 ? " viewer, " : " viewers, ") << drive_name(value.drive);
        if (value.workers != 0)
            out << ", on the runtime with " << int{value.workers} << (value.workers == 1 ? " worker" : " workers");
        out << ", seed " << value.seed << ":";
        for (const Step& step : value.steps) out << " " << describe_step(step);
        out << (value.finish ? " finish" : " (no finish)");
        return out.str();
    }
};

}  // namespace

const Suite& fanout_suite() {
    static const TypedSuite<FanoutCase, Traits> suite{
        "fanout",
        "the session fanout program: one publisher, viewers reading as exports do, each against a resume model", 2000};
    return suite;
}

}  // namespace moq::properties
