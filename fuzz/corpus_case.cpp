// A saved case, as `moqsim replay FILE` and `moqsim corpus` read it (cli/corpus_file.hpp),
// then run as they run it. A refusal (UsageError) is the answer to a bad file. A finding:
// any other exception, a crash, a sanitizer report, a hang; a case that reads but does
// not read back as the same case from the text `--save` writes for it; a run that throws
// or gives another digest when run again.
#include <cstdint>
#include <string>

#include "runner/args.hpp"
#include "runner/corpus_file.hpp"
#include "fuzz/support.hpp"

using moq::fuzz::require;

namespace {

bool same_origin(const moq::runner::CorpusOrigin& a, const moq::runner::CorpusOrigin& b) {
    return a.seed == b.seed && a.index == b.index && a.mutant == b.mutant && a.mix == b.mix;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    moq::runner::CorpusCase stored;
    try {
        stored = moq::runner::parse_corpus_case(moq::fuzz::as_text(data, size), "input");
    } catch (const moq::runner::UsageError&) {
        return 0;
    }
    const std::string written = moq::runner::corpus_case_text(*stored.suite, *stored.value, stored.strategy, stored.origin,
                                                           moq::properties::CaseOutcome{});
    const moq::runner::CorpusCase again = moq::runner::parse_corpus_case(written, "written");
    require(again.suite == stored.suite, "the written case names another suite");
    require(again.strategy == stored.strategy, "the written case names another strategy");
    require(same_origin(again.origin, stored.origin), "the written case has another origin");
    require(again.value->to_json() == stored.value->to_json(), "the written case reads back as another case");
    require(!stored.value->describe().empty(), "a case without a description");

    const moq::properties::RunSettings settings{stored.strategy, false};
    const moq::properties::CaseOutcome first = stored.value->run(settings);
    const moq::properties::CaseOutcome second = again.value->run(settings);
    require(first.digest == second.digest && first.ok == second.ok, "the same case ran two ways");
    return 0;
}
