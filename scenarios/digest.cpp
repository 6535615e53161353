// Prints the trace digest of every scenario for a range of seeds, under each strategy:
// one line "scenario strategy seed digest answers outcome", where `answers` is the digest
// of the readers' answers alone (what they handed out, in order). Two builds of different
// types must print the same lines (scripts/determinism compares them).
#include <cstdio>
#include <string_view>

#include "scenarios/scenarios.hpp"
#include "sim/seed_range.hpp"

int main(int argc, char** argv) {
    moq::sim::SeedRange seeds{1, 10};
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--seeds" && i + 1 < argc) {
            if (const auto parsed = moq::sim::parse_seed_range(argv[i + 1]); parsed.range) {
                seeds = *parsed.range;
                ++i;
                continue;
            }
        }
        std::fprintf(stderr, "sim_digest: bad argument '%s' (usage: sim_digest [--seeds A-B])\n", argv[i]);
        return 2;
    }
    // Spurious and fresh-task polls first (the lines recorded before inline wakes
    // existed), then inline wakes with the wake points, named "<scenario>+inline".
    for (const bool inlined : {false, true}) {
        for (const moq::scenarios::Scenario& scenario : moq::scenarios::scenarios()) {
            for (auto kind :
                 {moq::sim::StrategyKind::fifo, moq::sim::StrategyKind::random, moq::sim::StrategyKind::pct}) {
                for (std::uint64_t seed = seeds.first; seed <= seeds.last; ++seed) {
                    moq::sim::Options options;
                    options.seed = seed;
                    options.strategy.kind = kind;
                    if (inlined) {
                        options.inline_wakes = true;
                        options.wake_points = true;
                    } else {
                        options.spurious_polls = true;
                        options.strategy.spurious_polls_per_1000 = 100;
                        options.fresh_task_polls = true;
                        options.strategy.fresh_task_polls_per_1000 = 50;
                    }
                    const auto result = scenario.run(options);
                    std::printf("%.*s%s %.*s %llu %016llx %016llx %.*s\n", static_cast<int>(scenario.name.size()),
                                scenario.name.data(), inlined ? "+inline" : "",
                                static_cast<int>(moq::sim::strategy_name(kind).size()),
                                moq::sim::strategy_name(kind).data(), static_cast<unsigned long long>(seed),
                                static_cast<unsigned long long>(result.digest),
                                static_cast<unsigned long long>(result.answers_digest),
                                static_cast<int>(moq::sim::outcome_name(result.outcome).size()),
                                moq::sim::outcome_name(result.outcome).data());
                }
            }
        }
    }
    return 0;
}
