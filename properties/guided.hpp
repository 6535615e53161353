// The guided search's input (moqsim's libFuzzer target fuzz/suite_guided.cpp): one case of
// a suite and the run's scheduling decisions, as bytes a coverage-guided fuzzer mutates.
//
//   SUITE "\n" CASE_JSON "\n" DECISION_BYTES
//
// CASE_JSON is the case in its stored form (what `moqsim replay --save` keeps), so every
// input is a case the suite's own reader accepts, with its ranges checked; each decision
// byte answers one decision of the run (sim/decisions.hpp), `byte % options`, and the
// decisions past the last byte take their defaults.
//
// Why the case travels as its stored form and not as bytes drawn by the generators: a
// byte flip then changes one operation or one argument (the locality a coverage-guided
// search needs), never the whole case as a reseeded generator would, and no input can
// be a case the suite would not read. The mutations (guided_mutate) work on the case's
// operations through its command table's names, with operations and values taken from
// freshly generated cases of the same suite, and leave the decision bytes to the fuzzer's
// own byte mutations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "properties/suite.hpp"
#include "sim/decider.hpp"

namespace moq::properties {

struct GuidedInput {
    const Suite* suite = nullptr;
    std::unique_ptr<Case> value;
    std::vector<std::uint8_t> decisions;
    std::uint64_t case_hash = 0;  // of the case's text: the seed of the decisions past the bytes
};

// The input in `bytes`, or nothing when they are not one (no suite of that name, a case
// the suite does not read, no separator).
std::optional<GuidedInput> guided_decode(std::string_view bytes);
// The bytes of `suite`'s case `value` and `decisions`.
std::string guided_encode(const Suite& suite, const Case& value, const std::vector<std::uint8_t>& decisions);

// Answers each decision from the next byte, then from bytes drawn from `tail_seed` (so an
// input without decision bytes runs as a seeded random schedule does, and a change of one
// byte changes that decision only: each tail byte is drawn from its position). A byte answers as the random strategy
// draws: a choice without a cost (which task runs when the current cannot, a timer tie)
// uniformly, `byte % options`; a costly one (a switch at a schedule point, a fault the
// drive leaves open) off its default when the byte falls below its share, a quarter for a
// switch and an eighth for a fault, and then among the other choices.
class ByteDecider final : public sim::Decider {
public:
    ByteDecider(const std::vector<std::uint8_t>& bytes, std::uint64_t tail_seed) : bytes_(bytes), tail_(tail_seed) {}
    std::uint32_t choose(const sim::DecisionPoint& point) override;
    // The choice `byte` gives at `point`.
    static std::uint32_t answer(std::uint8_t byte, const sim::DecisionPoint& point);

private:
    const std::vector<std::uint8_t>& bytes_;
    std::uint64_t tail_;
    std::size_t asked_ = 0;
};

// The byte the tail gives decision `at` of a run whose tail is drawn from `seed`: a
// function of the position, so bytes written before it never move what comes after.
std::uint8_t tail_byte(std::uint64_t seed, std::size_t at);

// The run of a guided input: its case along its decision bytes, the tail drawn from a
// hash of the case's stored form, every decision recorded (CaseOutcome::decisions).
CaseOutcome guided_run(const GuidedInput& input);

// A fresh input of `suite`: a generated case (with `mix`) and no decision bytes.
std::string guided_fresh(const Suite& suite, std::mt19937_64& random, Mix mix = Mix::fixed);

// One mutation of `bytes` (an input of `suite`; anything else is replaced by a fresh one),
// at most `max_size` bytes long: an operation deleted, repeated, swapped with the next,
// replaced or inserted from a generated case, one argument moved, one setting of the case
// taken from a generated case, or the decision bytes changed by `mutate_bytes` (the
// fuzzer's own byte mutator: data, size, capacity, returns the new size). Every result
// reads as a case of `suite`.
using ByteMutator = std::function<std::size_t(std::uint8_t*, std::size_t, std::size_t)>;
std::string guided_mutate(const Suite& suite, std::string_view bytes, std::size_t max_size, std::mt19937_64& random,
                          const ByteMutator& mutate_bytes, Mix mix = Mix::fixed);
// A child of two inputs of `suite`: the first's operations up to a cut, the second's
// after one, the first's settings; the decision bytes cut and joined the same way.
std::string guided_cross(const Suite& suite, std::string_view first, std::string_view second, std::size_t max_size,
                         std::mt19937_64& random);

}  // namespace moq::properties
