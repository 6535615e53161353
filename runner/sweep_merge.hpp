// The results of several shards of one sweep joined into one, as `moqsim merge` writes
// it: each suite's counts and durations added up and its failures listed, in the order
// the suites first appear, and its buckets joined (same id: one bucket); "shard" becomes
// {"merged": N, "total": T}. A pure function of
// its inputs (UsageError for shards that do not make one sweep), so a fuzzer can call it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace moq::runner {

class SweepMerge {
public:
    // One shard's result, already checked by parse_sweep_result; `label` names it (its
    // file) in errors. UsageError if it is of another sweep than the first, or a shard
    // added before.
    void add(const nlohmann::json& result, const std::string& label);
    // The merged result; UsageError naming the missing shards if any is.
    [[nodiscard]] nlohmann::json finish() const;

private:
    nlohmann::json first_;  // the first shard as added: every other must be of its sweep
    std::string first_label_;
    nlohmann::json merged_;
    std::map<std::string, nlohmann::json> suites_;
    std::vector<std::string> order_;         // suite names as they first appear
    std::vector<std::string> shard_labels_;  // the label each shard came from, by index
};

}  // namespace moq::runner
