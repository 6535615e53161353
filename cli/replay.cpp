// moqsim replay: one case, from (suite, seed, case) or a corpus file; the same digest as
// in the sweep that found it. --shrink minimises it, --save keeps it in the corpus,
// --trace writes the run's JSON lines.
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/corpus_file.hpp"
#include "cli/output.hpp"
#include "cli/shrink.hpp"
#include "properties/suite.hpp"

namespace moq::cli {

int replay(const Program&, int argc, char** argv) {
    const Flags flags(argc, argv, 2, {"suite", "seed", "case", "strategy", "mix", "mutant", "trace", "save"},
                      {"shrink"});
    std::optional<std::string> mutant = flags.value("mutant");
    if (mutant) activate_mutant(*mutant);
    if (auto path = flags.value("trace")) check_writable(*path, "--trace");
    if (auto path = flags.value("save")) check_writable(*path, "--save");
    if (flags.value("trace") && flags.value("save"))
        check_different_files("--trace", *flags.value("trace"), "--save", *flags.value("save"));

    const properties::Suite* suite = nullptr;
    std::unique_ptr<properties::Case> chosen;
    sim::StrategyKind strategy = sim::StrategyKind::random;
    CorpusOrigin origin;
    std::string label;
    if (flags.positional().size() == 1) {
        if (flags.value("suite") || flags.value("seed") || flags.value("case") || flags.value("mix"))
            throw UsageError("replay takes a corpus file or --suite/--seed/--case/--mix, not both");
        CorpusCase stored = read_corpus_file(flags.positional().front());
        suite = stored.suite;
        chosen = std::move(stored.value);
        strategy = stored.strategy;
        origin = stored.origin;
        label = flags.positional().front();
    } else if (flags.positional().empty()) {
        const auto name = flags.value("suite");
        if (!name) throw UsageError("replay needs --suite, --seed and --case (or a corpus file)");
        suite = properties::find_suite(*name);
        if (!suite) throw UsageError("unknown suite '" + *name + "' (moqsim list names them)");
        const auto seed_text = flags.value("seed");
        const auto case_text = flags.value("case");
        if (!seed_text || !case_text) throw UsageError("replay needs --seed and --case with --suite");
        origin.seed = parse_count(*seed_text, "--seed", UINT64_MAX);
        origin.index = parse_count(*case_text, "--case", UINT64_MAX);
        origin.mutant = mutant;
        origin.mix = parse_mix_name(flags.value("mix").value_or("fixed"));
        chosen = suite->generate(*origin.seed, *origin.index, origin.mix);
        label = std::string(suite->name()) + " seed " + *seed_text + " case " + *case_text +
                (origin.mix == properties::Mix::fixed ? ""
                                                      : " (" + std::string(properties::mix_name(origin.mix)) + " mix)");
    } else {
        throw UsageError("replay takes at most one corpus file");
    }
    if (auto text = flags.value("strategy")) strategy = parse_strategy_name(*text);
    const properties::RunSettings settings{strategy, flags.value("trace").has_value()};

    properties::CaseOutcome outcome = chosen->run(settings);
    std::printf("replay: %s (%s): %s\n  digest %016llx, %llu steps\n  case: %s\n", label.c_str(),
                std::string(sim::strategy_name(strategy)).c_str(),
                outcome.ok ? "passed" : ("FAILED: " + outcome.message).c_str(),
                static_cast<unsigned long long>(outcome.digest), static_cast<unsigned long long>(outcome.steps),
                chosen->describe().c_str());

    if (flags.has("shrink")) {
        if (outcome.ok) {
            std::printf("shrink: the case passes; nothing to minimise\n");
        } else {
            Shrunk shrunk = shrink(*chosen, properties::RunSettings{strategy, false});
            std::printf("shrink: %zu steps to: %s\n  which fails: %s\n", shrunk.steps,
                        shrunk.smallest->describe().c_str(), shrunk.outcome.message.c_str());
            chosen = std::move(shrunk.smallest);
            outcome = chosen->run(settings);
        }
    }
    if (auto path = flags.value("trace")) {
        write_atomically(*path, sim::trace_json_lines(outcome.trace));
        std::printf("trace: %zu events written to %s\n", outcome.trace.size(), path->c_str());
    }
    if (auto path = flags.value("save")) {
        write_corpus_file(*path, *suite, *chosen, strategy, origin, outcome);
        std::printf("saved: %s (every test run replays it; it fails until the bug is gone)\n", path->c_str());
    }
    return outcome.ok ? 0 : 1;
}

}  // namespace moq::cli
