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
#include <vector>

#include <nlohmann/json.hpp>

namespace moq::properties {

// Every number anywhere in `json` is a whole number of at least 0: nlohmann converts a
// fraction or a negative number into an unsigned field without a word (1e20 into a
// uint32_t is undefined). A walk with its own stack, so deep nesting cannot overflow ours.
inline void require_whole_numbers(const nlohmann::json& json, const char* what) {
    std::vector<const nlohmann::json*> pending{&json};
    while (!pending.empty()) {
        const nlohmann::json& value = *pending.back();
        pending.pop_back();
        if (value.is_number() && !value.is_number_unsigned())
            throw std::invalid_argument(std::string("a ") + what + " case: " + value.dump() +
                                        " is not a whole number of at least 0");
        if (value.is_structured())
            for (const nlohmann::json& element : value) pending.push_back(&element);
    }
}

// `json` as a T, with nlohmann's type and missing-key errors as one-line invalid_argument.
template <class T>
T read_case(const nlohmann::json& json, const char* what) {
    require_whole_numbers(json, what);
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
