// The track suite: a TrackProducer written by a driver task (groups created at
// generated sequences, finish, finish_at, abort, time), read by one task through a
// TrackCursor in arrival or sequence order, peeking and taking. The driver asks the
// reader to raise its floor while it reads (its own change: a disarm point) or pokes its
// task (a wake from another future, which the gate must ride out without walking). A
// plain model of the track says which group each take must hand out and how the walk
// ends (safety), that an answer the gate gives without walking is still right, whether
// a parked reader has something to read once the system is quiet (liveness), and the
// reader's walks are checked against its wakes (efficiency).
#include <algorithm>
#include <array>
#include <chrono>
#include <set>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "model/track.hpp"
#include "properties/drive.hpp"
#include "properties/poll_checks.hpp"
#include "properties/suites.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

namespace {

using namespace std::chrono_literals;

enum class Op : std::uint8_t { create, finish, finish_at, abort, raise, poke, yield, advance };
constexpr std::array<const char*, 8> op_names{"create", "finish", "finish_at", "abort",
                                              "raise",  "poke",   "yield",     "advance"};

struct Step {
    Op op = Op::create;
    std::uint8_t sequence = 0;  // create, finish_at, raise: the sequence; advance: tens of ms
};

struct TrackCase {
    std::vector<Step> steps;
    model::Walk walk = model::Walk::arrival;
    std::uint8_t floor = 0;  // the cursor's first floor
    Drive drive = Drive::woken;
    std::uint64_t seed = 0;
};

// Walks no wake pays for: the first poll's, and the one park before a cursor sets up
// its gate.
constexpr std::uint64_t setup_walks = 2;

kio::Duration advance_of(std::uint8_t n) { return (n % 10 + 1) * 10ms; }

// What the cursor must answer now.
struct Expected {
    enum class Kind { group, end, error, pending } kind = Kind::pending;
    std::uint64_t sequence = 0;
    std::size_t arrival_index = 0;  // arrival walks: where the group sits in landing order
    model::Error error = model::Error::cancel;
};

std::string text(const Expected& expected) {
    switch (expected.kind) {
        case Expected::Kind::group: return "group " + std::to_string(expected.sequence);
        case Expected::Kind::end: return "a clean end";
        case Expected::Kind::error: return "error " + std::string(model::error_name(expected.error));
        case Expected::Kind::pending: return "nothing yet";
    }
    return "?";
}

// The track and one cursor over it, as plainly as possible. The end rules are those of
// the core's cursor: an arrival walk ends once every landed group is behind it and the
// track is finished; a sequence walk once no group at or above its floor exists and the
// track's end is at or below the floor; an abort answers only after the groups that
// landed before it.
class TrackModel {
public:
    TrackModel(model::Walk walk, std::uint64_t floor) : walk_(walk), floor_(floor) {}

    // The driver's writes: whether the track must accept them.
    bool create(std::uint64_t sequence) {
        if (abort_ || (final_ && sequence >= *final_) || groups_.contains(sequence)) return false;
        groups_.insert(sequence);
        arrival_.push_back(sequence);
        return true;
    }
    bool finish_at(std::optional<std::uint64_t> final_sequence) {
        const std::uint64_t past_newest = groups_.empty() ? 0 : *groups_.rbegin() + 1;
        if (final_ || abort_ || (final_sequence && *final_sequence < past_newest)) return false;
        final_ = final_sequence.value_or(past_newest);
        return true;
    }
    void abort(model::Error error) {
        if (!abort_) abort_ = error;
    }

    // The reader's own change.
    void raise_floor(std::uint64_t floor) { floor_ = std::max(floor_, floor); }

    [[nodiscard]] Expected expected() const {
        Expected next;
        if (walk_ == model::Walk::arrival) {
            for (std::size_t i = position_; i < arrival_.size(); ++i) {
                if (arrival_[i] < floor_) continue;
                next.kind = Expected::Kind::group;
                next.sequence = arrival_[i];
                next.arrival_index = i;
                return next;
            }
        } else if (auto found = groups_.lower_bound(floor_); found != groups_.end()) {
            next.kind = Expected::Kind::group;
            next.sequence = *found;
            return next;
        }
        if (abort_) {
            next.kind = Expected::Kind::error;
            next.error = *abort_;
        } else if (final_ && (walk_ == model::Walk::arrival || *final_ <= floor_)) {
            next.kind = Expected::Kind::end;
        }
        return next;
    }

    // What the reader got. Each returns a violation, if any.
    std::optional<std::string> took(std::uint64_t sequence) {
        const Expected next = expected();
        if (stopped_) return "group " + std::to_string(sequence) + " handed out after the walk ended";
        if (next.kind != Expected::Kind::group || next.sequence != sequence)
            return "the cursor handed out group " + std::to_string(sequence) + ", the model expected " + text(next) +
                   where();
        if (walk_ == model::Walk::arrival) {
            position_ = next.arrival_index + 1;
        } else {
            floor_ = sequence + 1;
        }
        return std::nullopt;
    }
    std::optional<std::string> stopped(const Expected& got) {
        const Expected next = expected();
        const bool was_stopped = stopped_;
        stopped_ = true;
        if (was_stopped) return "the cursor answered " + text(got) + " after the walk ended";
        if (next.kind != got.kind || (got.kind == Expected::Kind::error && next.error != got.error))
            return "the cursor answered " + text(got) + ", the model expected " + text(next) + where();
        return std::nullopt;
    }

    // With no task runnable and no deadline pending.
    [[nodiscard]] std::optional<std::string> quiescent() const {
        if (stopped_) return std::nullopt;
        const Expected next = expected();
        if (next.kind == Expected::Kind::pending) return std::nullopt;
        return "missed wake: the reader is parked while the model has " + text(next) + " for it" + where();
    }

    [[nodiscard]] bool done() const { return stopped_; }

private:
    [[nodiscard]] std::string where() const {
        return " (floor " + std::to_string(floor_) +
               (walk_ == model::Walk::arrival ? ", arrival position " + std::to_string(position_) : std::string()) +
               ")";
    }

    model::Walk walk_;
    std::set<std::uint64_t> groups_;
    std::vector<std::uint64_t> arrival_;  // sequences in landing order
    std::optional<std::uint64_t> final_;
    std::optional<model::Error> abort_;
    std::uint64_t floor_;
    std::size_t position_ = 0;  // arrival walks: the next landing to look at
    bool stopped_ = false;
};

struct Traits {
    static rc::Gen<TrackCase> generator() {
        const auto step = rc::gen::build<Step>(
            rc::gen::set(&Step::op, rc::gen::weightedElement<Op>({{30, Op::create},
                                                                  {2, Op::finish},
                                                                  {4, Op::finish_at},
                                                                  {1, Op::abort},
                                                                  {8, Op::raise},
                                                                  {5, Op::poke},
                                                                  {4, Op::yield},
                                                                  {5, Op::advance}})),
            rc::gen::set(&Step::sequence, rc::gen::inRange<std::uint8_t>(0, 14)));
        return rc::gen::build<TrackCase>(
            rc::gen::set(&TrackCase::steps, rc::gen::container<std::vector<Step>>(step)),
            rc::gen::set(&TrackCase::walk, rc::gen::element(model::Walk::arrival, model::Walk::sequence)),
            rc::gen::set(&TrackCase::floor, rc::gen::weightedElement<std::uint8_t>({{4, 0}, {1, 2}, {1, 4}})),
            rc::gen::set(&TrackCase::drive, drive_generator()),
            rc::gen::set(&TrackCase::seed, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>())));
    }

    static CaseOutcome run(const TrackCase& value, const RunSettings& settings) {
        sim::Executor executor{simulation_options(value.seed, value.drive, settings)};
        model::TrackProducer producer;
        TrackModel oracle{value.walk, value.floor};
        // Floors for the reader to raise; an empty post only wakes its task, as another
        // future of the same task would.
        Mailbox<std::optional<std::uint64_t>> mailbox;
        std::string violation;
        auto fail = [&](std::optional<std::string> found) {
            if (found && violation.empty()) violation = *found;
        };

        executor.spawn("driver", [&](sim::Task& task) {
            for (const Step& step : value.steps) {
                task.yield();
                switch (step.op) {
                    case Op::create: {
                        const bool accepted =
                            std::holds_alternative<model::GroupProducer>(producer.create_group(step.sequence));
                        if (oracle.create(step.sequence) != accepted)
                            fail(std::string("the track ") + (accepted ? "accepted" : "refused") + " group " +
                                 std::to_string(step.sequence) + " against the model");
                        break;
                    }
                    case Op::finish: {
                        const bool accepted = !producer.finish();
                        if (oracle.finish_at(std::nullopt) != accepted) fail("finish disagrees with the model");
                        break;
                    }
                    case Op::finish_at: {
                        const bool accepted = !producer.finish_at(step.sequence);
                        if (oracle.finish_at(step.sequence) != accepted)
                            fail("finish_at(" + std::to_string(step.sequence) + ") disagrees with the model");
                        break;
                    }
                    case Op::abort:
                        producer.abort(model::Error::cancel);
                        oracle.abort(model::Error::cancel);
                        break;
                    case Op::raise: mailbox.post(step.sequence); break;
                    case Op::poke: mailbox.post(std::nullopt); break;
                    case Op::yield: task.yield(); break;
                    case Op::advance: {
                        kio::Deadline deadline{task.clock()};
                        deadline.after(advance_of(step.sequence));
                        task.wait([&](const kio::Waiter& waiter) { return deadline.poll(waiter); });
                        break;
                    }
                }
            }
        });

        std::uint64_t walks = 0;
        IdleChecks checks;
        const std::uint32_t reader_task = executor.spawn("reader", [&](sim::Task& task) {
            model::TrackCursor cursor = producer.consume().cursor(value.walk, value.floor);
            for (;;) {
                const Expected got = task.wait([&](const kio::Waiter& waiter) -> kio::Poll<Expected> {
                    checks.begin(task, cursor.walk_counter().walks, mailbox.posted());
                    bool raised = false;
                    for (const std::optional<std::uint64_t>& floor : mailbox.collect(waiter)) {
                        if (!floor) continue;
                        cursor.raise_floor(*floor);
                        oracle.raise_floor(*floor);
                        raised = true;
                    }
                    auto peek = cursor.poll_peek(waiter);
                    walks = cursor.walk_counter().walks;
                    // An idle answer stands for the last walk: nothing it registered on
                    // changed since, nor the cursor's floor.
                    if (peek.is_pending() && checks.idle(walks)) {
                        const Expected next = oracle.expected();
                        if (next.kind != Expected::Kind::pending)
                            fail("the gate answered Pending without walking while the model has " + text(next));
                    }
                    fail(checks.end(task, peek.is_pending(), cursor.gate_armed(), walks, raised, true,
                                    peek.is_pending(), mailbox.posted()));
                    if (peek.is_pending()) return kio::Poll<Expected>::pending();
                    Expected answer;
                    if (peek.value().is_item()) {
                        answer.kind = Expected::Kind::group;
                        answer.sequence = peek.value().item()->sequence;
                        const std::optional<model::Peek> taken = cursor.take();
                        if (!taken || taken->sequence != answer.sequence)
                            fail("take() did not hand out the peeked group " + std::to_string(answer.sequence));
                        fail(oracle.took(answer.sequence));
                    } else if (peek.value().is_end()) {
                        answer.kind = Expected::Kind::end;
                    } else {
                        answer.kind = Expected::Kind::error;
                        answer.error = peek.value().error();
                    }
                    return answer;
                });
                if (got.kind == Expected::Kind::group) continue;
                fail(oracle.stopped(got));
                return;
            }
        });

        executor.on_quiescence([&]() -> std::optional<std::string> {
            if (oracle.done()) return std::nullopt;
            if (mailbox.unread() != 0)
                return "missed wake: the reader never read " + std::to_string(mailbox.unread()) + " posts";
            return oracle.quiescent();
        });

        const sim::RunResult result = executor.run();
        fail(checks.budget(executor.task_stats(reader_task), setup_walks, "the reader"));
        return outcome_of(result, violation, executor);
    }

    static nlohmann::json to_json(const TrackCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps)
            steps.push_back({op_names[static_cast<std::size_t>(step.op)], step.sequence});
        return {{"steps", steps},
                {"walk", value.walk == model::Walk::arrival ? "arrival" : "sequence"},
                {"floor", value.floor},
                {"drive", drive_name(value.drive)},
                {"seed", value.seed}};
    }

    static TrackCase from_json(const nlohmann::json& json) {
        if (!json.is_object()) throw std::invalid_argument("a track case is an object");
        TrackCase value;
        value.seed = require_u64(json, "seed");
        value.drive = require_drive(json);
        const std::string walk = require_string(json, "walk");
        if (walk == "arrival") {
            value.walk = model::Walk::arrival;
        } else if (walk == "sequence") {
            value.walk = model::Walk::sequence;
        } else {
            throw std::invalid_argument("unknown walk '" + walk + "'");
        }
        if (!json.contains("floor")) throw std::invalid_argument("'floor' must be a whole number");
        value.floor = require_small(json["floor"], 255, "floor");
        for (const nlohmann::json& step : require_array(json, "steps")) {
            if (!step.is_array() || step.size() != 2 || !step[0].is_string())
                throw std::invalid_argument("a step is [name, sequence]");
            Step parsed;
            const auto name = step[0].get<std::string>();
            const auto found = std::find(op_names.begin(), op_names.end(), name);
            if (found == op_names.end()) throw std::invalid_argument("unknown step '" + name + "'");
            parsed.op = static_cast<Op>(found - op_names.begin());
            parsed.sequence = require_small(step[1], 255, "sequence");
            value.steps.push_back(parsed);
        }
        return value;
    }

    static std::string describe(const TrackCase& value) {
        std::ostringstream out;
        out << (value.walk == model::Walk::arrival ? "arrival" : "sequence") << " walk from " << int{value.floor}
            << ", " << drive_name(value.drive) << ", seed " << value.seed << ":";
        for (const Step& step : value.steps) {
            out << " " << op_names[static_cast<std::size_t>(step.op)];
            if (step.op == Op::create || step.op == Op::finish_at || step.op == Op::raise)
                out << "(" << int{step.sequence} << ")";
            if (step.op == Op::advance)
                out << "(" << std::chrono::duration_cast<std::chrono::milliseconds>(advance_of(step.sequence)).count()
                    << "ms)";
        }
        return out.str();
    }
};

}  // namespace

const Suite& track_suite() {
    static const TypedSuite<TrackCase, Traits> suite{
        "track", "track cursors in arrival and sequence order against a plain track model", 2000};
    return suite;
}

}  // namespace moq::properties
