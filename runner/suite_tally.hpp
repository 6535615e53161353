// One suite's cases in a sweep: each run and counted into the suite's digest; a failure
// printed with its replay command, listed (up to --max-failures) and sorted into a
// bucket; one case in --recheck N run twice; and at the end every listed failure
// replayed, which must give its digest again.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "runner/bucket_book.hpp"
#include "runner/commands.hpp"
#include "runner/options.hpp"
#include "properties/suite.hpp"

namespace moq::runner {

// The command that replays case `index` of `seed` as a sweep with these settings ran it.
std::string replay_command(const Program& program, std::string_view suite, std::uint64_t seed, std::uint64_t index,
                           sim::StrategyKind strategy, properties::Mix mix, const std::optional<std::string>& mutant);

// What the sweep's suites share: its program, options and buckets.
struct SweepContext {
    const Program& program;
    const SweepOptions& options;
    BucketBook& book;
};

class SuiteTally {
public:
    SuiteTally(const SweepContext& context, const properties::Suite& suite) : context_(context), suite_(suite) {}
    [[nodiscard]] const properties::Suite& suite() const { return suite_; }

    // Runs one case and counts it; false if it failed (printed, listed and bucketed).
    bool run_case(std::uint64_t seed, std::uint64_t index);
    // Called with (seed, index) after each case's own runs, before a failure is shrunk:
    // what a probe count takes as that case's (cli/probe_hits.hpp).
    void on_run(std::function<void(std::uint64_t, std::uint64_t)> after_run) { after_run_ = std::move(after_run); }
    // Every listed failure replayed once: false if one gave another digest (a
    // nondeterministic failure, listed and bucketed).
    bool replay_failures();

    [[nodiscard]] std::uint64_t run() const { return run_; }
    [[nodiscard]] std::uint64_t failed() const { return failed_; }
    void add_seconds(double seconds) { seconds_ += seconds; }
    [[nodiscard]] nlohmann::json result(std::uint64_t cases) const;

private:
    // The watchdog's description of what runs from here on: `doing` (a literal, "" for the
    // case itself) and case (seed, index), with its replay command and `replay_flags` (a
    // literal) after it, the command that runs it again.
    void watch(std::uint64_t seed, std::uint64_t index, std::string_view doing, std::string_view replay_flags) const;
    // A failure of case (seed, index): printed and listed while the list has room, and
    // sorted into a bucket. `parted`: the runs of a nondeterministic one.
    void record(std::uint64_t seed, std::uint64_t index, const properties::Case& value,
                const properties::CaseOutcome& outcome, const std::optional<nlohmann::json>& parted);

    const SweepContext& context_;
    const properties::Suite& suite_;
    std::uint64_t run_ = 0;
    std::uint64_t failed_ = 0;
    std::uint64_t digest_ = 0;  // the sum of the cases' fingerprints
    double seconds_ = 0;
    nlohmann::json failures_ = nlohmann::json::array();
    bool told_cap_ = false;
    std::function<void(std::uint64_t, std::uint64_t)> after_run_;
};

}  // namespace moq::runner
