// What a suite needs to store its cases with nlohmann_json's macros. A suite declares its
// step types with NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE and its operations with
// NLOHMANN_JSON_SERIALIZE_ENUM (whose first entry is the value every unknown name becomes,
// so it names none of the real operations), reads a stored case with read_case, and then
// checks what the types cannot say: require_known for the operations, require_below for
// ranges. Every bad input is a one-line std::invalid_argument.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace moq::properties {

// `json` as a T, with nlohmann's type and missing-key errors as one-line invalid_argument.
template <class T>
T read_case(const nlohmann::json& json, const char* what) {
    try {
        return json.get<T>();
    } catch (const nlohmann::json::exception& error) {
        throw std::invalid_argument(std::string("a ") + what + " case: " + error.what());
    }
}

// A parsed enum that NLOHMANN_JSON_SERIALIZE_ENUM mapped to its `unknown` entry.
template <class E>
void require_known(E value, E unknown, const char* what) {
    if (value == unknown) throw std::invalid_argument(std::string("unknown ") + what);
}

// A parsed number below `limit` (a negative number read into an unsigned type is huge).
inline void require_below(std::uint64_t value, std::uint64_t limit, const char* what) {
    if (value >= limit)
        throw std::invalid_argument(std::string(what) + " " + std::to_string(value) + " is out of range (0 to " +
                                    std::to_string(limit - 1) + ")");
}

}  // namespace moq::properties
