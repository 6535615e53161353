// Decision-driven runs. With a Chooser in its options, the executor asks it, instead of
// its seed, at every point where a run could go more than one way: which runnable task
// runs, whether to switch at a schedule point, the order of timers due at the same
// instant (inline wakes only, where it shows), and the drive's open choices (a spurious
// poll and of which task, a fresh-task poll, a clock jump). Each point has a default: keep
// running the current task, else the first runnable; no fault; the timers' own order.
// `moqsim explore` searches these decisions (sim/explorer.hpp); a recorded list of
// choices replays one run exactly (ChoiceList).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moq::sim {

enum class DecisionKind : std::uint8_t { pick, preempt, timer_tie, spurious_poll, fresh_poll, clock_jump };
std::string_view decision_kind_name(DecisionKind kind);
std::optional<DecisionKind> parse_decision_kind(std::string_view name);

// A point where a run could go `options` ways.
struct DecisionPoint {
    DecisionKind kind = DecisionKind::pick;
    std::uint32_t options = 1;   // the choices are 0 .. options - 1
    std::uint32_t fallback = 0;  // the default choice
    // A choice other than the default costs one unit of the preemption bound: a switch
    // away from a task that could still run, or a fault the case left open.
    bool costly = false;
    const char* where = "";  // the schedule point's label, or the kind's name: a literal, kept past the run
    // The task each choice runs next (pick, preempt), `options` of them; null for the
    // drive's choices and timer ties. Valid during Chooser::choose only.
    const std::uint32_t* tasks = nullptr;
    // The digest of everything that decides the run's future from here (each task's status
    // and where it stands, the clock, and the suite's core and model state through
    // Executor::on_state); only when the chooser wants it and the suite gives its part.
    std::optional<std::uint64_t> state = std::nullopt;
};

// The objects a step touched, as its schedule points named them; unknown when it ran
// code no point covers (a task's start, its code after its last point, a wake).
class Footprint {
public:
    void add(const void* object);  // null: unknown
    void clear() {
        known_ = true;
        count_ = 0;
    }
    [[nodiscard]] bool known() const { return known_; }
    // Both known and no object in common: the two steps commute.
    [[nodiscard]] bool independent_of(const Footprint& other) const;

private:
    static constexpr std::size_t capacity = 4;  // more distinct objects: unknown
    std::array<const void*, capacity> objects_{};
    std::uint8_t count_ = 0;
    bool known_ = true;
};

class Chooser {
public:
    virtual ~Chooser() = default;
    // The choice at `point`, below point.options.
    virtual std::uint32_t choose(const DecisionPoint& point) = 0;
    // The step since the last choice touches `object` (null: something unknown).
    virtual void touched(const void*) {}
    // Whether choose() wants DecisionPoint::state (computing it costs a hash of the run).
    [[nodiscard]] virtual bool wants_state() const { return false; }
};

// One decision of a recorded run.
struct Decision {
    DecisionKind kind = DecisionKind::pick;
    std::uint32_t options = 1;
    std::uint32_t choice = 0;
    std::string where;
    std::uint32_t fallback = 0;  // the point's default (not stored in a decisions file)
};

// Follows a list of choices, then takes every point's default; records each point. A
// point whose kind or number of options differs from the list's marks the run diverged
// (the list came from another build or case) and takes the default from there on.
class ChoiceList final : public Chooser {
public:
    explicit ChoiceList(std::vector<Decision> expected) : expected_(std::move(expected)) {}
    std::uint32_t choose(const DecisionPoint& point) override;
    [[nodiscard]] const std::vector<Decision>& recorded() const { return recorded_; }
    // The first point that differed from the list, if one did.
    [[nodiscard]] std::optional<std::size_t> diverged_at() const { return diverged_at_; }

private:
    std::vector<Decision> expected_;
    std::vector<Decision> recorded_;
    std::optional<std::size_t> diverged_at_;
};

// "pick 1/3 @label" lines' short form: `kind choice/options where`, one a decision.
std::string describe_decisions(const std::vector<Decision>& decisions);

}  // namespace moq::sim
