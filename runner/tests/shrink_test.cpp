// Shrinking a failure, case and schedule together (runner/shrink.hpp), on a case made for
// it: tasks that lose an update only when one is switched away between its read and its
// write, among other tasks that do nothing to the counter. Its default schedule passes,
// so a smaller case can fail only along a schedule: the failing run's, the strategy's or
// one an exploration finds.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "properties/explore.hpp"
#include "runner/shrink.hpp"
#include "sim/executor.hpp"

namespace moq::runner {

namespace {

// Steps "add" each spawn a task that reads the counter, reaches a schedule point and writes
// it back plus one; steps "idle" spawn a task that only reaches two schedule points. The
// case fails when the counter misses an add.
class RacingCase final : public properties::Case {
public:
    explicit RacingCase(std::vector<std::string> steps, std::uint64_t seed = 1)
        : steps_(std::move(steps)), seed_(seed) {}

    [[nodiscard]] properties::CaseOutcome run_once(const properties::RunSettings& settings) const override {
        sim::Options options;
        options.seed = seed_;
        options.strategy.kind = settings.strategy;
        options.decider = settings.decider;
        options.record_decisions = settings.record_decisions;
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
        outcome.decisions = result.decisions;
        outcome.costly_choices = result.costly_choices;
        outcome.ok = result.ok() && counter == adds;
        if (!outcome.ok) outcome.message = "lost update: " + std::to_string(counter) + " of " + std::to_string(adds);
        return outcome;
    }
    [[nodiscard]] nlohmann::json to_json() const override { return steps_; }
    [[nodiscard]] std::string describe() const override { return to_json().dump(); }
    [[nodiscard]] std::unique_ptr<Case> clone() const override { return std::make_unique<RacingCase>(steps_, seed_); }
    // The smaller cases: one step left out, from the first.
    [[nodiscard]] std::unique_ptr<Case> first_failing_shrink(
        const std::function<bool(const Case&)>& fails) const override {
        for (std::size_t left_out = 0; left_out < steps_.size(); ++left_out) {
            std::vector<std::string> smaller = steps_;
            smaller.erase(smaller.begin() + static_cast<std::ptrdiff_t>(left_out));
            auto candidate = std::make_unique<RacingCase>(smaller, seed_);
            if (fails(*candidate)) return candidate;
        }
        return nullptr;
    }

private:
    std::vector<std::string> steps_;
    std::uint64_t seed_;
};

// The first failing run of `value` an exploration within `bound` finds, its decisions recorded.
properties::CaseOutcome explored_failure(const properties::Case& value, std::uint32_t bound) {
    sim::ExploreOptions options;
    options.bound = bound;
    sim::ExploreState state;
    properties::explore_case(value, options, state);
    REQUIRE(state.failures.size() == 1);
    return properties::run_decisions(value, state.failures.front().decisions).outcome;
}

// The shrink of a sweep's failure before the schedule was shrunk with it: a smaller case
// counts only when its own run under the strategy fails.
std::unique_ptr<properties::Case> shrunk_alone(const properties::Case& failing, sim::StrategyKind strategy) {
    std::unique_ptr<properties::Case> current = failing.clone();
    while (auto smaller = current->first_failing_shrink(
               [strategy](const properties::Case& candidate) { return !candidate.run({.strategy = strategy}).ok; }))
        current = std::move(smaller);
    return current;
}

}  // namespace

TEST_CASE("an explored failure shrinks to the two racing tasks at one preemption, though its default schedule passes") {
    const RacingCase failing({"idle", "add", "idle", "idle", "add", "add", "idle"});
    // Only a preemption makes it fail: its default schedule passes.
    CHECK(failing.run({.strategy = sim::StrategyKind::fifo}).ok);
    const properties::CaseOutcome found = explored_failure(failing, 3);

    const Shrunk shrunk = shrink(Failing{&failing, found, std::nullopt});
    CHECK(shrunk.complete);
    CHECK(shrunk.smallest->describe() == R"(["add","add"])");
    CHECK(shrunk.steps == 5);
    CHECK(shrunk.outcome.costly_choices == 1);
    CHECK(shrunk.outcome.message == "lost update: 1 of 2");

    // Its schedule replays to the failure, with the digest the shrink reported.
    const properties::DecidedRun replayed = properties::run_decisions(*shrunk.smallest, shrunk.outcome.decisions);
    CHECK(replayed.followed);
    CHECK_FALSE(replayed.outcome.ok);
    CHECK(replayed.outcome.digest == shrunk.outcome.digest);
}

TEST_CASE("a sweep's failure shrinks, case and schedule together, at least as far as its strategy alone") {
    for (const sim::StrategyKind strategy :
         {sim::StrategyKind::random, sim::StrategyKind::pct, sim::StrategyKind::pos, sim::StrategyKind::surw}) {
        CAPTURE(sim::strategy_name(strategy));
        int compared = 0;
        int better = 0;
        for (std::uint64_t seed = 1; seed <= 300 && compared < 5; ++seed) {
            const RacingCase failing({"idle", "add", "idle", "add", "idle", "add"}, seed);
            const properties::CaseOutcome found = failing.run({.strategy = strategy, .record_decisions = true});
            if (found.ok) continue;
            CAPTURE(seed);
            const Shrunk together = shrink(Failing{&failing, found, strategy});
            const std::unique_ptr<properties::Case> alone = shrunk_alone(failing, strategy);
            const properties::CaseOutcome alone_run = alone->run({.strategy = strategy, .record_decisions = true});
            CHECK_FALSE(together.outcome.ok);
            const std::size_t together_size = together.smallest->to_json().size();
            const std::size_t alone_size = alone->to_json().size();
            // No larger case, and at the same case no more preemptions than the strategy's run.
            CHECK(together_size <= alone_size);
            if (together_size == alone_size) CHECK(together.outcome.costly_choices <= alone_run.costly_choices);
            better += together_size < alone_size || together.outcome.costly_choices < alone_run.costly_choices ? 1 : 0;
            ++compared;
        }
        CHECK(compared > 0);
        // A random walk switches at many points: the shrunk schedule needs fewer.
        if (strategy == sim::StrategyKind::random) CHECK(better > 0);
    }
}

TEST_CASE("a candidate whose exploration passes its schedule limit unfailed counts as passing") {
    const RacingCase failing({"idle", "add", "add"});
    const properties::CaseOutcome found = explored_failure(failing, 2);
    ShrinkLimits limits;
    limits.schedules_per_candidate = 1;  // one run: the default schedule, which passes
    const Shrunk shrunk = shrink(Failing{&failing, found, std::nullopt}, limits);
    // Leaving the idle task out changes every pick, so no run along the decisions fails.
    CHECK(shrunk.steps == 0);
    CHECK(shrunk.smallest->describe() == R"(["idle","add","add"])");
    CHECK_FALSE(shrunk.outcome.ok);
}

TEST_CASE("a shrink past its deadline keeps the case and schedule it was given") {
    const RacingCase failing({"idle", "add", "add"});
    const properties::CaseOutcome found = explored_failure(failing, 2);
    ShrinkLimits limits;
    limits.deadline = std::chrono::steady_clock::now();
    const Shrunk shrunk = shrink(Failing{&failing, found, std::nullopt}, limits);
    CHECK_FALSE(shrunk.complete);
    CHECK(shrunk.steps == 0);
    CHECK(shrunk.outcome.digest == found.digest);
    CHECK(shrunk.outcome.decisions.size() == found.decisions.size());
}

}  // namespace moq::runner
