// The timeline page's style sheet and script (runner/timeline/timeline.css and .js),
// built into the program (runner/timeline/embed.py) so the page it writes is one file.
#pragma once

#include <string_view>

namespace moq::runner::timeline_assets {

extern const std::string_view style_sheet;
extern const std::string_view script;

}  // namespace moq::runner::timeline_assets
