// Shrinking an explored failure (cli/schedule_shrink.hpp) on a case made for it: two tasks
// that lose an update only when one is switched away between its read and its write,
// among other tasks that do nothing to the counter. Its default schedule passes, so only
// an exploration of each smaller case can tell that it still fails.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runner/schedule_shrink.hpp"
#include "runner/shrink.hpp"
#include "properties/explore.hpp"
#include "sim/executor.hpp"

namespace moq::runner {

namespace {

// Steps "add" each spawn a task that reads the counter, reaches a schedule point and writes
// it back plus one; steps "idle" spawn a task that only reaches two schedule points. The
// case fails when the counter misses an add.
class RacingCase final : public properties::Case {
public:
    explicit RacingCase(std::vector<std::string> steps) : steps_(std::move(steps)) {}

    [[nodiscard]] properties::CaseOutcome run_once(const properties::RunSettings& settings) const override {
        sim::Options options;
        options.strategy.kind = settings.strategy;
        options.decider = settings.decider;
        sim::Executor executor(options);
        int counter = 0;
        std::vector<int> reads(steps_.size(), 0);
        int adds = 0;
        for (std::size_t at = 0; at < steps_.size(); ++at) {
            if (steps_[at] == "add") {
                ++adds;
                executor.spawn("add", [&counter, &reads, at](sim::Task& task) {
                    reads[at] = counter;
                    task.schedule_point("between read and write");
                    counter = reads[at] + 1;
                });
            } else {
                executor.spawn("idle", [](sim::Task& task) {
                    task.schedule_point("idle once");
                    task.schedule_point("idle twice");
                });
            }
        }
        const sim::RunResult result = executor.run();
        properties::CaseOutcome outcome;
        outcome.digest = result.digest;
        outcome.ok = result.ok() && counter == adds;
        if (!outcome.ok) outcome.message = "lost update: " + std::to_string(counter) + " of " + std::to_string(adds);
        return outcome;
    }
    [[nodiscard]] nlohmann::json to_json() const override { return steps_; }
    [[nodiscard]] std::string describe() const override { return to_json().dump(); }
    [[nodiscard]] std::unique_ptr<Case> clone() const override { return std::make_unique<RacingCase>(steps_); }
    // The smaller cases: one step left out, from the first.
    [[nodiscard]] std::unique_ptr<Case> first_failing_shrink(
        const std::function<bool(const Case&)>& fails) const override {
        for (std::size_t left_out = 0; left_out < steps_.size(); ++left_out) {
            std::vector<std::string> smaller = steps_;
            smaller.erase(smaller.begin() + static_cast<std::ptrdiff_t>(left_out));
            auto candidate = std::make_unique<RacingCase>(smaller);
            if (fails(*candidate)) return candidate;
        }
        return nullptr;
    }

private:
    std::vector<std::string> steps_;
};

// The first failing schedule of `value` within `bound`.
sim::ExploredFailure explored_failure(const properties::Case& value, std::uint32_t bound) {
    sim::ExploreOptions options;
    options.bound = bound;
    sim::ExploreState state;
    properties::explore_case(value, options, state);
    REQUIRE(state.failures.size() == 1);
    return state.failures.front();
}

int costly_choices(const std::vector<sim::Decision>& decisions) {
    return static_cast<int>(std::count_if(decisions.begin(), decisions.end(), [](const sim::Decision& decision) {
        return decision.choice != decision.fallback && decision.kind == sim::DecisionKind::preempt;
    }));
}

}  // namespace

TEST_CASE("an explored failure shrinks to the two racing tasks at one preemption, though its default schedule passes") {
    const RacingCase failing({"idle", "add", "idle", "idle", "add", "add", "idle"});
    // Only a preemption makes it fail: its default schedule passes, so a shrink along that
    // schedule has nothing to take.
    const properties::RunSettings in_order{.strategy = sim::StrategyKind::fifo};
    CHECK(failing.run(in_order).ok);
    CHECK(shrink(failing, in_order).outcome.ok);
    const sim::ExploredFailure found = explored_failure(failing, 3);

    ScheduleShrinkLimits limits;
    limits.bound = 3;
    const ShrunkSchedule shrunk = shrink_schedule(failing, found.decisions, found.verdict, limits);
    CHECK(shrunk.complete);
    CHECK(shrunk.smallest->describe() == R"(["add","add"])");
    CHECK(shrunk.steps == 5);
    CHECK(shrunk.bound == 1);
    CHECK(shrunk.verdict.message == "lost update: 1 of 2");
    CHECK(costly_choices(shrunk.decisions) <= 1);

    // Its schedule replays to the failure, with the digest the shrink reported.
    const properties::DecidedRun replayed = properties::run_decisions(*shrunk.smallest, shrunk.decisions);
    CHECK(replayed.followed);
    CHECK_FALSE(replayed.outcome.ok);
    CHECK(replayed.outcome.digest == shrunk.verdict.digest);
}

TEST_CASE("a candidate whose exploration passes its schedule limit unfailed counts as passing") {
    const RacingCase failing({"idle", "add", "add"});
    const sim::ExploredFailure found = explored_failure(failing, 2);
    ScheduleShrinkLimits limits;
    limits.bound = 2;
    limits.schedules_per_candidate = 1;  // one run: the default schedule, which passes
    const ShrunkSchedule shrunk = shrink_schedule(failing, found.decisions, found.verdict, limits);
    CHECK(shrunk.steps == 0);
    CHECK(shrunk.smallest->describe() == R"(["idle","add","add"])");
    CHECK(shrunk.schedules == 3 + 2);  // three candidates, then bounds 0 and 1 of the case itself
    CHECK(shrunk.bound == 2);
    CHECK(shrunk.decisions.size() == found.decisions.size());
}

TEST_CASE("a shrink past its deadline keeps the case and schedule it was given") {
    const RacingCase failing({"idle", "add", "add"});
    const sim::ExploredFailure found = explored_failure(failing, 2);
    ScheduleShrinkLimits limits;
    limits.bound = 2;
    limits.deadline = std::chrono::steady_clock::now();
    const ShrunkSchedule shrunk = shrink_schedule(failing, found.decisions, found.verdict, limits);
    CHECK_FALSE(shrunk.complete);
    CHECK(shrunk.steps == 0);
    CHECK(shrunk.bound == 2);
    CHECK(shrunk.verdict.digest == found.verdict.digest);
}

}  // namespace moq::runner
