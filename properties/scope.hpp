// A suite's small scope: the small cases it declares beside its command table, which
// `moqsim sweep --ops N` runs every one of (properties/small_scope.hpp enumerates them),
// and the symmetries under which two of them are the same case.
//
// A scope is data in the suite's own stored-case JSON, so every enumerated case is read
// by the suite's `from_json`, exactly as a stored case is:
//   - shapes: each is the case's other parts (readers, drive, seed, ...: the case's JSON
//     without "steps") and every small step a case of that shape may take, as the
//     case's JSON writes a step;
//   - renamings: names the suite treats alike (copies, readers). A renaming gives how
//     many names a shape has and rewrites a whole case with name i renamed to to[i]:
//     settings and steps alike. The shapes must be closed under it (a renamed shape and
//     step are again in the scope); the enumeration checks that.
// docs/TESTING.md says why each declared renaming cannot hide a failure a model sees.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/operation.hpp"

namespace moq::properties {

struct ScopeShape {
    nlohmann::json settings;            // the case's JSON without "steps"
    std::vector<nlohmann::json> steps;  // every small step, in a fixed order
};

struct Renaming {
    std::string what;  // "copy", "reader": for messages
    std::function<std::size_t(const nlohmann::json& settings)> names;
    std::function<void(nlohmann::json& value, const std::vector<std::size_t>& to)> apply;
};

struct SmallScope {
    std::vector<ScopeShape> shapes;
    std::vector<Renaming> renamings;
};

// Every combination of one value from each list, in odometer order (the last list
// turning fastest), each built by `make` from the chosen values: how a suite spells
// the product of its small settings without nested loops.
inline std::vector<nlohmann::json> every_combination(
    const std::vector<std::vector<nlohmann::json>>& lists,
    const std::function<nlohmann::json(const std::vector<nlohmann::json>&)>& make) {
    std::vector<nlohmann::json> made;
    std::vector<std::size_t> at(lists.size(), 0);
    for (const auto& list : lists)
        if (list.empty()) return made;
    for (;;) {
        std::vector<nlohmann::json> chosen;
        for (std::size_t i = 0; i < lists.size(); ++i) chosen.push_back(lists[i][at[i]]);
        made.push_back(make(chosen));
        std::size_t turning = lists.size();
        while (turning > 0 && ++at[turning - 1] == lists[turning - 1].size()) at[--turning] = 0;
        if (turning == 0) return made;
    }
}

// In every `[name, ...]` step of `steps` whose command (in `operations`) takes the
// argument `argument`, the name at `position` renamed to to[name]: a renaming's steps.
inline void rename_argument(nlohmann::json& steps, const std::vector<Operation>& operations, std::string_view argument,
                            std::size_t position, const std::vector<std::size_t>& to) {
    for (nlohmann::json& step : steps) {
        for (const Operation& operation : operations) {
            if (step[0] != operation.name) continue;
            for (const Argument& taken : operation.arguments)
                if (taken.name == argument) step[position] = to.at(step[position].get<std::size_t>());
        }
    }
}

}  // namespace moq::properties
