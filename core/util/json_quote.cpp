#include "util/json_quote.hpp"

#include <cstdio>

namespace moq::util {

std::string_view json_escape(char c, char (&buffer)[8]) {
    switch (c) {
        case '"': return "\\\"";
        case '\\': return "\\\\";
        case '\n': return "\\n";
        case '\t': return "\\t";
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                return buffer;
            }
            return {};
    }
}

std::string json_quote(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        char buffer[8];
        const std::string_view escaped = json_escape(c, buffer);
        if (escaped.empty()) {
            out.push_back(c);
        } else {
            out.append(escaped);
        }
    }
    out.push_back('"');
    return out;
}

}  // namespace moq::util
