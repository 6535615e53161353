#include "runner/bucket_book.hpp"

#include <algorithm>
#include <utility>

#include "runner/buckets.hpp"
#include "runner/replay_file.hpp"
#include "runner/shrink.hpp"

namespace moq::runner {

namespace {

std::string joined(const std::vector<std::string>& kinds) {
    std::string text;
    for (const std::string& kind : kinds) text += kind + ' ';
    return text;
}

properties::CaseOutcome failed_outcome(const Failure& failure) {
    properties::CaseOutcome outcome;
    outcome.ok = false;
    outcome.message = failure.message;
    outcome.steps = failure.steps;
    return outcome;
}

Sorted known_bucket(const std::string& id) {
    Sorted sorted;
    sorted.id = id;
    return sorted;
}

}  // namespace

std::string BucketBook::alias(std::string_view suite, const FailureKind& kind, std::string_view what) {
    return std::string(suite) + '\x1f' + kind.rule + '\x1f' + kind.check + '\x1f' + std::string(what);
}

void BucketBook::adopt(const nlohmann::json& known) {
    for (const nlohmann::json& earlier : known) {
        const std::string id = earlier["id"].get<std::string>();
        if (by_id_.contains(id)) continue;
        const std::string suite = earlier["suite"].get<std::string>();
        const FailureKind kind{earlier["rule"].get<std::string>(), earlier["check"].get<std::string>()};
        const std::size_t index = buckets_.size();
        buckets_.push_back(earlier);
        buckets_.back()["count"] = 0;
        by_id_.emplace(id, index);
        if (kind.check == nondeterministic_check) continue;  // found by its id alone
        by_alias_.emplace(alias(suite, kind, joined(earlier["signature"].get<std::vector<std::string>>())), index);
        by_alias_.emplace(alias(suite, kind, message_shape(earlier["first"]["message"].get<std::string>())), index);
        by_alias_.emplace(
            alias(suite, kind, message_shape(earlier["smallest"]["saved"].value("message", std::string()))), index);
    }
}

nlohmann::json BucketBook::buckets() const {
    nlohmann::json counted = nlohmann::json::array();
    for (const nlohmann::json& bucket : buckets_)
        if (bucket["count"].get<std::uint64_t>() != 0) counted.push_back(bucket);
    return counted;
}

void BucketBook::count(std::size_t index) {
    nlohmann::json& bucket = buckets_[index];
    if (bucket["count"] == 0) ++counted_;
    bucket["count"] = bucket["count"].get<std::uint64_t>() + 1;
    // Sorted, each once: as a merge unites them.
    for (const auto& [field, name] : {std::pair{"strategies", std::string(sim::strategy_name(settings_.strategy))},
                                      std::pair{"mixes", std::string(properties::mix_name(settings_.mix))}}) {
        auto names = bucket[field].get<std::vector<std::string>>();
        if (std::find(names.begin(), names.end(), name) != names.end()) continue;
        names.push_back(name);
        std::sort(names.begin(), names.end());
        bucket[field] = names;
    }
}

Sorted BucketBook::add_failure(const Failure& failure) {
    const FailureKind kind = failure_kind(failure.message);
    const std::string_view suite = failure.suite.name();
    const std::string by_kinds = alias(suite, kind, joined(failure.suite.operation_kinds(failure.value)));
    const std::string by_shape = alias(suite, kind, message_shape(failure.message));
    for (const std::string& known : {by_kinds, by_shape}) {
        if (const auto found = by_alias_.find(known); found != by_alias_.end()) {
            count(found->second);
            return known_bucket(buckets_[found->second]["id"].get<std::string>());
        }
    }
    // The failing run again, its decisions recorded for the bucket's case file.
    const properties::CaseOutcome recorded = recorded_run(failure.value, properties::RunSettings{settings_.strategy});
    Shrunk shrunk;
    if (settings_.shrink_time.count() > 0 && !recorded.ok) {
        ShrinkLimits limits;
        limits.deadline = std::chrono::steady_clock::now() + settings_.shrink_time;
        // Smaller cases must break the same rule the same way: a shrink does not wander off to another bug.
        limits.same_failure = [&](const properties::CaseOutcome& outcome) {
            const FailureKind smaller = failure_kind(outcome.message);
            return smaller.rule == kind.rule && smaller.check == kind.check;
        };
        shrunk = shrink(Failing{&failure.value, recorded, settings_.strategy}, limits);
    } else {
        shrunk.smallest = failure.value.clone();
        shrunk.outcome = recorded.ok ? failed_outcome(failure) : recorded;
    }
    const std::vector<std::string> signature = failure.suite.operation_kinds(*shrunk.smallest);
    Sorted sorted = count_into(kind, failure, signature, *shrunk.smallest, shrunk.outcome, shrunk.complete);
    sorted.shrink_steps = shrunk.steps;
    sorted.shrink_complete = shrunk.complete;
    const std::size_t index = by_id_.at(sorted.id);
    for (const std::string& known : {by_kinds, by_shape, alias(suite, kind, joined(signature)),
                                     alias(suite, kind, message_shape(shrunk.outcome.message))})
        by_alias_.emplace(known, index);
    return sorted;
}

Sorted BucketBook::add_nondeterministic(const Failure& failure) {
    const FailureKind kind{"none", std::string(nondeterministic_check)};
    return count_into(kind, failure, failure.suite.operation_kinds(failure.value), failure.value,
                      failed_outcome(failure), true);
}

Sorted BucketBook::count_into(const FailureKind& kind, const Failure& failure,
                              const std::vector<std::string>& signature, const properties::Case& smallest,
                              const properties::CaseOutcome& smallest_outcome, bool complete) {
    const std::string id = bucket_id(kind.rule, kind.check, failure.suite.name(), signature);
    if (const auto found = by_id_.find(id); found != by_id_.end()) {
        count(found->second);
        return known_bucket(id);
    }
    FoundBy found;
    found.way = "sweep";
    found.strategy = settings_.strategy;
    found.seed = failure.seed;
    found.index = failure.index;
    found.mix = settings_.mix;
    nlohmann::json bucket = {
        {"id", id},
        {"rule", kind.rule},
        {"check", kind.check},
        {"suite", failure.suite.name()},
        {"signature", signature},
        {"count", 1},
        {"strategies", {sim::strategy_name(settings_.strategy)}},
        {"mixes", {properties::mix_name(settings_.mix)}},
        {"first",
         {{"seed", failure.seed}, {"case", failure.index}, {"message", failure.message}, {"replay", failure.replay}}},
        {"smallest",
         {{"seed", failure.seed},
          {"case", failure.index},
          {"steps", smallest_outcome.steps},
          {"complete", complete},
          {"saved",
           replay_file_json(replay_file_of(failure.suite, smallest, smallest_outcome, settings_.mutant, found))}}}};
    // A nondeterministic case is its own bucket: no other joins it by the shape of its message.
    if (kind.check != nondeterministic_check) bucket["shape"] = message_shape(failure.message);
    by_id_.emplace(id, buckets_.size());
    buckets_.push_back(std::move(bucket));
    ++counted_;
    Sorted sorted = known_bucket(id);
    sorted.new_bucket = true;
    sorted.smallest = smallest.describe();
    return sorted;
}

}  // namespace moq::runner
