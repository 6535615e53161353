#include "sim/strategy.hpp"

#include <array>
#include <utility>

#include "sim/deciders/seeded.hpp"
#include "util/assert.hpp"

namespace moq::sim {

namespace {

struct Named {
    StrategyKind kind;
    std::string_view name;
    std::string_view summary;
};

constexpr std::array<Named, 5> named_strategies{{
    {StrategyKind::fifo, "fifo", "the run queue in order, no preemption"},
    {StrategyKind::random, "random", "a uniform pick; a switch at a schedule point one time in four (default)"},
    {StrategyKind::pct, "pct", "probabilistic concurrency testing: random priorities, change points"},
    {StrategyKind::pos, "pos", "partial order sampling: random priorities drawn again now and then"},
    {StrategyKind::surw, "surw", "selectively uniform random walk: tasks weighed by their events to come"},
}};

}  // namespace

std::string_view strategy_name(StrategyKind kind) {
    for (const Named& named : named_strategies)
        if (named.kind == kind) return named.name;
    return "unknown";
}

std::string_view strategy_summary(StrategyKind kind) {
    for (const Named& named : named_strategies)
        if (named.kind == kind) return named.summary;
    return "";
}

std::optional<StrategyKind> parse_strategy(std::string_view name) {
    for (const Named& named : named_strategies)
        if (named.name == name) return named.kind;
    return std::nullopt;
}

const std::vector<StrategyKind>& strategies() {
    static const std::vector<StrategyKind> all = [] {
        std::vector<StrategyKind> kinds;
        for (const Named& named : named_strategies) kinds.push_back(named.kind);
        return kinds;
    }();
    return all;
}

std::string strategy_names() {
    std::string names;
    for (std::size_t i = 0; i < named_strategies.size(); ++i) {
        if (i > 0) names += i + 1 == named_strategies.size() ? " or " : ", ";
        names += named_strategies[i].name;
    }
    return names;
}

std::unique_ptr<Decider> make_strategy(const StrategyOptions& options, Random random) {
    switch (options.kind) {
        case StrategyKind::fifo: return deciders::make_fifo(options, random);
        case StrategyKind::random: return deciders::make_random_walk(options, random);
        case StrategyKind::pct: return deciders::make_pct(options, random);
        case StrategyKind::pos: return deciders::make_pos(options, random);
        case StrategyKind::surw: return deciders::make_surw(options, random);
    }
    return deciders::make_fifo(options, random);
}

namespace deciders {

std::uint32_t Seeded::choose(const DecisionPoint& point) {
    switch (point.kind) {
        case DecisionKind::pick: return pick(point);
        case DecisionKind::preempt: return preempt(point);
        case DecisionKind::timer_tie: return tie(point);
        case DecisionKind::spurious_poll: return off_default(point, options_.spurious_polls_per_1000, faults_);
        case DecisionKind::fresh_poll: return off_default(point, options_.fresh_task_polls_per_1000, faults_);
        case DecisionKind::clock_jump: return off_default(point, options_.clock_jumps_per_1000, faults_);
    }
    return point.fallback;
}

std::uint32_t Seeded::off_default(const DecisionPoint& point, std::uint32_t per_1000, Random& random) {
    if (point.options < 2 || !random.chance(per_1000, 1000)) return point.fallback;
    const auto other = static_cast<std::uint32_t>(random.below(point.options - 1));
    return other < point.fallback ? other : other + 1;
}

}  // namespace deciders

}  // namespace moq::sim
