// A saved case, as `moqsim replay FILE` and `moqsim corpus` read it
// (runner/replay_file.hpp), then run along its decisions as they run it. A refusal
// (UsageError) is the answer to a bad file. A finding: any other exception, a crash, a
// sanitizer report, a hang; a case that reads but does not read back as the same case,
// with the same decisions, from the text `--save` writes for it; a run that throws or
// gives another digest when run again.
#include <cstdint>
#include <string>

#include "fuzz/support.hpp"
#include "properties/explore.hpp"
#include "runner/args.hpp"
#include "runner/replay_file.hpp"

using moq::fuzz::require;

namespace {

bool same_decisions(const std::vector<moq::sim::Decision>& a, const std::vector<moq::sim::Decision>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].kind != b[i].kind || a[i].choice != b[i].choice || a[i].options != b[i].options ||
            a[i].where != b[i].where)
            return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    moq::runner::ReplayFile stored;
    try {
        stored = moq::runner::parse_replay_file(moq::fuzz::as_text(data, size), "input");
    } catch (const moq::runner::UsageError&) {
        return 0;
    }
    const std::string written = moq::runner::replay_file_text(stored);
    const moq::runner::ReplayFile again = moq::runner::parse_replay_file(written, "written");
    require(again.suite == stored.suite, "the written case names another suite");
    require(again.mutant == stored.mutant, "the written case names another mutant");
    require(again.found_by.way == stored.found_by.way && again.found_by.seed == stored.found_by.seed &&
                again.found_by.index == stored.found_by.index && again.found_by.strategy == stored.found_by.strategy,
            "the written case says it was found otherwise");
    require(again.digest == stored.digest && again.bound == stored.bound,
            "the written case has another digest or bound");
    require(same_decisions(again.decisions, stored.decisions), "the written case has other decisions");
    require(again.value->to_json() == stored.value->to_json(), "the written case reads back as another case");
    require(!stored.value->describe().empty(), "a case without a description");

    const moq::properties::DecidedRun first = moq::properties::run_decisions(*stored.value, stored.decisions);
    const moq::properties::DecidedRun second = moq::properties::run_decisions(*again.value, again.decisions);
    require(first.outcome.digest == second.outcome.digest && first.outcome.ok == second.outcome.ok,
            "the same case ran two ways");
    return 0;
}
