#include "cli/bucket_book.hpp"

#include "cli/buckets.hpp"
#include "cli/corpus_file.hpp"
#include "cli/shrink.hpp"

namespace moq::cli {

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

std::string BucketBook::alias(const properties::Suite& suite, const FailureKind& kind, std::string_view what) {
    return std::string(suite.name()) + '\x1f' + kind.rule + '\x1f' + kind.check + '\x1f' + std::string(what);
}

Sorted BucketBook::add_failure(const Failure& failure) {
    const FailureKind kind = failure_kind(failure.message);
    const std::string by_kinds = alias(failure.suite, kind, joined(failure.suite.operation_kinds(failure.value)));
    const std::string by_shape = alias(failure.suite, kind, message_shape(failure.message));
    for (const std::string& known : {by_kinds, by_shape}) {
        if (const auto found = by_alias_.find(known); found != by_alias_.end()) {
            nlohmann::json& bucket = buckets_[found->second];
            bucket["count"] = bucket["count"].get<std::uint64_t>() + 1;
            return known_bucket(bucket["id"].get<std::string>());
        }
    }
    Shrunk shrunk;
    if (settings_.shrink_time.count() > 0) {
        ShrinkLimits limits;
        limits.deadline = std::chrono::steady_clock::now() + settings_.shrink_time;
        // Smaller cases must break the same rule the same way: a shrink does not wander off to another bug.
        limits.same_failure = [&](const properties::CaseOutcome& outcome) {
            const FailureKind smaller = failure_kind(outcome.message);
            return smaller.rule == kind.rule && smaller.check == kind.check;
        };
        shrunk = shrink(failure.value, properties::RunSettings{settings_.strategy, false}, limits);
    } else {
        shrunk.smallest = failure.value.clone();
        shrunk.outcome = failed_outcome(failure);
    }
    const std::vector<std::string> signature = failure.suite.operation_kinds(*shrunk.smallest);
    Sorted sorted = count_into(kind, failure, signature, *shrunk.smallest, shrunk.outcome, shrunk.complete);
    sorted.shrink_steps = shrunk.steps;
    sorted.shrink_complete = shrunk.complete;
    const std::size_t index = by_id_.at(sorted.id);
    for (const std::string& known : {by_kinds, by_shape, alias(failure.suite, kind, joined(signature)),
                                     alias(failure.suite, kind, message_shape(shrunk.outcome.message))})
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
        nlohmann::json& bucket = buckets_[found->second];
        bucket["count"] = bucket["count"].get<std::uint64_t>() + 1;
        return known_bucket(id);
    }
    CorpusOrigin origin;
    origin.seed = failure.seed;
    origin.index = failure.index;
    origin.mutant = settings_.mutant;
    origin.mix = settings_.mix;
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
          {"saved", corpus_case_json(failure.suite, smallest, settings_.strategy, origin, smallest_outcome)}}}};
    by_id_.emplace(id, buckets_.size());
    buckets_.push_back(std::move(bucket));
    Sorted sorted = known_bucket(id);
    sorted.new_bucket = true;
    sorted.smallest = smallest.describe();
    return sorted;
}

}  // namespace moq::cli
