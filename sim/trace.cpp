#include "sim/trace.hpp"

#include <cstdio>

#include "util/json_quote.hpp"

namespace moq::sim {

void Trace::hash(std::string_view text) {
    for (const char c : text) {
        digest_ ^= static_cast<unsigned char>(c);
        digest_ *= 0x100000001B3ull;  // FNV-1a prime
    }
}

void Trace::hash_quoted(std::string_view text) {
    hash("\"");
    for (const char c : text) {
        char buffer[8];
        const std::string_view escaped = util::json_escape(c, buffer);
        hash(escaped.empty() ? std::string_view(&c, 1) : escaped);
    }
    hash("\"");
}

void Trace::record(std::uint64_t step, std::string_view event, std::initializer_list<std::string_view> fields) {
    char number[24];
    const int digits = std::snprintf(number, sizeof number, "%llu", static_cast<unsigned long long>(step));
    hash("{\"step\":");
    hash(std::string_view(number, static_cast<std::size_t>(digits)));
    hash(",\"event\":");
    hash_quoted(event);
    bool any = false;
    for (std::string_view field : fields) any = any || !field.empty();
    if (any) hash(",");
    for (std::string_view field : fields) hash(field);
    hash("}\n");
    ++events_;
    if (!keep_lines_) return;
    std::string line =
        "{\"step\":" + std::string(number, static_cast<std::size_t>(digits)) + ",\"event\":" + util::json_quote(event);
    if (any) line.push_back(',');
    for (std::string_view field : fields) line.append(field);
    line.push_back('}');
    lines_.push_back(std::move(line));
}

std::string Trace::digest_hex() const {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest_));
    return text;
}

}  // namespace moq::sim
