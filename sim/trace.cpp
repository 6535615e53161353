#include "sim/trace.hpp"

#include <cstdio>

namespace moq::sim {

std::string json_quote(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                    out += escaped;
                } else {
                    out.push_back(c);
                }
        }
    }
    out.push_back('"');
    return out;
}

void Trace::record(std::uint64_t step, std::string_view event, std::string_view fields) {
    std::string line = "{\"step\":" + std::to_string(step) + ",\"event\":" + json_quote(event);
    if (!fields.empty()) {
        line.push_back(',');
        line.append(fields);
    }
    line.push_back('}');
    for (const char c : line) {
        digest_ ^= static_cast<unsigned char>(c);
        digest_ *= 0x100000001B3ull;  // FNV-1a prime
    }
    digest_ ^= '\n';
    digest_ *= 0x100000001B3ull;
    ++events_;
    if (keep_lines_) lines_.push_back(std::move(line));
}

std::string Trace::digest_hex() const {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest_));
    return text;
}

}  // namespace moq::sim
