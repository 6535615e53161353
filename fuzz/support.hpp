// What the fuzz targets share: the input as text, cut into pieces, and the way a target
// reports a broken property (a message and an abort, which libFuzzer records as a crash
// and keeps the input of).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace moq::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// `text` cut at every `separator`: n separators give n + 1 pieces.
inline std::vector<std::string> split(std::string_view text, std::string_view separator) {
    std::vector<std::string> pieces;
    while (true) {
        const std::size_t at = text.find(separator);
        pieces.emplace_back(text.substr(0, at));
        if (at == std::string_view::npos) return pieces;
        text.remove_prefix(at + separator.size());
    }
}

[[noreturn]] inline void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

inline void require(bool holds, const char* what) {
    if (!holds) finding(what);
}

}  // namespace moq::fuzz
