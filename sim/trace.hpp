// What a run did, as JSON lines, and a 64-bit digest of them: the same seed gives the
// same digest on every build type.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace moq::sim {

class Trace {
public:
    // Keeping the lines costs memory; the digest is always computed.
    explicit Trace(bool keep_lines) : keep_lines_(keep_lines) {}

    // One event: `{"step":N,"event":"...",<fields>}`. The fields are already JSON (no
    // braces), given in pieces that are joined as they are hashed: the line itself is
    // built only when lines are kept, so a sweep pays for no string per event.
    void record(std::uint64_t step, std::string_view event, std::initializer_list<std::string_view> fields);
    void record(std::uint64_t step, std::string_view event, std::string_view fields) { record(step, event, {fields}); }

    [[nodiscard]] std::uint64_t digest() const { return digest_; }
    [[nodiscard]] std::uint64_t events() const { return events_; }
    [[nodiscard]] const std::vector<std::string>& lines() const { return lines_; }
    [[nodiscard]] std::string digest_hex() const;

private:
    void hash(std::string_view text);
    void hash_quoted(std::string_view text);

    bool keep_lines_;
    std::uint64_t digest_ = 0xCBF29CE484222325ull;  // FNV-1a offset basis
    std::uint64_t events_ = 0;
    std::vector<std::string> lines_;
};

}  // namespace moq::sim
