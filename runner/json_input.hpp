// JSON read from a file moqsim is given (a saved case, a sweep result). nlohmann_json
// parses without recursion, but copies, compares and writes a value one call a level:
// a file of a few hundred kilobytes of brackets would overflow the stack there. So an
// input is refused past a nesting no file moqsim writes comes near.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace moq::runner {

// Arrays and objects inside one another; moqsim's own files nest fewer than 10. (A
// merge writes its input's lists indented, one space a level: the limit bounds that too.)
inline constexpr int max_json_nesting = 32;

// `text` (the contents of `label`) parsed; UsageError "label: not JSON (why)", "label: a
// number out of range (why)" (1e400) or "label: JSON nested deeper than 32 levels".
nlohmann::json parse_json_input(std::string_view text, const std::string& label);

}  // namespace moq::runner
