// Prints the trace digest of every scenario for a range of seeds, under each strategy:
// one line "scenario strategy seed digest outcome". Two builds of different types must
// print the same lines (scripts/determinism compares them).
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "sim/scenarios.hpp"

namespace {

bool parse_range(std::string_view text, std::uint64_t& first, std::uint64_t& last) {
    const auto dash = text.find('-');
    const std::string_view low = text.substr(0, dash);
    const std::string_view high = dash == std::string_view::npos ? low : text.substr(dash + 1);
    auto [low_end, low_error] = std::from_chars(low.data(), low.data() + low.size(), first);
    auto [high_end, high_error] = std::from_chars(high.data(), high.data() + high.size(), last);
    return low_error == std::errc() && high_error == std::errc() && low_end == low.data() + low.size() &&
           high_end == high.data() + high.size() && first <= last && !low.empty() && !high.empty();
}

}  // namespace

int main(int argc, char** argv) {
    std::uint64_t first = 1;
    std::uint64_t last = 10;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--seeds" && i + 1 < argc && parse_range(argv[i + 1], first, last)) {
            ++i;
            continue;
        }
        std::fprintf(stderr, "sim_digest: bad argument '%s' (usage: sim_digest [--seeds A-B])\n", argv[i]);
        return 2;
    }
    for (const moq::sim::Scenario& scenario : moq::sim::scenarios()) {
        for (auto kind : {moq::sim::StrategyKind::fifo, moq::sim::StrategyKind::random, moq::sim::StrategyKind::pct}) {
            for (std::uint64_t seed = first; seed <= last; ++seed) {
                moq::sim::Options options;
                options.seed = seed;
                options.strategy.kind = kind;
                options.spurious_polls_per_1000 = 100;
                options.fresh_task_polls_per_1000 = 50;
                const auto result = scenario.run(options);
                std::printf("%.*s %.*s %llu %016llx %.*s\n", static_cast<int>(scenario.name.size()),
                            scenario.name.data(), static_cast<int>(moq::sim::strategy_name(kind).size()),
                            moq::sim::strategy_name(kind).data(), static_cast<unsigned long long>(seed),
                            static_cast<unsigned long long>(result.digest),
                            static_cast<int>(moq::sim::outcome_name(result.outcome).size()),
                            moq::sim::outcome_name(result.outcome).data());
            }
        }
    }
    return 0;
}
