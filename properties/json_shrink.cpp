#include "properties/json_shrink.hpp"

#include <cstdint>

namespace moq::properties {

namespace {

// `items` without one run of elements, for runs of every power-of-two fraction of its length.
void without_runs(const nlohmann::json& items, std::vector<nlohmann::json>& out) {
    const std::size_t size = items.size();
    for (std::size_t run = size; run >= 1; run /= 2) {
        for (std::size_t start = 0; start + run <= size; start += run) {
            nlohmann::json smaller = nlohmann::json::array();
            for (std::size_t at = 0; at < size; ++at)
                if (at < start || at >= start + run) smaller.push_back(items[at]);
            out.push_back(std::move(smaller));
        }
        if (run == 1) break;
    }
}

// 0, half way, one nearer zero: those of them that differ, each once.
template <class Number>
void toward_zero(Number number, std::vector<nlohmann::json>& out) {
    if (number == 0) return;
    const Number half = number / 2;
    const Number nearer = number > 0 ? number - 1 : number + 1;
    out.push_back(Number{0});
    if (half != 0) out.push_back(half);
    if (nearer != 0 && nearer != half) out.push_back(nearer);
}

// What a candidate changes: parts of arrays left out, or single values made smaller.
enum class Cut { runs, values };

void smaller_values(const nlohmann::json& value, Cut cut, std::vector<nlohmann::json>& out) {
    const auto each_member = [&](auto key, const nlohmann::json& member) {
        std::vector<nlohmann::json> smaller;
        smaller_values(member, cut, smaller);
        for (nlohmann::json& candidate : smaller) {
            nlohmann::json changed = value;
            changed[key] = std::move(candidate);
            out.push_back(std::move(changed));
        }
    };
    if (value.is_array()) {
        if (cut == Cut::runs) without_runs(value, out);
        for (std::size_t at = 0; at < value.size(); ++at) each_member(at, value[at]);
    } else if (value.is_object()) {
        for (const auto& [key, member] : value.items()) each_member(key, member);
    } else if (cut == Cut::runs) {
        return;
    } else if (value.is_number_unsigned()) {
        toward_zero(value.get<std::uint64_t>(), out);
    } else if (value.is_number_integer()) {
        toward_zero(value.get<std::int64_t>(), out);
    } else if (value.is_boolean() && value.get<bool>()) {
        out.push_back(false);
    }
}

}  // namespace

std::vector<nlohmann::json> smaller_json_values(const nlohmann::json& value) {
    std::vector<nlohmann::json> out;
    // Every cut of an array before any smaller value: fewer operations shrink a case most.
    smaller_values(value, Cut::runs, out);
    smaller_values(value, Cut::values, out);
    return out;
}

}  // namespace moq::properties
