// Smaller versions of a case's JSON form, for cases read from a file (a corpus case, a
// decisions file), which have no generator's shrink tree: parts of every array left out
// (halves first, then quarters, down to one element, as RapidCheck shrinks a container),
// then each number moved toward zero and each true made false. The suite's own reader
// decides which of them are cases at all.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace moq::properties {

// The candidates, the likely largest cuts first; none equal to `value`.
std::vector<nlohmann::json> smaller_json_values(const nlohmann::json& value);

}  // namespace moq::properties
