#include "properties/suite.hpp"

#include "sim/random.hpp"

namespace moq::properties {

rc::Random case_random(std::uint64_t seed, std::uint64_t index) {
    // SplitMix64 over (seed, index): independent streams for every case.
    return rc::Random(sim::splitmix64_mix(seed * sim::splitmix64_gamma + index + 0x632BE59BD9B4E019ull));
}

int case_size(std::uint64_t index) { return static_cast<int>(index % 101); }

CaseOutcome Case::run(const RunSettings& settings) const {
    if (settings.strategy != sim::StrategyKind::surw || settings.decider || !settings.task_events.empty())
        return run_once(settings);
    // SURW weighs each task by its events to come: a trial run of the same case, as a
    // random walk, counts them (as shuttle's uniform random scheduler estimates them).
    RunSettings trial;
    trial.strategy = sim::StrategyKind::random;
    RunSettings weighted = settings;
    weighted.task_events = run_once(trial).task_events;
    return run_once(weighted);
}

std::vector<std::string> Suite::operation_kinds(const Case& value) const {
    std::vector<std::string> kinds;
    const nlohmann::json json = value.to_json();
    if (!json.is_object() || !json.contains("steps") || !json["steps"].is_array()) return kinds;
    for (const nlohmann::json& step : json["steps"])
        if (step.is_array() && !step.empty() && step[0].is_string()) kinds.push_back(step[0].get<std::string>());
    return kinds;
}

const Suite* find_suite(std::string_view name) {
    for (const Suite* suite : suites())
        if (suite->name() == name) return suite;
    return nullptr;
}

}  // namespace moq::properties
