// The resume suite: a driver applies a generated list of operations to three copies, a
// route and the preferences, while a reader task peeks and takes groups; the resume model
// judges every take, every end, the state at quiescence, and the reader's walks. Each
// case draws the reader's delivered window and grace, and tells the model both. Some
// groups land open, their frame still to come, so a handed-out group's read stalls on a
// copy that may never write it, and must look past it when the route moves (R14).
#include <array>
#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <variant>

#include "kio/cell.hpp"
#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "model/resume.hpp"
#include "model/route.hpp"
#include "model/subscriber.hpp"
#include "model/track.hpp"
#include "oracle/resume_model.hpp"
#include "properties/commands.hpp"
#include "properties/drive.hpp"
#include "properties/mailbox.hpp"
#include "properties/scope.hpp"
#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "sim/executor.hpp"
#include "util/probe.hpp"

namespace moq::properties {

namespace {

using namespace std::chrono_literals;

struct Step {
    std::uint8_t command = 0;   // an index into Commands
    std::uint8_t copy = 0;      // 0..2: A, B, C
    std::uint8_t sequence = 0;  // land, open, drop: the group; range: the start; skip: the floor;
                                // drop_taken: which of the groups taken and not yet read
    std::uint8_t extra = 0;     // range: the end (0: none); advance: tenths of a second
};

// The reader's configuration, drawn per case where the reader has a bound or a budget.
// Stored cases without it get the reader's defaults.
struct Knobs {
    // How many handed-out sequences an arrival walk remembers (ResumeOptions).
    std::uint16_t delivered_window = 1024;
    // How long a replaced copy is kept, in tenths of a second (ResumeOptions::grace).
    std::uint8_t grace_tenths = 10;
    // Every taken group goes to the follower task unread, so a copy failing or a route
    // change between the take and the read is followed by the group's recover (R14).
    bool hand_off_unread = false;
    [[nodiscard]] kio::Duration grace() const { return grace_tenths * 100ms; }
};

struct ResumeCase {
    std::vector<Step> steps;
    model::Walk walk = model::Walk::arrival;
    Drive drive = Drive::woken;
    std::uint64_t seed = 0;
    Knobs knobs;
};

// What the driver asks of the reader's own handle (set_range, skip_ordered), or a poke:
// a wake of the reader's task from another of its futures, which its gates must ride.
struct Command {
    enum class Kind : std::uint8_t { poke, set_range, skip } kind = Kind::poke;
    std::uint64_t start = 0;
    std::optional<std::uint64_t> end;
};

// The system under test and its model. The model hears each driver operation right before
// the real one (a wake inside it may poll the reader at once, under drive `inline`, which
// must find the model told) and each answer of the reader.
struct World {
    World(sim::Executor& runs, model::Walk order, const Knobs& set)
        : executor(runs), walk(order), knobs(set), oracle(order, set.grace(), set.delivered_window) {}

    sim::Executor& executor;
    model::Walk walk;
    Knobs knobs;
    std::array<model::TrackProducer, oracle::ResumeModel::copy_count> copies;
    // The producers of the landed groups, kept so that one can be aborted (drop), and
    // one landed open can be given its frame (land).
    std::array<std::map<std::uint64_t, model::GroupProducer>, oracle::ResumeModel::copy_count> groups;
    std::array<std::set<std::uint64_t>, oracle::ResumeModel::copy_count> open;  // landed open, no frame yet
    model::Route route;
    kio::Producer<model::Preferences> preferences;
    oracle::ResumeModel oracle;
    Mailbox<Command> mailbox;
    // Taken groups whose read the reader left Pending, for the follower task.
    Mailbox<std::uint64_t> handoffs;
    std::map<std::uint64_t, model::GroupConsumer> handed;
    // The driver's `read_on`: the follower starts reading the groups handed on unread.
    Mailbox<Command> read_on;
    // The driver's `range_in_peek`: range changes the reader makes between its next Ready
    // peek and that peek's take. Posted without a wake: they wait for a poll that peeks.
    Mailbox<Command> in_peek;
    // Peeks a range change dropped, or aborted during their walk: each costs its poll a
    // second walk.
    std::uint64_t second_walks = 0;
    std::vector<std::uint64_t> taken_unread;  // handed on unread since the last read_on
    // A land under way: its group is in its copy before its frame is written.
    struct Landing {
        int copy = 0;
        std::uint64_t sequence = 0;
    };
    std::optional<Landing> landing;
    std::string violation;
    bool stopped = false;
    std::uint64_t walks = 0;
    std::uint64_t meters = 0;

    // Every verdict goes to the trace; the first violation is the case's.
    void fail(std::optional<std::string> found) {
        trace_verdict(executor, found);
        if (found && violation.empty()) violation = *found;
    }
};

std::string copy_letter(int copy) { return std::string(1, static_cast<char>('A' + copy)); }

void judge_landing(World& world, const Step& step, bool accept, bool accepted) {
    if (accept != accepted)
        world.fail("R2: copy " + copy_letter(step.copy) + (accepted ? " accepted" : " refused") + " group " +
                   std::to_string(step.sequence) + " against the model");
}

// The group's one frame, naming its copy and sequence, and its end, in one step.
void write_whole(model::GroupProducer& group, int copy, std::uint64_t sequence) {
    group.write_frame(oracle::ResumeModel::payload(copy, sequence));
    group.finish();
}

// open: a group lands before its frame, as a group does whose data is still on its way;
// the copy's next land of that sequence writes it. A copy that failed writes nothing more.
void open(World& world, const Step& step, kio::Instant now) {
    const bool accept = world.oracle.open(step.copy, step.sequence, now);
    auto created = world.copies[step.copy].create_group(step.sequence);
    const bool accepted = std::holds_alternative<model::GroupProducer>(created);
    if (accepted) {
        world.groups[step.copy].insert_or_assign(step.sequence, std::move(std::get<model::GroupProducer>(created)));
        world.open[step.copy].insert(step.sequence);
    }
    judge_landing(world, step, accept, accepted);
}

// land: a group with one frame naming its copy and sequence, finished; or the frame of
// one that landed open.
void land(World& world, const Step& step, kio::Instant now) {
    const int copy = step.copy;
    const bool accept = world.oracle.land(copy, step.sequence, now);
    world.landing = World::Landing{copy, step.sequence};
    bool accepted = false;
    if (world.open[copy].contains(step.sequence)) {
        accepted = !world.copies[copy].consume().aborted();
        if (accepted) {
            write_whole(world.groups[copy].at(step.sequence), copy, step.sequence);
            world.open[copy].erase(step.sequence);
        }
    } else {
        auto created = world.copies[copy].create_group(step.sequence);
        accepted = std::holds_alternative<model::GroupProducer>(created);
        if (accepted) {
            auto& group = std::get<model::GroupProducer>(created);
            write_whole(group, copy, step.sequence);
            world.groups[copy].insert_or_assign(step.sequence, std::move(group));
        }
    }
    world.landing.reset();
    judge_landing(world, step, accept, accepted);
}

// drop: aborts one landed group of a copy, as an eviction or expiry does upstream.
void drop(World& world, const Step& step, kio::Instant now) {
    const bool has = world.oracle.abort_group(step.copy, step.sequence, now);
    auto found = world.groups[step.copy].find(step.sequence);
    const bool had = found != world.groups[step.copy].end();
    if (had) found->second.abort(model::Error::cancel);
    if (has != had)
        world.fail("R2: copy " + copy_letter(step.copy) + " group " + std::to_string(step.sequence) +
                   " aborted against the model");
}

void finish(World& world, const Step& step, kio::Instant now) {
    const bool accept = world.oracle.finish(step.copy, now);
    const bool accepted = !world.copies[step.copy].finish();
    if (accept != accepted) world.fail("R2: copy finish disagrees with the model");
}

void advance(World& world, const Step& step, sim::Task& task) {
    kio::Deadline deadline{task.clock()};
    deadline.after(step.extra * 100ms);
    task.wait([&](const kio::Waiter& waiter) { return deadline.poll(waiter); });
    world.oracle.touch(task.clock().now());
}

std::optional<std::uint64_t> range_end(const Step& step) {
    return step.extra == 0 ? std::nullopt : std::optional<std::uint64_t>(step.sequence + step.extra);
}

// Every step draws each of its three bytes, whatever its command; a command reads some.
constexpr Argument copy_argument{"copy", 0, 3};
constexpr Argument sequence_argument{"sequence", 0, 12};
constexpr Argument extra_argument{"extra", 0, 15};

// The driver's operations as small command types, one operation each: a precondition
// (none of them needs one: a step that finds nothing to act on is told to the model,
// which judges the real answer), then the model, then the real system.
struct Always {
    static bool applies(const World&, const Step&) { return true; }
};
struct Land : Always {
    static constexpr const char* name = "land";
    static constexpr std::size_t weight = 30;
    static constexpr std::array<Argument, 2> arguments{copy_argument, sequence_argument};
    static void run(World& world, const Step& step, sim::Task& task) { land(world, step, task.clock().now()); }
};
struct Open : Always {
    static constexpr const char* name = "open";
    static constexpr std::size_t weight = 6;
    static constexpr std::array<Argument, 2> arguments{copy_argument, sequence_argument};
    static void run(World& world, const Step& step, sim::Task& task) { open(world, step, task.clock().now()); }
};
struct Finish : Always {
    static constexpr const char* name = "finish";
    static constexpr std::size_t weight = 5;
    static constexpr std::array<Argument, 1> arguments{copy_argument};
    static void run(World& world, const Step& step, sim::Task& task) { finish(world, step, task.clock().now()); }
};
struct Kill : Always {
    static constexpr const char* name = "kill";
    static constexpr std::size_t weight = 3;
    static constexpr std::array<Argument, 1> arguments{copy_argument};
    static void run(World& world, const Step& step, sim::Task& task) {
        world.oracle.kill(step.copy, task.clock().now());
        world.copies[step.copy].abort(model::Error::route_failed);
    }
};
struct Serve : Always {
    static constexpr const char* name = "serve";
    static constexpr std::size_t weight = 10;
    static constexpr std::array<Argument, 1> arguments{copy_argument};
    static void run(World& world, const Step& step, sim::Task& task) {
        world.oracle.serve(step.copy, task.clock().now());
        world.route.serve_from(world.copies[step.copy].consume());
    }
};
struct Park : Always {
    static constexpr const char* name = "park";
    static constexpr std::size_t weight = 3;
    static constexpr auto& arguments = no_arguments;
    static void run(World& world, const Step&, sim::Task& task) {
        world.oracle.park(task.clock().now());
        world.route.park();
    }
};
struct EndClean : Always {
    static constexpr const char* name = "end_clean";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = no_arguments;
    static void run(World& world, const Step&, sim::Task& task) {
        world.oracle.end(std::nullopt, task.clock().now());
        world.route.end(std::nullopt);
    }
};
struct EndError : Always {
    static constexpr const char* name = "end_error";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = no_arguments;
    static void run(World& world, const Step&, sim::Task& task) {
        world.oracle.end(model::Error::unroutable, task.clock().now());
        world.route.end(model::Error::unroutable);
    }
};
// The reader's own changes go through its mailbox (applied by its task, see below): a
// range, from `sequence` to `sequence + extra` (no end for 0), posted to `mailbox`.
template <Mailbox<Command> World::*mailbox>
struct PostsRange : Always {
    static constexpr std::array<Argument, 2> arguments{sequence_argument, extra_argument};
    static void run(World& world, const Step& step, sim::Task&) {
        (world.*mailbox).post(Command{Command::Kind::set_range, step.sequence, range_end(step)});
    }
};
struct SetRange : PostsRange<&World::mailbox> {
    static constexpr const char* name = "range";
    static constexpr std::size_t weight = 4;
};
// A range change between a Ready peek and its take, as an update of the subscription that
// arrives while the reader holds a peek: a peek the new range drops must not lose its
// group (a held one is held again, R12).
struct RangeInPeek : PostsRange<&World::in_peek> {
    static constexpr const char* name = "range_in_peek";
    static constexpr std::size_t weight = 3;
};
struct Update : Always {
    static constexpr const char* name = "update";
    static constexpr std::size_t weight = 3;
    static constexpr std::array<Argument, 1> arguments{extra_argument};
    static void run(World& world, const Step& step, sim::Task& task) {
        world.preferences.modify([&](model::Preferences& p) { p.priority = step.extra; });
        world.oracle.touch(task.clock().now());
    }
};
struct Advance : Always {
    static constexpr const char* name = "advance";
    static constexpr std::size_t weight = 6;
    static constexpr std::array<Argument, 1> arguments{extra_argument};
    static void run(World& world, const Step& step, sim::Task& task) { advance(world, step, task); }
};
struct Skip : Always {
    static constexpr const char* name = "skip";
    static constexpr std::size_t weight = 2;
    static constexpr std::array<Argument, 1> arguments{sequence_argument};
    static void run(World& world, const Step& step, sim::Task&) {
        world.mailbox.post(Command{Command::Kind::skip, step.sequence, std::nullopt});
    }
};
struct Poke : Always {
    static constexpr const char* name = "poke";
    static constexpr std::size_t weight = 3;
    static constexpr auto& arguments = no_arguments;
    static void run(World& world, const Step&, sim::Task&) { world.mailbox.post(Command{}); }
};
struct Drop : Always {
    static constexpr const char* name = "drop";
    static constexpr std::size_t weight = 3;
    static constexpr std::array<Argument, 2> arguments{copy_argument, sequence_argument};
    static void run(World& world, const Step& step, sim::Task& task) { drop(world, step, task.clock().now()); }
};
struct ReadOn : Always {
    static constexpr const char* name = "read_on";
    static constexpr std::size_t weight = 3;
    static constexpr auto& arguments = no_arguments;
    static void run(World& world, const Step&, sim::Task&) {
        world.taken_unread.clear();
        world.read_on.post(Command{});
    }
};
// Aborts, in one copy, a group the reader took and the follower has not read yet: the
// group's recover must then continue it from the route (R14).
struct DropTaken {
    static constexpr const char* name = "drop_taken";
    static constexpr std::size_t weight = 3;
    static constexpr std::array<Argument, 2> arguments{copy_argument, sequence_argument};
    static bool applies(const World& world, const Step&) { return !world.taken_unread.empty(); }
    static void run(World& world, const Step& step, sim::Task& task) {
        Step dropping = step;
        dropping.sequence = static_cast<std::uint8_t>(world.taken_unread[step.sequence % world.taken_unread.size()]);
        drop(world, dropping, task.clock().now());
    }
};

// In the order the weights are drawn in (a stored case names its commands).
using Commands = CommandTable<Land, Open, Serve, Finish, Kill, Park, EndClean, EndError, SetRange, Update, Advance,
                              Skip, Poke, Drop, ReadOn, DropTaken, RangeInPeek>;

// How a case's description writes a step: land(A,2), range(3..5), advance(400ms).
std::string describe_step(const Step& step) {
    const std::uint8_t command = step.command;
    std::string text = Commands::names[command];
    const bool names_group = command == Commands::index_of<Land>() || command == Commands::index_of<Open>() ||
                             command == Commands::index_of<Drop>();
    if (names_group || command == Commands::index_of<Finish>() || command == Commands::index_of<Kill>() ||
        command == Commands::index_of<Serve>() || command == Commands::index_of<DropTaken>())
        text +=
            "(" + copy_letter(step.copy) + (names_group ? "," + std::to_string(step.sequence) : std::string()) + ")";
    if (command == Commands::index_of<SetRange>() || command == Commands::index_of<RangeInPeek>())
        text += "(" + std::to_string(step.sequence) + ".." +
                (step.extra ? std::to_string(step.sequence + step.extra) : std::string()) + ")";
    if (command == Commands::index_of<Advance>()) text += "(" + std::to_string(step.extra * 100) + "ms)";
    if (command == Commands::index_of<Skip>()) text += "(" + std::to_string(step.sequence) + ")";
    return text;
}

// One driver operation, on the model and on the real system.
void apply(World& world, const Step& step, sim::Task& task) {
    Commands::run(
        step.command, world, step,
        [&](const char* name) {
            trace_operation(task, name, {step.copy, step.sequence, step.extra}, [&] { return describe_step(step); });
        },
        task);
    world.oracle.operation_done();
}

// The reader's own changes, as the task that owns the reader makes them.
// `in_poll`: after a Ready peek of the poll under way (at that time), not before the poll.
void apply_commands(World& world, Mailbox<Command>& mailbox, model::ResumeReader& reader, const kio::Waiter& waiter,
                    std::optional<kio::Instant> in_poll = std::nullopt) {
    for (const Command& command : mailbox.collect(waiter)) {
        if (command.kind == Command::Kind::set_range) {
            world.executor.record(sim::operation_event(
                "set_range", {static_cast<std::int64_t>(command.start),
                              command.end ? static_cast<std::int64_t>(*command.end) : std::int64_t{-1}}));
            reader.set_range(command.start, command.end);
            if (in_poll)
                world.oracle.range_set_in_poll(command.start, command.end, *in_poll);
            else
                world.oracle.range_set(command.start, command.end);
        } else if (command.kind == Command::Kind::skip) {
            world.executor.record(sim::operation_event("skip_ordered", {static_cast<std::int64_t>(command.start)}));
            reader.skip_ordered(command.start);
            world.oracle.skipped(command.start);
        }
    }
}

// A taken group's read as far as the reader task goes: the frames there now, and its
// ending if it came (none: the read is Pending and goes on in the follower task).
struct TakenRead {
    std::vector<std::string> frames;
    std::optional<std::optional<model::Error>> ending;
};

using FrameAnswer = model::Next<model::Bytes>;

std::optional<model::Error> ending_of(const FrameAnswer& answer) {
    return answer.is_end() ? std::nullopt : std::optional(answer.error());
}

// The frames of a taken group that are there now, through its recover, without parking.
TakenRead read_taken(model::GroupConsumer& group, std::uint64_t sequence, sim::Task& task) {
    TakenRead read;
    for (;;) {
        auto frame = task.wait([&](const kio::Waiter& waiter) {
            auto polled = group.poll_read_frame(waiter);
            using Read = std::optional<FrameAnswer>;
            return kio::Poll<Read>(polled.is_pending() ? Read() : Read(std::move(polled.value())));
        });
        if (!frame) return read;
        if (!frame->is_item()) {
            read.ending = ending_of(*frame);
            trace_ending(task.executor(), "frame", *read.ending);
            return read;
        }
        trace_item(task.executor(), "frame", sequence, std::nullopt, *frame->item());
        read.frames.push_back(*frame->item());
    }
}

// An ended read polled once more must answer the same (G11): the model compares.
void check_final(World& world, std::uint64_t sequence, model::GroupConsumer& group, const kio::Waiter& waiter) {
    auto again = group.poll_read_frame(waiter);
    if (again.is_pending() || again.value().is_item())
        world.fail("G11: group " + std::to_string(sequence) + "'s read went on after it ended");
    else
        world.fail(world.oracle.group_ended(sequence, ending_of(again.value())));
}

void hand_off(World& world, std::uint64_t sequence, model::GroupConsumer& group) {
    world.handed.insert_or_assign(sequence, std::move(group));
    world.handoffs.post(sequence);
}

// Moves a handed group into the follower's reads, telling the model it is read from now.
void begin_reading(World& world, std::map<std::uint64_t, model::GroupConsumer>& reading, std::uint64_t sequence,
                   model::GroupConsumer group) {
    world.oracle.group_read_begins(sequence);
    reading.insert_or_assign(sequence, std::move(group));
}

// The follower task: reads on every taken group handed to it, parking until a frame, an
// end or an error; a group whose copy failed follows the route through its recover.
// Another task than the reader's, so each read's first poll walks (G12). Groups handed
// on unread wait for the driver's `read_on`, so copies fail and routes change between
// a take and its read.
void follow(World& world, sim::Task& task) {
    std::map<std::uint64_t, model::GroupConsumer> waiting, reading;
    for (;;) {
        const auto answered_any = task.wait_until_over([&](const kio::Waiter& waiter) -> kio::Poll<std::monostate> {
            for (const std::uint64_t sequence : world.handoffs.collect(waiter)) {
                auto handed = world.handed.extract(sequence);
                if (world.knobs.hand_off_unread)
                    waiting.insert_or_assign(sequence, std::move(handed.mapped()));
                else
                    begin_reading(world, reading, sequence, std::move(handed.mapped()));
            }
            if (!world.read_on.collect(waiter).empty()) {
                for (auto& [sequence, group] : waiting) begin_reading(world, reading, sequence, std::move(group));
                waiting.clear();
            }
            bool answered = false;
            for (auto it = reading.begin(); it != reading.end();) {
                auto polled = it->second.poll_read_frame(waiter);
                if (polled.is_pending()) {
                    ++it;
                    continue;
                }
                answered = true;
                if (polled.value().is_item()) {
                    trace_item(world.executor, "frame", it->first, std::nullopt, *polled.value().item());
                    world.fail(world.oracle.group_frame(it->first, *polled.value().item()));
                    continue;  // read on
                }
                trace_ending(world.executor, "frame", ending_of(polled.value()));
                world.fail(world.oracle.group_ended(it->first, ending_of(polled.value())));
                check_final(world, it->first, it->second, waiter);
                it = reading.erase(it);
            }
            return answered ? kio::Poll<std::monostate>(std::monostate{}) : kio::Poll<std::monostate>::pending();
        });
        if (!answered_any) return;  // the run is over with the follower parked
    }
}

using Answer = model::Next<model::GroupConsumer>;

// With range changes posted for a peek: the reader's own peek first. A group in hand meets
// the changes before the subscriber's poll takes it (or, dropped, walks again); any other
// answer is the poll's, as the subscriber gives it, with no second walk.
kio::Poll<Answer> poll_through_peek(World& world, model::TrackSubscriber& subscriber, const kio::Waiter& waiter,
                                    sim::Task& task) {
    auto peek = subscriber.reader().poll_peek_group(waiter, world.walk);
    if (peek.is_pending()) return kio::Poll<Answer>::pending();
    if (peek.value().is_end()) return Answer(model::End{});
    if (peek.value().is_error()) return Answer(peek.value().error());
    const model::Peek& offered = *peek.value().item();
    trace_item(world.executor, "peek", offered.sequence, std::nullopt);
    if (offered.group.aborted()) {
        // Aborted during the walk: the subscriber's poll drops it and walks again (R17);
        // the changes wait for a peek that stays.
        world.oracle.peek_dropped(task.clock().now());
        ++world.second_walks;
    } else {
        world.oracle.peeked(offered.sequence);
        apply_commands(world, world.in_peek, subscriber.reader(), waiter, task.clock().now());
        // Dropped by the rules (R5): the subscriber's poll walks again.
        if (!world.oracle.peek_in_hand()) ++world.second_walks;
    }
    return subscriber.poll_group(waiter, world.walk);
}

// One poll of the subscriber, its answer told to the model (a group once its frames are read).
kio::Poll<Answer> poll_once(World& world, model::TrackSubscriber& subscriber, const kio::Waiter& waiter,
                            sim::Task& task) {
    apply_commands(world, world.mailbox, subscriber.reader(), waiter);
    world.oracle.poll_begun();
    auto got = world.in_peek.unread() != 0 ? poll_through_peek(world, subscriber, waiter, task)
                                           : subscriber.poll_group(waiter, world.walk);
    const bool walked = subscriber.reader().walk_counter(world.walk).walks != world.walks;
    world.walks = subscriber.reader().walk_counter(world.walk).walks;
    world.meters = subscriber.stats().polls;
    trace_gate(world.executor, !walked, world.walks);
    if (got.is_pending()) {
        trace_pending(world.executor, "group");
        world.fail(world.oracle.answered_pending(task.clock().now(), walked));
    } else if (got.value().is_item()) {
        trace_item(world.executor, "group", got.value().item().sequence(), subscriber.reader().taken_from());
    } else {
        trace_ending(world.executor, "group", got.value().is_end() ? std::nullopt : std::optional(got.value().error()));
    }
    return got;
}

// The reader task: reads as an export reads, through the track subscriber and its meter.
void read(World& world, sim::Task& task) {
    model::TrackSubscriber subscriber{model::ResumeReader{
        world.route.consume(), world.preferences.consume(), task.clock(),
        model::ResumeOptions{.grace = world.knobs.grace(), .delivered_window = world.knobs.delivered_window}}};
    for (;;) {
        std::optional<Answer> polled =
            task.wait_until_over([&](const kio::Waiter& waiter) { return poll_once(world, subscriber, waiter, task); });
        if (!polled) return;  // the run is over with the reader parked
        Answer& answer = *polled;
        if (answer.is_item()) {
            const std::uint64_t sequence = answer.item().sequence();
            const kio::Instant now = task.clock().now();
            // Taken while its land was under way: its read may have stalled and continued
            // from the serving copy (R14).
            std::optional<int> landing;
            if (world.landing && world.landing->sequence == sequence) landing = world.landing->copy;
            if (world.knobs.hand_off_unread) {
                world.fail(world.oracle.answered_unread_group(sequence, now, landing));
                world.taken_unread.push_back(sequence);
                hand_off(world, sequence, answer.item());
                continue;
            }
            TakenRead read = read_taken(answer.item(), sequence, task);
            world.fail(world.oracle.answered_group(sequence, read.frames, now, landing));
            if (read.ending) {
                world.fail(world.oracle.group_ended(sequence, *read.ending));
                task.wait([&](const kio::Waiter& waiter) {
                    check_final(world, sequence, answer.item(), waiter);
                    return kio::Poll<std::monostate>(std::monostate{});
                });
            } else {
                hand_off(world, sequence, answer.item());
            }
            continue;
        }
        world.stopped = true;
        world.fail(world.oracle.answered_end(answer.is_end() ? std::nullopt : std::optional(answer.error()),
                                             task.clock().now()));
        return;
    }
}

// Efficiency (not correctness): a re-poll nothing woke walks nothing, so every walk is
// paid for by a wake, a poll from a fresh task, the poll after a Ready, the gate's set-up
// or a peek dropped before its take (by a range change, or aborted); and an idle poll
// builds no meter.
void check_efficiency(World& world, const sim::TaskStats& stats) {
    const std::uint64_t paid = stats.wakes + stats.fresh_polls + stats.ready + world.second_walks + 2;
    if (world.walks > paid)
        world.fail("W2: the reader walked " + std::to_string(world.walks) + " times for " + std::to_string(paid) +
                   " wakes, fresh polls, ready answers and dropped peeks");
    if (world.meters > world.walks)
        world.fail("S1: the subscriber built " + std::to_string(world.meters) + " meters for " +
                   std::to_string(world.walks) + " walks");
}

// The small scope (properties/scope.hpp): copies A and B, groups 0-3, a range from 0 or
// 1 to none or 0 (and to 1 in a peek), skips to 1 and 2, both walks, the drives woken,
// inline, spurious and fresh, the reader's default knobs, seed 0. Symmetry: renaming the
// copies (docs/TESTING.md).
SmallScope resume_scope() {
    SmallScope scope;
    std::vector<nlohmann::json> steps;
    for (const char* name : {"land", "drop"})
        for (int copy : {0, 1})
            for (int sequence = 0; sequence < 4; ++sequence) steps.push_back({name, copy, sequence, 0});
    for (int copy : {0, 1}) {
        for (int sequence : {0, 1}) steps.push_back({"open", copy, sequence, 0});
        for (const char* name : {"serve", "finish", "kill", "drop_taken"}) steps.push_back({name, copy, 0, 0});
    }
    for (int start : {0, 1})
        for (int end : {0, 1}) steps.push_back({"range", 0, start, end});
    // In a peek: the end back to 1, below a group held and then peeked (R12).
    steps.push_back({"range_in_peek", 0, 0, 1});
    for (int extra : {0, 1}) steps.push_back({"update", 0, 0, extra});
    steps.push_back({"advance", 0, 0, 1});
    for (int floor : {1, 2}) steps.push_back({"skip", 0, floor, 0});
    for (const char* name : {"park", "end_clean", "end_error", "poke", "read_on"}) steps.push_back({name, 0, 0, 0});
    for (const nlohmann::json& settings :
         // Spurious and fresh-task polls leave the explorer re-polls: the walks-per-wake rules.
         every_combination({{"arrival", "sequence"}, {"woken", "inline", "spurious", "fresh"}}, [](const auto& chosen) {
             return nlohmann::json{{"walk", chosen[0]}, {"drive", chosen[1]}, {"seed", 0}};
         }))
        scope.shapes.push_back({settings, steps});
    scope.renamings.push_back(Renaming{"copy", [](const nlohmann::json&) { return std::size_t{2}; },
                                       [](nlohmann::json& value, const std::vector<std::size_t>& to) {
                                           rename_argument(value["steps"], Commands::operations(), "copy", 1, to);
                                       }});
    return scope;
}

struct Traits {
    using Commands = moq::properties::Commands;

    static SmallScope small_scope() { return resume_scope(); }

    static rc::Gen<ResumeCase> generator(Mix mix) {
        return Commands::generator(mix, [](const rc::Gen<std::uint8_t>& kind) {
            const auto step = rc::gen::build<Step>(rc::gen::set(&Step::command, kind),
                                                   rc::gen::set(&Step::copy, byte_in(copy_argument)),
                                                   rc::gen::set(&Step::sequence, byte_in(sequence_argument)),
                                                   rc::gen::set(&Step::extra, byte_in(extra_argument)));
            return rc::gen::build<ResumeCase>(
                rc::gen::set(&ResumeCase::steps, rc::gen::container<std::vector<Step>>(step)),
                rc::gen::set(&ResumeCase::walk, rc::gen::element(model::Walk::arrival, model::Walk::sequence)),
                rc::gen::set(&ResumeCase::drive, drive_generator()),
                rc::gen::set(&ResumeCase::seed, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>())),
                rc::gen::set(&ResumeCase::knobs, knobs_generator()));
        });
    }

    // Small windows as often as the default, so the delivered set and the held groups
    // evict (sequences reach 11); graces short and long around the default.
    static rc::Gen<Knobs> knobs_generator() {
        return rc::gen::build<Knobs>(
            rc::gen::set(&Knobs::delivered_window, rc::gen::weightedElement<std::uint16_t>(
                                                       {{6, 1024}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 6}, {1, 8}})),
            rc::gen::set(&Knobs::grace_tenths,
                         rc::gen::weightedElement<std::uint8_t>({{4, 10}, {1, 1}, {1, 3}, {1, 5}, {1, 20}})),
            rc::gen::set(&Knobs::hand_off_unread, rc::gen::weightedElement<bool>({{3, false}, {1, true}})));
    }

    static CaseOutcome run(const ResumeCase& value, const RunSettings& settings) {
        sim::Executor executor{simulation_options(value.seed, value.drive, settings)};
        World world{executor, value.walk, value.knobs};
        executor.spawn("driver", [&](sim::Task& task) {
            for (const Step& step : value.steps) {
                task.yield();
                apply(world, step, task);
            }
        });
        const std::uint32_t reader_task = executor.spawn("reader", [&](sim::Task& task) { read(world, task); });
        executor.spawn("follower", [&](sim::Task& task) { follow(world, task); });
        // Every task parked: judged before the clock moves too, so a reader that waits
        // where no rule lets it (R9) is caught before a timer hides the wait.
        const auto parked = [&]() -> std::optional<std::string> {
            if (!world.violation.empty()) return world.violation;  // the first violation, not its consequence
            if (world.handoffs.unread() != 0) return "R14: missed wake: the follower never read a group handed to it";
            if (auto missed = world.oracle.quiescent(executor.clock().now())) return missed;
            if (world.stopped) return std::nullopt;
            if (world.mailbox.unread() != 0) return "R15: missed wake: the reader never read its own posted changes";
            return std::nullopt;
        };
        executor.on_settled(parked);
        executor.on_quiescence(parked);
        const sim::RunResult result = executor.run();
        // A case the model stopped judging the reader's answers in (ResumeModel::bounded).
        if (world.oracle.bounded()) MOQ_PROBE("oracle.resume.state_bound_reached");
        check_efficiency(world, executor.task_stats(reader_task));
        return outcome_of(result, world.violation, executor);
    }

    static nlohmann::json to_json(const ResumeCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps)
            steps.push_back({Commands::names[step.command], step.copy, step.sequence, step.extra});
        nlohmann::json json = {{"steps", steps},
                               {"walk", value.walk == model::Walk::arrival ? "arrival" : "sequence"},
                               {"drive", drive_name(value.drive)},
                               {"seed", value.seed}};
        // Only a knob that differs from the reader's default is written.
        const Knobs defaults;
        if (value.knobs.delivered_window != defaults.delivered_window)
            json["delivered_window"] = value.knobs.delivered_window;
        if (value.knobs.grace_tenths != defaults.grace_tenths) json["grace_tenths"] = value.knobs.grace_tenths;
        if (value.knobs.hand_off_unread) json["hand_off_unread"] = true;
        return json;
    }

    static ResumeCase from_json(const nlohmann::json& json) {
        ResumeCase value;
        value.seed = require_u64(json, "seed");
        value.drive = require_drive(json);
        if (json.contains("delivered_window")) {
            const std::uint64_t window = require_u64(json, "delivered_window");
            if (window == 0 || window > 65535)
                throw std::invalid_argument("'delivered_window' must be a whole number from 1 to 65535");
            value.knobs.delivered_window = static_cast<std::uint16_t>(window);
        }
        if (json.contains("grace_tenths")) {
            value.knobs.grace_tenths = require_small(json["grace_tenths"], 255, "grace_tenths");
            if (value.knobs.grace_tenths == 0) throw std::invalid_argument("'grace_tenths' must be at least 1");
        }
        if (json.contains("hand_off_unread")) {
            if (!json["hand_off_unread"].is_boolean())
                throw std::invalid_argument("'hand_off_unread' must be true or false");
            value.knobs.hand_off_unread = json["hand_off_unread"].get<bool>();
        }
        const std::string walk = require_string(json, "walk");
        if (walk == "arrival") {
            value.walk = model::Walk::arrival;
        } else if (walk == "sequence") {
            value.walk = model::Walk::sequence;
        } else {
            throw std::invalid_argument("unknown walk '" + walk + "'");
        }
        for (const nlohmann::json& step : require_array(json, "steps")) {
            if (!step.is_array() || step.size() != 4 || !step[0].is_string())
                throw std::invalid_argument("a step is [name, copy, sequence, extra]");
            Step parsed;
            const auto name = step[0].get<std::string>();
            const auto found = Commands::find(name);
            if (!found) throw std::invalid_argument("unknown step '" + name + "'");
            parsed.command = *found;
            parsed.copy = require_small(step[1], 2, "copy");
            parsed.sequence = require_small(step[2], 255, "sequence");
            parsed.extra = require_small(step[3], 255, "extra");
            value.steps.push_back(parsed);
        }
        return value;
    }

    static std::string describe(const ResumeCase& value) {
        std::ostringstream out;
        out << (value.walk == model::Walk::arrival ? "arrival" : "sequence") << " walk, " << drive_name(value.drive);
        const Knobs defaults;
        if (value.knobs.delivered_window != defaults.delivered_window)
            out << ", delivered window " << value.knobs.delivered_window;
        if (value.knobs.grace_tenths != defaults.grace_tenths)
            out << ", grace " << value.knobs.grace_tenths * 100 << "ms";
        if (value.knobs.hand_off_unread) out << ", taken groups read by the follower";
        out << ", seed " << value.seed << ":";
        for (const Step& step : value.steps) out << " " << describe_step(step);
        return out.str();
    }
};

}  // namespace

const Suite& resume_suite() {
    static const TypedSuite<ResumeCase, Traits> suite{
        "resume", "the resume reader over three copies and a flapping route, against the resume model", 3000};
    return suite;
}

}  // namespace moq::properties
