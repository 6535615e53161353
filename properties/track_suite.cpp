// The track suite: a TrackProducer written by a driver task (groups created at
// generated sequences or appended, finish, finish_at, abort, the producer dropped,
// groups aborted after they landed, time), read by one task through a TrackCursor in arrival or sequence order, peeking
// and taking or skipping, or parking once with each new peek in hand (watching the
// cursor). The driver asks the
// reader to raise its floor while it reads (its own change: a disarm point) or pokes its
// task (a wake from another future, which the gate must ride out without walking). A
// plain model of the track says which group each take must hand out and how the walk
// ends (safety), that an answer the gate gives without walking is still right, whether
// a parked reader has something to read once the system is quiet (liveness), and the
// reader's walks are checked against its wakes (efficiency).
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "model/track.hpp"
#include "oracle/track_model.hpp"
#include "properties/commands.hpp"
#include "properties/drive.hpp"
#include "properties/poll_checks.hpp"
#include "properties/scope.hpp"
#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

namespace {

using namespace std::chrono_literals;

// What the driver asks of the reader: its own changes, applied at its next poll.
struct Post {
    enum class Kind : std::uint8_t { raise, skip, poke } kind = Kind::poke;
    std::uint64_t floor = 0;
};

// The driver's world: the track, the producers of the groups that landed (kept, so a
// group can be aborted after it landed), the reader's mailbox and the model.
struct World {
    World(sim::Executor& runs, model::Walk walk, std::uint64_t floor) : executor(runs), oracle(walk, floor) {}

    sim::Executor& executor;
    std::optional<model::TrackProducer> producer{std::in_place};  // until the Drop command
    model::TrackConsumer consumer = producer->consume();
    std::map<std::uint64_t, model::GroupProducer> groups;
    std::vector<std::uint64_t> landings;  // sequences in landing order
    // Floors for the reader to raise; an empty post only wakes its task, as another
    // future of the same task would.
    Mailbox<Post> mailbox;
    oracle::TrackModel oracle;
    std::function<std::uint64_t()> reader_wakes;  // the wakes the reader's task got so far
    // A driver operation is under way: the model heard it, the track may still be
    // delivering its wakes (a reader polled inline from one of them may find its gate
    // not fired yet: that gate's own wake follows before the operation returns).
    bool delivering = false;
    std::string violation;

    // Every verdict goes to the trace; the first violation is the case's.
    void fail(std::optional<std::string> found) {
        trace_verdict(executor, found);
        if (found && violation.empty()) violation = *found;
    }
    // A check that does not name its rule: prefixed with `rule`.
    void fail_as(const char* rule, std::optional<std::string> found) {
        if (found) fail(std::string(rule) + ": " + *found);
    }
};

kio::Duration advance_of(std::uint8_t n) { return (n % 10 + 1) * 10ms; }

// Every step draws its byte from 0 to 13, whatever its command.
constexpr std::uint32_t sequence_high = 14;

// The commands, one operation each: whether it applies to the model's state, and what it
// tells the model and does to the track. The model hears each operation first (and says
// whether the track must accept it): a wake inside the operation may poll the reader at
// once (drive `inline`), which must find the model already told.
class UnderWay {
public:
    explicit UnderWay(World& world) : world_(world) { world_.delivering = true; }
    ~UnderWay() { world_.delivering = false; }
    UnderWay(const UnderWay&) = delete;
    UnderWay& operator=(const UnderWay&) = delete;

private:
    World& world_;
};

template <class Operation>
auto operate(World& world, Operation&& operation) {
    const UnderWay under_way{world};
    return std::forward<Operation>(operation)();
}

// What the track answered a create the model expected it to `accept` (T1).
void landed(World& world, std::uint64_t sequence, bool accept,
            std::variant<model::GroupProducer, model::Error> created) {
    const bool accepted = std::holds_alternative<model::GroupProducer>(created);
    if (accepted) {
        world.groups.emplace(sequence, std::get<model::GroupProducer>(std::move(created)));
        world.landings.push_back(sequence);
    }
    if (accept != accepted)
        world.fail(std::string("T1: the track ") + (accepted ? "accepted" : "refused") + " group " +
                   std::to_string(sequence) + " against the model");
}

struct Create {
    static constexpr const char* name = "create";
    static constexpr std::size_t weight = 30;
    static constexpr std::array<Argument, 1> arguments{Argument{"sequence", 0, sequence_high}};
    static bool applies(const World& world, std::uint8_t) { return world.producer.has_value(); }
    static void run(World& world, std::uint8_t sequence, sim::Task&) {
        const bool accept = world.oracle.create(sequence);
        landed(world, sequence, accept, operate(world, [&] { return world.producer->create_group(sequence); }));
    }
};

// One past the newest sequence (T1).
struct Append {
    static constexpr const char* name = "append";
    static constexpr std::size_t weight = 3;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World& world, std::uint8_t) { return world.producer.has_value(); }
    static void run(World& world, std::uint8_t, sim::Task&) {
        const std::uint64_t sequence = world.oracle.past_newest();
        const bool accept = world.oracle.create(sequence);
        auto created = operate(world, [&] { return world.producer->append_group(); });
        if (const auto* group = std::get_if<model::GroupProducer>(&created); group && group->sequence() != sequence)
            world.fail("T1: append_group created group " + std::to_string(group->sequence()) + ", the model expected " +
                       std::to_string(sequence));
        landed(world, sequence, accept, std::move(created));
    }
};

// The producer goes away without an end or an abort (T7: cursors answer dropped).
struct Drop {
    static constexpr const char* name = "drop";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World& world, std::uint8_t) { return world.producer.has_value(); }
    static void run(World& world, std::uint8_t, sim::Task&) {
        world.oracle.dropped();
        operate(world, [&] { world.producer.reset(); });
    }
};

struct Finish {
    static constexpr const char* name = "finish";
    static constexpr std::size_t weight = 2;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World& world, std::uint8_t) { return world.producer.has_value(); }
    static void run(World& world, std::uint8_t, sim::Task&) {
        const bool accept = world.oracle.finish_at(std::nullopt);
        const bool accepted = !operate(world, [&] { return world.producer->finish(); });
        if (accept != accepted)
            world.fail(std::string("T2: the track ") + (accepted ? "accepted" : "refused") +
                       " finish against the model");
    }
};

struct FinishAt {
    static constexpr const char* name = "finish_at";
    static constexpr std::size_t weight = 4;
    static constexpr std::array<Argument, 1> arguments{Argument{"sequence", 0, sequence_high}};
    static bool applies(const World& world, std::uint8_t) { return world.producer.has_value(); }
    static void run(World& world, std::uint8_t sequence, sim::Task&) {
        const bool accept = world.oracle.finish_at(sequence);
        const bool accepted = !operate(world, [&] { return world.producer->finish_at(sequence); });
        if (accept != accepted)
            world.fail(std::string("T2: the track ") + (accepted ? "accepted" : "refused") + " finish_at(" +
                       std::to_string(sequence) + ") against the model");
    }
};

struct Abort {
    static constexpr const char* name = "abort";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World& world, std::uint8_t) { return world.producer.has_value(); }
    static void run(World& world, std::uint8_t, sim::Task&) {
        world.oracle.abort(model::Error::cancel);
        operate(world, [&] { world.producer->abort(model::Error::cancel); });
    }
};

// A group that landed is aborted by its own producer, before or after the reader peeked
// it: one of the four latest landings (0: the latest), so a recent peek is often hit.
struct AbortGroup {
    static constexpr const char* name = "abort_group";
    static constexpr std::size_t weight = 8;
    static constexpr std::array<Argument, 1> arguments{Argument{"back", 0, sequence_high}};
    static bool applies(const World& world, std::uint8_t) { return !world.landings.empty(); }
    static void run(World& world, std::uint8_t back, sim::Task&) {
        const std::size_t newest = world.landings.size() - 1;
        const std::uint64_t sequence = world.landings[newest - std::min<std::size_t>(back % 4, newest)];
        const bool watched = world.oracle.watching(sequence);
        const std::uint64_t wakes = world.reader_wakes();
        if (!world.oracle.abort_group(sequence))
            world.fail("T6: the model has no group " + std::to_string(sequence) + " to abort");
        operate(world, [&] { world.groups.at(sequence).abort(model::Error::cancel); });
        if (watched && world.reader_wakes() == wakes)
            world.fail("T10: aborting group " + std::to_string(sequence) +
                       ", which the reader parked holding a peek of and watching, did not wake it");
    }
};

struct Raise {
    static constexpr const char* name = "raise";
    static constexpr std::size_t weight = 8;
    static constexpr std::array<Argument, 1> arguments{Argument{"sequence", 0, sequence_high}};
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World& world, std::uint8_t sequence, sim::Task&) {
        world.mailbox.post(Post{Post::Kind::raise, sequence});
    }
};

struct Poke {
    static constexpr const char* name = "poke";
    static constexpr std::size_t weight = 5;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World& world, std::uint8_t, sim::Task&) { world.mailbox.post(Post{}); }
};

// The reader skips the next group it peeks instead of taking it (T9).
struct Skip {
    static constexpr const char* name = "skip";
    static constexpr std::size_t weight = 3;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World& world, std::uint8_t, sim::Task&) { world.mailbox.post(Post{Post::Kind::skip, 0}); }
};

struct Yield {
    static constexpr const char* name = "yield";
    static constexpr std::size_t weight = 4;
    static constexpr auto& arguments = no_arguments;
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World&, std::uint8_t, sim::Task& task) { task.yield(); }
};

struct Advance {
    static constexpr const char* name = "advance";
    static constexpr std::size_t weight = 5;
    static constexpr std::array<Argument, 1> arguments{Argument{"tens_of_ms", 0, sequence_high}};
    static bool applies(const World&, std::uint8_t) { return true; }
    static void run(World&, std::uint8_t tens, sim::Task& task) {
        kio::Deadline deadline{task.clock()};
        deadline.after(advance_of(tens));
        task.wait([&](const kio::Waiter& waiter) { return deadline.poll(waiter); });
    }
};

using Commands =
    CommandTable<Create, Append, Finish, FinishAt, Abort, Drop, AbortGroup, Raise, Skip, Poke, Yield, Advance>;

struct Step {
    std::uint8_t command = 0;   // an index into Commands
    std::uint8_t sequence = 0;  // create, finish_at, raise: the sequence; abort_group: how far back
                                // from the latest landing; advance: tens of ms
};

struct TrackCase {
    std::vector<Step> steps;
    model::Walk walk = model::Walk::arrival;
    std::uint8_t floor = 0;  // the cursor's first floor
    bool hold = false;       // the reader parks once holding each new peek, watching the cursor
    Drive drive = Drive::woken;
    std::uint64_t seed = 0;
};

// Walks no wake pays for: the first poll's, and the one park before a cursor sets up
// its gate.
constexpr std::uint64_t setup_walks = 2;

using oracle::TrackAnswer;

TrackAnswer answer_of(const kio::Poll<model::Next<const model::Peek*>>& peek) {
    TrackAnswer answer;
    if (peek.is_pending()) return answer;
    if (peek.value().is_item()) {
        answer.kind = TrackAnswer::Kind::group;
        answer.sequence = peek.value().item()->sequence;
    } else if (peek.value().is_end()) {
        answer.kind = TrackAnswer::Kind::end;
    } else {
        answer.kind = TrackAnswer::Kind::error;
        answer.error = peek.value().error();
    }
    return answer;
}

// The reader: applies its posted floors, peeks, and takes (or, holding, parks once with
// a new peek in hand). Returns the walk's end, or a group taken.
class Reader {
public:
    Reader(World& world, const TrackCase& value)
        : world_(world),
          hold_(value.hold),
          walk_(value.walk),
          cursor_(world.consumer.cursor(value.walk, value.floor)) {}

    kio::Poll<TrackAnswer> poll(sim::Task& task, const kio::Waiter& waiter) {
        checks_.begin(task, cursor_.walk_counter().walks, world_.mailbox, world_.delivering);
        world_.oracle.polled();
        // An arrival cursor answers a peek it still holds without walking: no gate answers.
        const bool gated = !(peek_in_hand_ && walk_ == model::Walk::arrival);
        peek_in_hand_ = false;
        const bool raised = apply_posts(waiter);
        auto peek = cursor_.poll_peek(waiter);
        const std::uint64_t walks = cursor_.walk_counter().walks;
        // An idle answer stands for the last walk: nothing it registered on changed
        // since, nor the cursor's floor.
        if (peek.is_pending() && checks_.idle(walks) && !world_.delivering) {
            const TrackAnswer next = world_.oracle.expected();
            if (next.kind != TrackAnswer::Kind::pending)
                world_.fail("T11: the gate answered Pending without walking while the model has " + text(next));
        }
        const TrackAnswer answer = answer_of(peek);
        trace_answer(answer);
        const bool holds = hold_ && answer.kind == TrackAnswer::Kind::group && held_ != answer.sequence;
        world_.fail_as("T11", checks_.end(task, peek.is_pending() || holds, cursor_.gate_armed(), walks, raised, gated,
                                          peek.is_pending(), world_.mailbox.posted()));
        if (peek.is_pending()) return kio::Poll<TrackAnswer>::pending();
        if (holds) {
            held_ = answer.sequence;
            peek_in_hand_ = true;
            world_.fail(world_.oracle.holding(answer.sequence));
            cursor_.watch(waiter);
            return kio::Poll<TrackAnswer>::pending();
        }
        if (answer.kind == TrackAnswer::Kind::group) skips_ > 0 ? skip(answer.sequence) : take(answer.sequence);
        return answer;
    }

    [[nodiscard]] const IdleChecks& checks() const { return checks_; }

private:
    bool apply_posts(const kio::Waiter& waiter) {
        bool raised = false;
        for (const Post& post : world_.mailbox.collect(waiter)) {
            if (post.kind == Post::Kind::skip) ++skips_;
            if (post.kind != Post::Kind::raise) continue;
            world_.executor.record(sim::operation_event("raise_floor", {static_cast<std::int64_t>(post.floor)}));
            cursor_.raise_floor(post.floor);
            world_.oracle.raise_floor(post.floor);
            raised = true;
        }
        return raised;
    }

    void trace_answer(const TrackAnswer& answer) {
        switch (answer.kind) {
            case TrackAnswer::Kind::pending: return trace_pending(world_.executor, "peek");
            case TrackAnswer::Kind::group: return trace_item(world_.executor, "peek", answer.sequence);
            case TrackAnswer::Kind::end: return trace_ending(world_.executor, "peek", std::nullopt);
            case TrackAnswer::Kind::error: return trace_ending(world_.executor, "peek", answer.error);
        }
    }

    void take(std::uint64_t sequence) {
        const std::optional<model::Peek> taken = cursor_.take();
        if (taken)
            trace_item(world_.executor, "take", taken->sequence);
        else
            trace_ending(world_.executor, "take", std::nullopt);
        if (!taken || taken->sequence != sequence)
            world_.fail("T9: take() did not hand out the peeked group " + std::to_string(sequence));
        world_.fail(world_.oracle.took(sequence));
    }

    void skip(std::uint64_t sequence) {
        --skips_;
        world_.executor.record(sim::operation_event("skip", {static_cast<std::int64_t>(sequence)}));
        cursor_.skip();
        world_.fail(world_.oracle.skipped(sequence));
    }

    World& world_;
    bool hold_;
    int skips_ = 0;  // groups to skip rather than take
    model::Walk walk_;
    std::optional<std::uint64_t> held_;  // the last peek the reader parked holding
    bool peek_in_hand_ = false;          // the last poll parked holding a peek
    model::TrackCursor cursor_;
    IdleChecks checks_;
};

// The small scope (properties/scope.hpp): sequences 0-3, one or two groups back, floors
// 0 and 2, both walks, holding or not, the drives woken, inline, fresh (the drive of the
// corpus's track failures) and eager, seed 0. No symmetry: a shift of every sequence moves
// them against the cursor's start.
SmallScope track_scope() {
    SmallScope scope;
    std::vector<nlohmann::json> steps;
    for (const char* name : {"create", "finish_at", "raise"})
        for (int sequence = 0; sequence < 4; ++sequence) steps.push_back({name, sequence});
    for (int back : {0, 1}) steps.push_back({"abort_group", back});
    for (const char* name : {"append", "finish", "abort", "drop", "skip", "poke", "yield", "advance"})
        steps.push_back({name, 0});
    for (const nlohmann::json& settings : every_combination(
             {{"arrival", "sequence"}, {0, 2}, {false, true}, {"woken", "inline", "fresh", "eager"}},
             [](const auto& chosen) {
                 return nlohmann::json{
                     {"walk", chosen[0]}, {"floor", chosen[1]}, {"hold", chosen[2]}, {"drive", chosen[3]}, {"seed", 0}};
             }))
        scope.shapes.push_back({settings, steps});
    return scope;
}

struct Traits {
    using Commands = moq::properties::Commands;

    static SmallScope small_scope() { return track_scope(); }

    static rc::Gen<TrackCase> generator(Mix mix) {
        return Commands::generator(mix, [](const rc::Gen<std::uint8_t>& kind) {
            const auto step =
                rc::gen::build<Step>(rc::gen::set(&Step::command, kind),
                                     rc::gen::set(&Step::sequence, rc::gen::inRange<std::uint8_t>(0, sequence_high)));
            return rc::gen::build<TrackCase>(
                rc::gen::set(&TrackCase::steps, rc::gen::container<std::vector<Step>>(step)),
                rc::gen::set(&TrackCase::walk, rc::gen::element(model::Walk::arrival, model::Walk::sequence)),
                rc::gen::set(&TrackCase::floor, rc::gen::weightedElement<std::uint8_t>({{4, 0}, {1, 2}, {1, 4}})),
                rc::gen::set(&TrackCase::hold, rc::gen::element(false, true)),
                rc::gen::set(&TrackCase::drive, drive_generator()),
                rc::gen::set(&TrackCase::seed, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>())));
        });
    }

    static CaseOutcome run(const TrackCase& value, const RunSettings& settings) {
        sim::Executor executor{simulation_options(value.seed, value.drive, settings)};
        World world{executor, value.walk, value.floor};

        executor.spawn("driver", [&](sim::Task& task) {
            for (const Step& step : value.steps) {
                task.yield();
                Commands::run(step.command, world, step.sequence,
                              Commands::trace_byte(task, step.command, step.sequence), task);
            }
        });

        std::optional<Reader> reader;
        std::uint32_t reader_task = 0;
        world.reader_wakes = [&] { return executor.task_stats(reader_task).wakes; };
        reader_task = executor.spawn("reader", [&](sim::Task& task) {
            reader.emplace(world, value);
            for (;;) {
                const std::optional<TrackAnswer> got =
                    task.wait_until_over([&](const kio::Waiter& waiter) { return reader->poll(task, waiter); });
                if (!got) return;  // the run is over with the reader parked
                if (got->kind == TrackAnswer::Kind::group) continue;
                world.fail(world.oracle.stopped(*got));
                return;
            }
        });

        executor.on_quiescence([&]() -> std::optional<std::string> {
            if (world.oracle.done()) return std::nullopt;
            if (world.mailbox.unread() != 0)
                return "T10: missed wake: the reader never read " + std::to_string(world.mailbox.unread()) + " posts";
            return world.oracle.quiescent();
        });

        const sim::RunResult result = executor.run();
        if (reader)
            world.fail(reader->checks().budget(executor.task_stats(reader_task), setup_walks, "T11: the reader"));
        return outcome_of(result, world.violation, executor);
    }

    static nlohmann::json to_json(const TrackCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps) steps.push_back({Commands::names[step.command], step.sequence});
        return {{"steps", steps},
                {"walk", value.walk == model::Walk::arrival ? "arrival" : "sequence"},
                {"floor", value.floor},
                {"hold", value.hold},
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
        if (json.contains("hold")) {
            if (!json["hold"].is_boolean()) throw std::invalid_argument("'hold' must be true or false");
            value.hold = json["hold"].get<bool>();
        }
        for (const nlohmann::json& step : require_array(json, "steps")) {
            if (!step.is_array() || step.size() != 2 || !step[0].is_string())
                throw std::invalid_argument("a step is [name, sequence]");
            const auto name = step[0].get<std::string>();
            const auto found = Commands::find(name);
            if (!found) throw std::invalid_argument("unknown step '" + name + "'");
            value.steps.push_back(Step{*found, require_small(step[1], 255, "sequence")});
        }
        return value;
    }

    static std::string describe(const TrackCase& value) {
        std::ostringstream out;
        out << (value.walk == model::Walk::arrival ? "arrival" : "sequence") << " walk from " << int{value.floor}
            << (value.hold ? ", holding peeks" : "") << ", " << drive_name(value.drive) << ", seed " << value.seed
            << ":";
        for (const Step& step : value.steps) {
            out << " " << Commands::names[step.command];
            if (step.command == Commands::index_of<Advance>())
                out << "(" << std::chrono::duration_cast<std::chrono::milliseconds>(advance_of(step.sequence)).count()
                    << "ms)";
            else if (Commands::has_arguments[step.command])
                out << "(" << int{step.sequence} << ")";
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
