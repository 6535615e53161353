// Every small case of a suite (its declared scope, properties/scope.hpp), once per
// symmetry class, in a fixed order: what `moqsim sweep --ops N`, `replay --ops N --case I`
// and `list --small-cases` work on.
//
// The order: cases of 1 operation, then 2, ... up to max_ops; within a length, shape by
// shape as the suite lists them; within a shape, the steps as an odometer over the
// shape's small steps (the last step turning fastest). A case's index is its position in
// that order, counting the cases skipped as symmetric too, so index I is the same case
// whatever max_ops is and whatever symmetries are declared. A case is visited when it is
// the least of its symmetry class in that order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "properties/suite.hpp"

namespace moq::properties {

// The most operations a small case may have: past it the counts run to billions.
constexpr int max_small_ops = 6;

struct SmallScopeTotals {
    std::uint64_t enumerated = 0;  // cases of 1..max_ops operations over the small domains
    std::uint64_t symmetric = 0;   // skipped: the same as an earlier one up to a symmetry
    std::uint64_t visited = 0;     // handed to `visit`
};

// Every case of `suite` with 1..max_ops operations over its declared small domains, once
// per symmetry class, in a fixed order (index i is always the same case); stops early
// when `visit` returns false. Throws std::invalid_argument for a suite with no scope.
SmallScopeTotals for_each_small_case(const Suite& suite, int max_ops,
                                     const std::function<bool(const Case&, std::uint64_t index)>& visit);

// The totals for_each_small_case would give, without building a case. Throws as it does.
SmallScopeTotals count_small_cases(const Suite& suite, int max_ops);

// Case `index` of the small cases of up to max_ops operations (symmetric or not); throws
// std::invalid_argument when there is none (a suite with no scope, or index too large).
std::unique_ptr<Case> small_case(const Suite& suite, int max_ops, std::uint64_t index);

// Where a case of `suite` (as its JSON stores it) lies in the enumeration, with any seed
// (the seed picks a schedule, not a case): its index, and the index of the case visited
// for its symmetry class; nothing if the case is out of the scope.
struct SmallCasePlace {
    std::uint64_t index = 0;
    std::uint64_t visited_as = 0;
    int operations = 0;
};
std::optional<SmallCasePlace> find_small_case(const Suite& suite, const nlohmann::json& value);

// Small case `index` (`value`) as a sweep with `seed` runs it: its "seed" (if it has one)
// drawn from both, so the cases of one sweep do not all run one schedule.
std::unique_ptr<Case> with_seed(const Suite& suite, const Case& value, std::uint64_t index, std::uint64_t seed);

}  // namespace moq::properties
