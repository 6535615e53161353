// moqsim trace-diff A B: the first event where two runs part, for when a digest check
// fails. Exit 0 when the traces are the same event for event, 1 when they part, 2 for
// bad input (read_trace_file).
#include <cstdio>
#include <string>

#include "runner/commands.hpp"
#include "runner/options.hpp"
#include "runner/trace_file.hpp"

namespace moq::runner {

namespace {

// Events shown before the first difference.
constexpr std::size_t context_events = 3;

void show(const char* mark, std::size_t index, const std::string& line) {
    std::printf("%s %6zu  %s\n", mark, index, line.c_str());
}

}  // namespace

int trace_diff(const Program&, const Given& given) {
    const TraceDiffOptions options = parse_trace_diff_options(given);
    // Both read and checked before anything is printed.
    const TraceFile first = read_trace_file(options.first);
    const TraceFile second = read_trace_file(options.second);

    const std::size_t parted = first_difference(first, second);
    if (parted == first.events.size() && parted == second.events.size()) {
        std::printf("trace-diff: the traces are the same (%zu events)\n", first.events.size());
        return 0;
    }

    std::printf("trace-diff: the runs part at event %zu (line %zu), after %zu events alike\n", parted, parted + 1,
                parted);
    std::printf("  A: %s (%zu events)\n  B: %s (%zu events)\n", options.first.c_str(), first.events.size(),
                options.second.c_str(), second.events.size());
    for (std::size_t index = parted > context_events ? parted - context_events : 0; index < parted; ++index)
        show(" ", index, first.lines[index]);
    if (parted < first.events.size())
        show("A", parted, first.lines[parted]);
    else
        std::printf("A %6zu  (A ends here)\n", parted);
    if (parted < second.events.size())
        show("B", parted, second.lines[parted]);
    else
        std::printf("B %6zu  (B ends here)\n", parted);
    return 1;
}

}  // namespace moq::runner
