#include "runner/determinism_check.hpp"

#include "runner/sweep_result.hpp"
#include "runner/trace_file.hpp"
#include "sim/trace.hpp"

namespace moq::runner {

namespace {

// Where two kept traces part, as trace-diff reads and compares them.
nlohmann::json where_they_part(const properties::CaseOutcome& first, const properties::CaseOutcome& second) {
    const TraceFile a = parse_trace_file(sim::trace_json_lines(first.trace), "the first run");
    const TraceFile b = parse_trace_file(sim::trace_json_lines(second.trace), "the second run");
    const std::size_t event = first_difference(a, b);
    const auto line = [&](const TraceFile& trace) {
        return event < trace.lines.size() ? nlohmann::json(trace.lines[event]) : nlohmann::json();
    };
    return {{"digests", {digest_text(first.digest), digest_text(second.digest)}},
            {"event", event},
            {"first", line(a)},
            {"second", line(b)}};
}

std::string told(const nlohmann::json& parted) {
    const auto side = [](const nlohmann::json& line) {
        return line.is_null() ? std::string("(ends)") : line.get<std::string>();
    };
    return "they part at event " + parted["event"].dump() + ": A " + side(parted["first"]) + " B " +
           side(parted["second"]);
}

}  // namespace

bool rechecked(std::uint64_t seed, std::uint64_t index, std::uint64_t every) {
    return every != 0 && case_fingerprint(seed, index, false, 0) % every == 0;
}

std::optional<Nondeterminism> run_again(const properties::Case& value, const properties::RunSettings& settings,
                                        const properties::CaseOutcome& first) {
    const properties::CaseOutcome second = value.run(settings);
    if (second.digest == first.digest) return std::nullopt;
    nlohmann::json parted = where_they_part(first, second);
    return Nondeterminism{"nondeterministic: two runs of the case gave digests " + digest_text(first.digest) + " and " +
                              digest_text(second.digest) + "; " + told(parted),
                          std::move(parted), first.steps};
}

std::optional<Nondeterminism> replay_differs(const properties::Case& value, sim::StrategyKind strategy,
                                             std::uint64_t recorded) {
    const properties::RunSettings traced{strategy, true};
    const properties::CaseOutcome replayed = value.run(traced);
    if (replayed.digest == recorded) return std::nullopt;
    const std::string before = "nondeterministic: the sweep ran the case to digest " + digest_text(recorded) +
                               ", its replay to " + digest_text(replayed.digest);
    if (auto again = run_again(value, traced, replayed))
        return Nondeterminism{before + ", and a second replay to " + again->parted["digests"][1].get<std::string>() +
                                  "; of the replays " + told(again->parted),
                              std::move(again->parted), replayed.steps};
    return Nondeterminism{before + ", as did a second replay",
                          {{"digests", {digest_text(recorded), digest_text(replayed.digest)}}, {"event", nullptr}},
                          replayed.steps};
}

}  // namespace moq::runner
