// A property suite: cases generated from (seed, index) by RapidCheck generators, run in
// the simulator against an oracle, shrunk along RapidCheck's shrink trees, and stored as
// JSON in the corpus. The sweep, replay and shrink commands work on this interface.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidcheck.h>
#include <nlohmann/json.hpp>

#include "properties/json_shrink.hpp"
#include "properties/operation.hpp"
#include "properties/scope.hpp"
#include "properties/swarm.hpp"

#include "sim/decider.hpp"
#include "sim/strategy.hpp"
#include "sim/trace.hpp"

namespace moq::properties {

struct RunSettings {
    // The seeded decider of the run, from the case's seed (sim/strategy.hpp).
    sim::StrategyKind strategy = sim::StrategyKind::random;
    bool keep_trace = false;
    // Asked instead of the strategy at every decision of the run (sim/decisions.hpp): an
    // explored, replayed or guided schedule. Not owned.
    sim::Decider* decider = nullptr;
    // surw: each task's expected events. Empty: Case::run counts them in a trial run of
    // the case under the random strategy first.
    std::vector<std::uint32_t> task_events{};
    // Keep every decision of the run (CaseOutcome::decisions).
    bool record_decisions = false;
};

struct CaseOutcome {
    bool ok = true;
    std::string message;
    std::uint64_t digest = 0;
    std::uint64_t answers_digest = 0;  // the readers' answers alone (sim::Trace::answers_digest)
    std::uint64_t steps = 0;
    std::vector<sim::TraceEntry> trace;  // the run's events, when kept
    // Each task's decision points (sim::TaskStats::events), by task id.
    std::vector<std::uint32_t> task_events{};
    // With RunSettings::record_decisions: every decision, and how many left a costly
    // default (the preemption bound the run used).
    std::vector<sim::Decision> decisions{};
    std::uint32_t costly_choices = 0;
};

class Case {
public:
    virtual ~Case() = default;
    // One run of the case under `settings` (two for surw without its events: the trial
    // run that counts them, then the run).
    [[nodiscard]] CaseOutcome run(const RunSettings& settings) const;
    [[nodiscard]] virtual nlohmann::json to_json() const = 0;
    [[nodiscard]] virtual std::string describe() const = 0;
    [[nodiscard]] virtual std::unique_ptr<Case> clone() const = 0;
    // The first smaller case (in RapidCheck's shrink order) for which `fails` holds.
    [[nodiscard]] virtual std::unique_ptr<Case> first_failing_shrink(
        const std::function<bool(const Case&)>& fails) const = 0;

protected:
    // One run, as the suite makes it.
    [[nodiscard]] virtual CaseOutcome run_once(const RunSettings& settings) const = 0;
};

class Suite {
public:
    virtual ~Suite() = default;
    [[nodiscard]] virtual std::string_view name() const = 0;
    [[nodiscard]] virtual std::string_view summary() const = 0;
    [[nodiscard]] virtual std::uint64_t default_cases() const = 0;
    // Case `index` of the sweep with `seed` and `mix`: the same triple always gives the
    // same case.
    [[nodiscard]] virtual std::unique_ptr<Case> generate(std::uint64_t seed, std::uint64_t index,
                                                         Mix mix = Mix::fixed) const = 0;
    // A stored case. Throws std::invalid_argument with a one-line reason.
    [[nodiscard]] virtual std::unique_ptr<Case> from_json(const nlohmann::json& value) const = 0;
    // The kinds of `value`'s operations, in order ("poke", "open", "serve", ...): what a
    // sweep sorts its failures by. By default the first element of each `[name, ...]` of
    // the case's JSON "steps"; a suite that stores its steps otherwise says so.
    [[nodiscard]] virtual std::vector<std::string> operation_kinds(const Case& value) const;
    // The suite's command table as data (properties/commands.hpp), in its order.
    [[nodiscard]] virtual std::vector<Operation> operations() const = 0;
    // The small cases the suite declares (properties/scope.hpp), if it declares any.
    [[nodiscard]] virtual std::optional<SmallScope> small_scope() const { return std::nullopt; }
};

// Every suite, in the order of the list `suite_names` in properties/meson.build (the
// registry generated from it: adding a suite is its file and its name there).
const std::vector<const Suite*>& suites();
// The names in that list, as written there (each suite's file is NAME_suite.cpp).
const std::vector<std::string_view>& suite_file_names();
const Suite* find_suite(std::string_view name);

// The RapidCheck generator state for case `index` of `seed`, and its size (growing with
// the index, as RapidCheck's own runs do).
rc::Random case_random(std::uint64_t seed, std::uint64_t index);
int case_size(std::uint64_t index);

// A suite over a value type. `Traits` provides:
//   using Commands = CommandTable<...>;          // its operations (properties/commands.hpp)
//   static rc::Gen<V> generator(Mix);
//   static CaseOutcome run(const V&, const RunSettings&);
//   static nlohmann::json to_json(const V&);
//   static V from_json(const nlohmann::json&);   // throws std::invalid_argument
//   static std::string describe(const V&);
// and, if its JSON steps are not `[name, ...]` arrays:
//   static std::vector<std::string> operation_kinds(const V&);
// and, for `moqsim sweep --ops N` (properties/scope.hpp):
//   static SmallScope small_scope();
template <class V, class Traits>
class TypedCase final : public Case {
public:
    explicit TypedCase(rc::Shrinkable<V> shrinkable) : shrinkable_(std::move(shrinkable)) {}

    [[nodiscard]] CaseOutcome run_once(const RunSettings& settings) const override {
        return Traits::run(shrinkable_.value(), settings);
    }
    [[nodiscard]] nlohmann::json to_json() const override { return Traits::to_json(shrinkable_.value()); }
    [[nodiscard]] std::string describe() const override { return Traits::describe(shrinkable_.value()); }
    [[nodiscard]] std::unique_ptr<Case> clone() const override { return std::make_unique<TypedCase>(shrinkable_); }
    [[nodiscard]] std::unique_ptr<Case> first_failing_shrink(
        const std::function<bool(const Case&)>& fails) const override {
        auto candidates = shrinkable_.shrinks();
        while (auto candidate = candidates.next()) {
            auto smaller = std::make_unique<TypedCase>(std::move(*candidate));
            if (fails(*smaller)) return smaller;
        }
        return nullptr;
    }
    [[nodiscard]] V value() const { return shrinkable_.value(); }

private:
    rc::Shrinkable<V> shrinkable_;
};

template <class V, class Traits>
class TypedSuite final : public Suite {
public:
    TypedSuite(std::string_view name, std::string_view summary, std::uint64_t default_cases)
        : name_(name), summary_(summary), default_cases_(default_cases) {}

    [[nodiscard]] std::string_view name() const override { return name_; }
    [[nodiscard]] std::string_view summary() const override { return summary_; }
    [[nodiscard]] std::uint64_t default_cases() const override { return default_cases_; }
    [[nodiscard]] std::unique_ptr<Case> generate(std::uint64_t seed, std::uint64_t index, Mix mix) const override {
        return std::make_unique<TypedCase<V, Traits>>(
            Traits::generator(mix)(case_random(seed, index), case_size(index)));
    }
    [[nodiscard]] std::unique_ptr<Case> from_json(const nlohmann::json& value) const override {
        // A case read back has no generator: it shrinks through its JSON form, each smaller
        // form that the suite reads as a case (properties/json_shrink.hpp).
        return std::make_unique<TypedCase<V, Traits>>(
            rc::shrinkable::shrinkRecur(Traits::from_json(value), &TypedSuite::smaller_read_cases));
    }
    [[nodiscard]] std::vector<std::string> operation_kinds(const Case& value) const override {
        if constexpr (requires(const V& typed) { Traits::operation_kinds(typed); }) {
            if (const auto* typed = dynamic_cast<const TypedCase<V, Traits>*>(&value))
                return Traits::operation_kinds(typed->value());
        }
        return Suite::operation_kinds(value);
    }
    [[nodiscard]] std::vector<Operation> operations() const override { return Traits::Commands::operations(); }
    [[nodiscard]] std::optional<SmallScope> small_scope() const override {
        if constexpr (requires { Traits::small_scope(); })
            return Traits::small_scope();
        else
            return std::nullopt;
    }

private:
    static rc::Seq<V> smaller_read_cases(const V& value) {
        return rc::seq::mapMaybe(rc::seq::fromContainer(smaller_json_values(Traits::to_json(value))),
                                 [](const nlohmann::json& smaller) -> rc::Maybe<V> {
                                     try {
                                         return Traits::from_json(smaller);
                                     } catch (const std::exception&) {  // not a case: the reader refuses it
                                         return rc::Nothing;
                                     }
                                 });
    }

    std::string_view name_;
    std::string_view summary_;
    std::uint64_t default_cases_;
};

}  // namespace moq::properties
