// A suite made only here, as CONTRIBUTING.md's recipe makes one: a counter against a
// plain model, its operations one command table, run by the machinery every suite runs
// under (generated from a seed and index, stored as JSON, shrunk, listed as data).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/commands.hpp"
#include "properties/drive.hpp"
#include "properties/json_shrink.hpp"
#include "properties/small_scope.hpp"
#include "properties/suite.hpp"
#include "sim/trace.hpp"

namespace {

using namespace moq::properties;

struct Step {
    std::uint8_t command = 0;  // an index into the table
    std::uint8_t amount = 0;
};

struct CounterCase {
    std::vector<Step> steps;
};

// The system (with a bug when asked: an add of 3 adds nothing) and its model.
struct World {
    bool buggy = false;
    int system = 0;
    int model = 0;
};

struct Add {
    static constexpr const char* name = "add";
    static constexpr std::size_t weight = 3;
    static constexpr std::array<Argument, 1> arguments{Argument{"amount", 0, 5}};
    static bool applies(const World&, const Step&) { return true; }
    static void run(World& world, const Step& step) {
        world.model += step.amount;
        if (!(world.buggy && step.amount == 3)) world.system += step.amount;
    }
};

// Every swarm case keeps its resets.
struct Reset {
    static constexpr const char* name = "reset";
    static constexpr std::size_t weight = 1;
    static constexpr bool swarm_may_drop = false;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World& world, const Step&) { return world.model != 0; }
    static void run(World& world, const Step&) { world.model = world.system = 0; }
};

template <bool buggy>
struct CounterTraits {
    using Commands = CommandTable<Add, Reset>;

    static rc::Gen<CounterCase> generator(Mix mix) {
        return Commands::generator(mix, [](const rc::Gen<std::uint8_t>& kind) {
            const auto step = rc::gen::build<Step>(rc::gen::set(&Step::command, kind),
                                                   rc::gen::set(&Step::amount, byte_in(Add::arguments[0])));
            return rc::gen::build<CounterCase>(
                rc::gen::set(&CounterCase::steps, rc::gen::container<std::vector<Step>>(step)));
        });
    }

    static CaseOutcome run(const CounterCase& value, const RunSettings& settings) {
        World world{buggy};
        moq::sim::Trace trace{settings.keep_trace};
        CaseOutcome outcome;
        for (const Step& step : value.steps) {
            Commands::run(step.command, world, step, [&](const char* name) {
                trace.record(moq::sim::operation_event(name, {step.amount}), outcome.steps++, 0);
            });
            if (world.system != world.model && outcome.ok) {
                outcome.ok = false;
                outcome.message = "the toy counter rule: the counter is " + std::to_string(world.system) +
                                  ", the model " + std::to_string(world.model);
            }
        }
        outcome.digest = trace.digest();
        return outcome;
    }

    static nlohmann::json to_json(const CounterCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps) steps.push_back({Commands::names[step.command], step.amount});
        return {{"steps", steps}};
    }

    static CounterCase from_json(const nlohmann::json& json) {
        CounterCase value;
        for (const nlohmann::json& step : require_array(json, "steps")) {
            const auto found = Commands::find(step.at(0).get<std::string>());
            if (!found) throw std::invalid_argument("unknown step");
            value.steps.push_back(Step{*found, require_small(step.at(1), 255, "amount")});
        }
        return value;
    }

    static std::string describe(const CounterCase& value) { return to_json(value).dump(); }
};

const Suite& counter_suite() {
    static const TypedSuite<CounterCase, CounterTraits<false>> suite{"counter", "a counter against its model", 100};
    return suite;
}

const Suite& buggy_counter_suite() {
    static const TypedSuite<CounterCase, CounterTraits<true>> suite{"buggy", "a counter that drops adds of 3", 100};
    return suite;
}

// The buggy counter with a small scope declared (properties/scope.hpp): adds of 0 to 3
// and the reset, in one shape with nothing but steps; no symmetry.
struct ScopedCounterTraits : CounterTraits<true> {
    static SmallScope small_scope() {
        std::vector<nlohmann::json> steps;
        for (unsigned amount = 0; amount < 4; ++amount) steps.push_back(nlohmann::json::array({"add", amount}));
        steps.push_back(nlohmann::json::array({"reset", 0u}));
        return SmallScope{{ScopeShape{nlohmann::json::object(), steps}}, {}};
    }
};

const Suite& scoped_counter_suite() {
    static const TypedSuite<CounterCase, ScopedCounterTraits> suite{"scoped", "the buggy counter, small scope", 100};
    return suite;
}

// The smallest failing case the shrinker reaches from `value`, as the sweep shrinks.
std::unique_ptr<Case> shrunk(const Case& value) {
    const auto fails = [](const Case& candidate) { return !candidate.run(RunSettings{}).ok; };
    std::unique_ptr<Case> smallest = value.clone();
    while (auto smaller = smallest->first_failing_shrink(fails)) smallest = std::move(smaller);
    return smallest;
}

}  // namespace

TEST_CASE("an_example_suite_made_from_a_command_table_passes_a_sweep_and_lists_its_operations") {
    const Suite& suite = counter_suite();
    for (std::uint64_t index = 0; index < 200; ++index) {
        const auto generated = suite.generate(1, index);
        REQUIRE(generated->run(RunSettings{}).ok);
        CHECK(suite.from_json(generated->to_json())->to_json() == generated->to_json());
    }
    const std::vector<Operation> operations = suite.operations();
    REQUIRE(operations.size() == 2);
    CHECK(operations[0].name == "add");
    CHECK(operations[0].weight == 3);
    CHECK(operations[0].swarm_may_drop);
    REQUIRE(operations[0].arguments.size() == 1);
    CHECK(operations[0].arguments[0].high == 5);
    CHECK(operations[1].name == "reset");
    CHECK_FALSE(operations[1].swarm_may_drop);
    CHECK(operations[1].arguments.empty());
}

TEST_CASE("an_example_suite_with_a_bug_fails_and_shrinks_to_the_one_step_that_shows_it") {
    const Suite& suite = buggy_counter_suite();
    std::unique_ptr<Case> failing;
    for (std::uint64_t index = 0; index < 200 && !failing; ++index) {
        auto generated = suite.generate(1, index);
        if (!generated->run(RunSettings{}).ok) failing = std::move(generated);
    }
    REQUIRE(failing != nullptr);
    const auto smallest = shrunk(*failing);
    CHECK(smallest->to_json() == nlohmann::json::parse(R"({"steps": [["add", 3]]})"));
    CHECK(smallest->run(RunSettings{}).message == "the toy counter rule: the counter is 0, the model 3");
}

TEST_CASE("a_case_read_back_from_its_json_shrinks_through_it_to_the_one_step_that_shows_it") {
    const Suite& suite = buggy_counter_suite();
    const auto read = suite.from_json(nlohmann::json::parse(
        R"({"steps": [["add", 1], ["reset", 0], ["add", 5], ["add", 3], ["add", 2], ["add", 0]]})"));
    REQUIRE_FALSE(read->run(RunSettings{}).ok);
    const auto smallest = shrunk(*read);
    CHECK(smallest->to_json() == nlohmann::json::parse(R"({"steps": [["add", 3]]})"));
    // A step the suite cannot read (the reset's amount left out, or a byte past 255) is no candidate.
    const auto all = suite.from_json(nlohmann::json::parse(R"({"steps": [["add", 3]]})"));
    std::vector<nlohmann::json> candidates;
    static_cast<void>(all->first_failing_shrink([&](const Case& candidate) {
        candidates.push_back(candidate.to_json());
        return false;
    }));
    CHECK(candidates == std::vector<nlohmann::json>{nlohmann::json::parse(R"({"steps": []})"),
                                                    nlohmann::json::parse(R"({"steps": [["add", 0]]})"),
                                                    nlohmann::json::parse(R"({"steps": [["add", 1]]})"),
                                                    nlohmann::json::parse(R"({"steps": [["add", 2]]})")});
}

TEST_CASE("the_json_forms_smaller_than_a_value_cut_arrays_first_then_move_numbers_toward_zero") {
    const auto smaller = smaller_json_values(nlohmann::json::parse(R"({"on": true, "n": -3, "list": [7, 8, 9, 6]})"));
    const auto holds = [&](const char* text) {
        return std::find(smaller.begin(), smaller.end(), nlohmann::json::parse(text)) != smaller.end();
    };
    // Runs of the list: all four, each half, each single element, in that order, first.
    REQUIRE(smaller.size() >= 7);
    CHECK(smaller[0] == nlohmann::json::parse(R"({"on": true, "n": -3, "list": []})"));
    CHECK(smaller[1] == nlohmann::json::parse(R"({"on": true, "n": -3, "list": [9, 6]})"));
    CHECK(smaller[2] == nlohmann::json::parse(R"({"on": true, "n": -3, "list": [7, 8]})"));
    CHECK(smaller[3] == nlohmann::json::parse(R"({"on": true, "n": -3, "list": [8, 9, 6]})"));
    CHECK(smaller[6] == nlohmann::json::parse(R"({"on": true, "n": -3, "list": [7, 8, 9]})"));
    CHECK(holds(R"({"on": false, "n": -3, "list": [7, 8, 9, 6]})"));
    for (const char* n : {"0", "-1", "-2"})
        CHECK(holds((std::string(R"({"on": true, "list": [7, 8, 9, 6], "n": )") + n + "}").c_str()));
    CHECK(holds(R"({"on": true, "n": -3, "list": [7, 8, 9, 3]})"));
    CHECK(holds(R"({"on": true, "n": -3, "list": [7, 8, 9, 5]})"));
    // Nothing repeats, and nothing is the value itself or larger.
    CHECK(std::set<nlohmann::json>(smaller.begin(), smaller.end()).size() == smaller.size());
    CHECK_FALSE(holds(R"({"on": true, "n": -3, "list": [7, 8, 9, 6]})"));
    CHECK_FALSE(holds(R"({"on": true, "n": -4, "list": [7, 8, 9, 6]})"));
    CHECK(smaller_json_values(nlohmann::json::parse(R"([0, false, "text", null])")).size() == 4 + 2 + 1);
}

TEST_CASE("a_swarm_case_keeps_every_operation_its_table_says_it_may_not_drop") {
    const Suite& suite = counter_suite();
    std::size_t without_adds = 0;
    // Cases of the largest sizes (case_size: the index modulo 101), whose draws span the
    // whole weight list, and long ones: they show which kinds the case kept.
    for (std::uint64_t index = 95; index < 101 * 40; index += index % 101 == 100 ? 96 : 1) {
        const nlohmann::json steps = suite.generate(4, index, Mix::swarm)->to_json()["steps"];
        if (steps.size() < 40) continue;
        bool adds = false;
        bool resets = false;
        for (const nlohmann::json& step : steps) (step[0] == "add" ? adds : resets) = true;
        INFO(steps.dump());
        CHECK(resets);
        if (!adds) ++without_adds;
    }
    // The swarm does drop the kind it may: some cases have no adds at all.
    CHECK(without_adds > 0);
}

TEST_CASE("an_example_suite_with_a_small_scope_fails_in_it_and_one_without_has_none") {
    std::vector<nlohmann::json> failing;
    const SmallScopeTotals totals =
        for_each_small_case(scoped_counter_suite(), 1, [&](const Case& value, std::uint64_t) {
            if (!value.run(RunSettings{}).ok) failing.push_back(value.to_json());
            return true;
        });
    CHECK(totals.visited == 5);
    REQUIRE(failing.size() == 1);
    CHECK(failing[0] == nlohmann::json::parse(R"({"steps": [["add", 3]]})"));
    CHECK_THROWS_AS(static_cast<void>(count_small_cases(counter_suite(), 1)), std::invalid_argument);
}
