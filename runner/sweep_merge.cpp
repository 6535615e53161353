#include "runner/sweep_merge.hpp"

#include <algorithm>

#include "runner/args.hpp"
#include "runner/buckets.hpp"
#include "runner/sweep_result.hpp"

namespace moq::runner {

namespace {

// "1, 3 and 4" for the shards no file gave (the first ten of them).
std::string missing_shards(const std::vector<std::string>& from_file) {
    std::vector<std::size_t> missing;
    for (std::size_t index = 0; index < from_file.size(); ++index)
        if (from_file[index].empty()) missing.push_back(index);
    std::string text;
    const std::size_t named = std::min<std::size_t>(missing.size(), 10);
    for (std::size_t i = 0; i < named; ++i)
        text += (i == 0 ? "" : i + 1 == named && named == missing.size() ? " and " : ", ") + std::to_string(missing[i]);
    if (named < missing.size()) text += " and " + std::to_string(missing.size() - named) + " more";
    return (missing.size() == 1 ? "shard " : "shards ") + text + " of " + std::to_string(from_file.size()) +
           (missing.size() == 1 ? " is" : " are") + " missing: nothing merged";
}

}  // namespace

void SweepMerge::add(const nlohmann::json& result, const std::string& label) {
    if (first_.is_null()) {
        first_ = result;
        first_label_ = label;
        merged_ = result;
        merged_["suites"] = nlohmann::json::array();
        merged_["buckets"] = nlohmann::json::array();
        merged_["shard"] = {{"merged", 0}, {"total", result["shard"]["total"]}};
        shard_labels_.assign(result["shard"]["total"].get<std::size_t>(), std::string());
    } else if (const std::string difference = sweep_difference(result, label, first_, first_label_);
               !difference.empty()) {
        throw UsageError(label + " and " + first_label_ + " are shards of different sweeps: " + difference);
    }
    const auto index = result["shard"]["index"].get<std::size_t>();
    if (!shard_labels_[index].empty())
        throw UsageError(label + ": shard " + std::to_string(index) + " of " + std::to_string(shard_labels_.size()) +
                         " again (" + shard_labels_[index] + " is that shard)");
    shard_labels_[index] = label;
    merged_["shard"]["merged"] = merged_["shard"]["merged"].get<std::size_t>() + 1;
    if (result.contains("buckets")) join_buckets(merged_["buckets"], result["buckets"]);
    for (const nlohmann::json& suite : result["suites"]) {
        const std::string name = suite["suite"].get<std::string>();
        if (!suites_.contains(name)) {
            order_.push_back(name);
            suites_[name] = suite;
            continue;
        }
        add_suite_result(suites_[name], suite);
    }
}

nlohmann::json SweepMerge::finish() const {
    if (first_.is_null()) throw UsageError("no shard results to merge");
    if (std::count(shard_labels_.begin(), shard_labels_.end(), std::string()) != 0)
        throw UsageError(missing_shards(shard_labels_));
    nlohmann::json merged = merged_;
    for (const std::string& name : order_) {
        nlohmann::json suite = suites_.at(name);
        suite["cases_per_second"] = cases_per_second(suite["run"].get<std::uint64_t>(), suite["seconds"].get<double>());
        merged["suites"].push_back(std::move(suite));
    }
    return merged;
}

}  // namespace moq::runner
