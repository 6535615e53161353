// The payload codec a consumer can ask for: run-length coding, reversible and cheap,
// so a compressed read really hands out other bytes than a plain one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace moq::model {

enum class Codec { none, run_length };

// Pairs of (count 1..255, byte).
std::string compress(Codec codec, std::string_view plain);
// nullopt when `packed` is not a valid encoding.
std::optional<std::string> decompress(Codec codec, std::string_view packed);

}  // namespace moq::model
