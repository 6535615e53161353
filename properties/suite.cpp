#include "properties/suite.hpp"

#include "properties/suites.hpp"

namespace moq::properties {

rc::Random case_random(std::uint64_t seed, std::uint64_t index) {
    // SplitMix64 over (seed, index): independent streams for every case.
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return rc::Random(z ^ (z >> 31));
}

int case_size(std::uint64_t index) { return static_cast<int>(index % 101); }

std::vector<std::string> Suite::operation_kinds(const Case& value) const {
    std::vector<std::string> kinds;
    const nlohmann::json json = value.to_json();
    if (!json.is_object() || !json.contains("steps") || !json["steps"].is_array()) return kinds;
    for (const nlohmann::json& step : json["steps"])
        if (step.is_array() && !step.empty() && step[0].is_string()) kinds.push_back(step[0].get<std::string>());
    return kinds;
}

const std::vector<const Suite*>& suites() {
    static const std::vector<const Suite*> all{&waiter_suite(), &gate_suite(),   &group_suite(),
                                               &track_suite(),  &resume_suite(), &fanout_suite()};
    return all;
}

const Suite* find_suite(std::string_view name) {
    for (const Suite* suite : suites())
        if (suite->name() == name) return suite;
    return nullptr;
}

}  // namespace moq::properties
