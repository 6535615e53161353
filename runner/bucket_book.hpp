// A sweep's buckets as it runs (cli/buckets.hpp has their form): each failure is sorted
// into one. A failure whose case has the operations, or whose message the shape, of one
// already sorted goes into that one's bucket at no cost; any other is shrunk first
// (within a time bound), and its bucket is the one its shrunk case keys, new or not. So
// ten cases of one bug cost at most a few shrinks and make one bucket, while a mutant
// that breaks two rules makes two. Buckets of an earlier run (a resumed sweep's, a soak's
// so far) can be adopted: their failures then count into them the same way.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/buckets.hpp"
#include "properties/suite.hpp"

namespace moq::runner {

struct BookSettings {
    sim::StrategyKind strategy = sim::StrategyKind::random;
    properties::Mix mix = properties::Mix::fixed;
    std::optional<std::string> mutant;
    std::chrono::seconds shrink_time{30};  // a new bucket's shrink at most; 0: none
};

// A failing case of a sweep.
struct Failure {
    const properties::Suite& suite;
    std::uint64_t seed;
    std::uint64_t index;
    const properties::Case& value;
    std::string message;
    std::uint64_t steps;  // its run's scheduling steps
    std::string replay;   // the command that replays it
};

// Where a failure went.
struct Sorted {
    std::string id;
    bool new_bucket = false;
    std::string smallest;  // a new bucket's smallest case, described
    std::size_t shrink_steps = 0;
    bool shrink_complete = true;
};

class BucketBook {
public:
    explicit BucketBook(BookSettings settings) : settings_(std::move(settings)) {}

    // `known` (buckets as a result lists them): later failures of theirs count into them.
    // Each is listed again only once one does.
    void adopt(const nlohmann::json& known);
    // A case that failed its run (one run, one message).
    Sorted add_failure(const Failure& failure);
    // A case whose runs parted (a bucket of its own kind, its case not shrunk).
    Sorted add_nondeterministic(const Failure& failure);

    // The buckets this run counted a failure into, in the order they were made.
    [[nodiscard]] nlohmann::json buckets() const;
    [[nodiscard]] std::size_t size() const { return counted_; }
    [[nodiscard]] const nlohmann::json& bucket(const std::string& id) const { return buckets_[by_id_.at(id)]; }

private:
    // The bucket of `kind` and `signature`, counted once more; if new, made from
    // `failure` and its smallest case.
    Sorted count_into(const FailureKind& kind, const Failure& failure, const std::vector<std::string>& signature,
                      const properties::Case& smallest, const properties::CaseOutcome& smallest_outcome, bool complete);
    // Bucket `index` counted once more, as seen under this run's strategy and mix.
    void count(std::size_t index);
    // What a failure of `kind` in `suite` is looked up by: its case's operations or its message's shape.
    static std::string alias(std::string_view suite, const FailureKind& kind, std::string_view what);

    BookSettings settings_;
    nlohmann::json buckets_ = nlohmann::json::array();
    std::map<std::string, std::size_t> by_id_;
    std::size_t counted_ = 0;  // buckets with a failure of this run
    // Case signatures and message shapes already sorted, each to its bucket's index.
    std::map<std::string, std::size_t> by_alias_;
};

}  // namespace moq::runner
