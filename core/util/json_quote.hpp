// JSON string literals, written in one place for every JSON line the project prints by
// hand (trace events, the mutation-site list) so they all escape alike.
#pragma once

#include <string>
#include <string_view>

namespace moq::util {

// The escape JSON needs for `c` (written into `buffer` for control characters), or an
// empty view when `c` stands as it is. For callers that consume text piece by piece.
std::string_view json_escape(char c, char (&buffer)[8]);

// A JSON string literal for `text`, quotes included.
std::string json_quote(std::string_view text);

}  // namespace moq::util
