#include "runner/suite_tally.hpp"

#include <cstdio>

#include "runner/determinism_check.hpp"
#include "runner/shrink.hpp"
#include "runner/sweep_result.hpp"
#include "runner/watchdog.hpp"

namespace moq::runner {

namespace {

unsigned long long number(std::uint64_t value) { return static_cast<unsigned long long>(value); }

void print_new_bucket(const nlohmann::json& bucket, const Sorted& sorted) {
    std::printf("  new bucket %s (%s, %s): %s%s\n", bucket["id"].get<std::string>().c_str(),
                bucket["rule"].get<std::string>().c_str(), bucket["check"].get<std::string>().c_str(),
                sorted.smallest.c_str(),
                sorted.shrink_steps == 0 ? ""
                : sorted.shrink_complete ? " (shrunk)"
                                         : " (shrunk until --shrink-seconds ran out)");
}

}  // namespace

std::string replay_command(const Program& program, std::string_view suite, std::uint64_t seed, std::uint64_t index,
                           sim::StrategyKind strategy, properties::Mix mix, const std::optional<std::string>& mutant) {
    std::string command = program.name + " replay --suite " + std::string(suite) + " --seed " + std::to_string(seed) +
                          " --case " + std::to_string(index);
    if (mix != properties::Mix::fixed) command += " --mix " + std::string(properties::mix_name(mix));
    if (strategy != sim::StrategyKind::random) command += " --strategy " + std::string(sim::strategy_name(strategy));
    if (mutant) command += " --mutant " + *mutant;
    return command;
}

void SuiteTally::watch(std::uint64_t seed, std::uint64_t index, std::string_view doing,
                       std::string_view replay_flags) const {
    // Copies but the program, which main keeps until the watchdog stops.
    const SweepOptions& options = context_.options;
    watchdog::describe([program = &context_.program, suite = suite_.name(), strategy = options.strategy,
                        mix = options.mix, mutant = options.mutant, doing,
                        replay_flags](std::uint64_t hung_seed, std::uint64_t hung_index) {
        const std::string again =
            replay_command(*program, suite, hung_seed, hung_index, strategy, mix, mutant) + std::string(replay_flags);
        return watchdog::Described{std::string(doing) + std::string(suite) + " seed " + std::to_string(hung_seed) +
                                       " case " + std::to_string(hung_index),
                                   again};
    });
    watchdog::at(seed, index);
}

bool SuiteTally::run_case(std::uint64_t seed, std::uint64_t index) {
    const SweepOptions& options = context_.options;
    // A rechecked case keeps its trace, to show where a second run parts from it.
    const bool twice = rechecked(seed, index, options.recheck);
    const properties::RunSettings settings{options.strategy, twice};
    watch(seed, index, "", "");
    const auto generated = suite_.generate(seed, index, options.mix);
    const properties::CaseOutcome outcome = generated->run(settings);
    ++run_;
    digest_ += case_fingerprint(seed, index, outcome.ok, outcome.digest);
    const std::optional<Nondeterminism> parted =
        twice ? run_again(*generated, settings, outcome) : std::optional<Nondeterminism>();
    if (after_run_) after_run_(seed, index);
    if (outcome.ok && !parted) return true;
    ++failed_;
    if (!outcome.ok) record(seed, index, *generated, outcome, std::nullopt);
    if (parted) {
        properties::CaseOutcome differed = outcome;
        differed.ok = false;
        differed.message = parted->message;
        record(seed, index, *generated, differed, parted->parted);
    }
    return false;
}

bool SuiteTally::replay_failures() {
    bool same = true;
    const std::size_t listed = failures_.size();
    for (std::size_t i = 0; i < listed; ++i) {
        const nlohmann::json failure = failures_[i];  // a copy: record() adds to the list
        if (failure.contains("parted")) continue;
        const auto seed = failure["seed"].get<std::uint64_t>();
        const auto index = failure["case"].get<std::uint64_t>();
        watch(seed, index, "the replay of the failure ", "");
        const auto value = suite_.generate(seed, index, context_.options.mix);
        const auto parted = replay_differs(*value, context_.options.strategy, failure["digest"].get<std::uint64_t>());
        if (!parted) continue;
        same = false;
        properties::CaseOutcome differed;
        differed.ok = false;
        differed.message = parted->message;
        differed.digest = failure["digest"].get<std::uint64_t>();
        differed.steps = parted->steps;
        record(seed, index, *value, differed, parted->parted);
    }
    return same;
}

void SuiteTally::record(std::uint64_t seed, std::uint64_t index, const properties::Case& value,
                        const properties::CaseOutcome& outcome, const std::optional<nlohmann::json>& parted) {
    const SweepOptions& options = context_.options;
    const std::string command =
        replay_command(context_.program, suite_.name(), seed, index, options.strategy, options.mix, options.mutant);
    // Bucketing shrinks the case, and --shrink again: runs of smaller cases.
    watch(seed, index, "a shrink of ", " --shrink");
    const Failure failure{suite_, seed, index, value, outcome.message, outcome.steps, command};
    const Sorted sorted = parted ? context_.book.add_nondeterministic(failure) : context_.book.add_failure(failure);
    const std::string name(suite_.name());
    const bool listing = failures_.size() < options.max_failures;
    if (listing) {
        std::printf("\n%s: seed %llu case %llu FAILED: %s\n  case: %s\n  replay: %s\n", name.c_str(), number(seed),
                    number(index), outcome.message.c_str(), value.describe().c_str(), command.c_str());
        // cases_run: how many cases of this suite this sweep ran up to and including this one.
        nlohmann::json listed = {{"seed", seed},
                                 {"case", index},
                                 {"cases_run", run_},
                                 {"message", outcome.message},
                                 {"digest", outcome.digest},
                                 {"replay", command},
                                 {"bucket", sorted.id}};
        if (parted) listed["parted"] = *parted;
        if (options.shrink && !parted) {
            const properties::CaseOutcome recorded = recorded_run(value, properties::RunSettings{options.strategy});
            const Shrunk shrunk = shrink(Failing{&value, recorded, options.strategy});
            std::printf("  shrunk in %zu steps: %s\n  which fails: %s\n", shrunk.steps,
                        shrunk.smallest->describe().c_str(), shrunk.outcome.message.c_str());
            listed["shrunk"] = shrunk.smallest->to_json();
        } else if (!parted) {
            std::printf("  (add --shrink to the replay to minimise it, --save corpus/NAME.json to keep it)\n");
        }
        failures_.push_back(std::move(listed));
    } else if (!told_cap_) {
        told_cap_ = true;
        std::printf("\n%s: more than --max-failures %llu failures: the rest are counted and bucketed, not listed\n",
                    name.c_str(), number(options.max_failures));
    }
    if (sorted.new_bucket) {
        if (!listing)
            std::printf("%s: seed %llu case %llu FAILED: %s\n", name.c_str(), number(seed), number(index),
                        outcome.message.c_str());
        print_new_bucket(context_.book.bucket(sorted.id), sorted);
    }
    std::fflush(stdout);
}

nlohmann::json SuiteTally::result(std::uint64_t cases) const {
    return sweep_suite_result(suite_.name(), cases, run_, failed_, seconds_, digest_, failures_);
}

}  // namespace moq::runner
