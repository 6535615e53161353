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

// The objects a step touched, each by its number in the run: 1 for the first object the
// run touched, 2 for the next new one, and so on. Addresses differ from run to run (the
// heap is not the same when each run begins); the order of first touches is the same on
// every run along one prefix of decisions, since runs are deterministic. Past the point
// where two runs part, one number may name different objects in the two. That loses no
// conflict: a sleeping task's step that touched an object new at that point holds the
// first new number, and the first step of the other run to touch any new object gets that
// same number, so it conflicts and wakes the task. (A run that numbers the objects before
// that point otherwise, through an address reused in one run and not in the other, turns
// the sleep sets off: sim/explorer.cpp.) A task the executor parked, woke or
// ended is named by its id (task_object), as the sleep sets name tasks. Unknown when the
// step ran code that names nothing it touches (a clock move, a spurious poll, or in a
// suite whose footprints are incomplete, a task's start, a park or a wake).
class Footprint {
public:
    // A task's number, above every object's.
    static constexpr std::uint32_t task_object(std::uint32_t task) { return first_task + task; }

    void add(std::uint32_t object);  // 0: unknown
    void clear() {
        known_ = true;
        count_ = 0;
    }
    [[nodiscard]] bool known() const { return known_; }
    // Both known and no object in common: the two steps commute.
    [[nodiscard]] bool independent_of(const Footprint& other) const;

private:
    static constexpr std::uint32_t first_task = std::uint32_t{1} << 31;
    static constexpr std::size_t capacity = 8;  // more distinct objects: unknown
    std::array<std::uint32_t, capacity> objects_{};
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
    // The step changed what the executor keeps of task `task` (parked, woken, ended).
    virtual void touched_task(std::uint32_t) {}
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
