// The switches of generated mutant schemata. scripts/moqtools/mutants.py writes a copy of the
// core in which every mutation point calls these with its mutant's index, e.g.
//
//   if ((::moq::mutation::schema_on(17) != static_cast<bool>(state.fin)))
//
// so one build (-Dschemata=true) holds every generated mutant and MOQ_MUTANT switches
// one on. Only that copy includes this header: the core's own sources never do.
#pragma once

#include <type_traits>

#include "util/mutation.hpp"

namespace moq::mutation {

// Whether generated mutant `index` is the one switched on, counting the evaluation (the
// coverage scripts/mutate selects tests by). Always false during constant
// evaluation, so a point inside a constexpr function still compiles and keeps its
// original meaning there.
constexpr bool schema_on(int index) {
    if (std::is_constant_evaluated()) return false;
    count_generated_evaluation(index);
    return active_generated_mutant() == index;
}

enum class Relation { less, less_equal, greater, greater_equal, equal, not_equal };

// The operands keep their own types, so the usual conversions are the original
// comparison's; the warnings about mixed signs are those the original did not get
// because one side was a constant.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
template <Relation Which, class Left, class Right>
constexpr bool relation_holds(const Left& left, const Right& right) {
    if constexpr (Which == Relation::less) return left < right;
    if constexpr (Which == Relation::less_equal) return left <= right;
    if constexpr (Which == Relation::greater) return left > right;
    if constexpr (Which == Relation::greater_equal) return left >= right;
    if constexpr (Which == Relation::equal) return left == right;
    if constexpr (Which == Relation::not_equal) return left != right;
}
#pragma GCC diagnostic pop

// `left Original right`, or `left Mutated right` while mutant `index` is on.
template <Relation Original, Relation Mutated, class Left, class Right>
constexpr bool schema_compare(int index, const Left& left, const Right& right) {
    return schema_on(index) ? relation_holds<Mutated>(left, right) : relation_holds<Original>(left, right);
}

// ++value and friends whose result is used: the step is left out while mutant `index` is on.
template <class T>
constexpr T& schema_pre_increment(int index, T& value) {
    if (!schema_on(index)) ++value;
    return value;
}
template <class T>
constexpr T& schema_pre_decrement(int index, T& value) {
    if (!schema_on(index)) --value;
    return value;
}
template <class T>
constexpr T schema_post_increment(int index, T& value) {
    return schema_on(index) ? value : value++;
}
template <class T>
constexpr T schema_post_decrement(int index, T& value) {
    return schema_on(index) ? value : value--;
}

enum class Arithmetic { plus, minus, times, divided };

template <Arithmetic Which, class Left, class Right>
constexpr auto arithmetic(const Left& left, const Right& right) {
    if constexpr (Which == Arithmetic::plus) return left + right;
    if constexpr (Which == Arithmetic::minus) return left - right;
    if constexpr (Which == Arithmetic::times) return left * right;
    if constexpr (Which == Arithmetic::divided) return left / right;
}

// `left Original right`, or `left Mutated right` while mutant `index` is on (the usual
// conversions give both the same type).
template <Arithmetic Original, Arithmetic Mutated, class Left, class Right>
constexpr auto schema_arithmetic(int index, const Left& left, const Right& right) {
    return schema_on(index) ? arithmetic<Mutated>(left, right) : arithmetic<Original>(left, right);
}

// `left Original= right` (Mutated= while mutant `index` is on), the result converted back
// to the left operand's type as the compound assignment does.
template <Arithmetic Original, Arithmetic Mutated, class Left, class Right>
constexpr Left& schema_arithmetic_assign(int index, Left& left, const Right& right) {
    left = static_cast<Left>(schema_on(index) ? arithmetic<Mutated>(left, right) : arithmetic<Original>(left, right));
    return left;
}

}  // namespace moq::mutation
