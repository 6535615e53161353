// `moqsim convert FILE...`: the saved cases of earlier moqsims made replay files
// (runner/replay_file.hpp), each in place. Two kinds are read:
//   - a case of version 1 ("moqsim-case"): a case, the strategy and seed it ran under,
//     and where it came from. Its run under that strategy is made again, with the seeded
//     strategies of this moqsim, and its decisions recorded: the file replays that run.
//   - a decisions file ("moqsim-decisions", version 1), which an exploration or the
//     guided search wrote: its decisions carry over as they are, a clock jump's two
//     options (no jump, or the largest) becoming the five of today's (the largest last).
// A version 2 file is left as it is.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runner/replay_file.hpp"

namespace moq::runner {

// `text` (the contents of `label`) as a replay file, or nothing when it is one already.
// UsageError "label: what is wrong" when it is neither kind.
std::optional<ReplayFile> convert_saved_case(std::string_view text, const std::string& label);

}  // namespace moq::runner
