// The group suite: one GroupProducer, with byte and frame limits drawn small from the
// case, written by a driver task (whole frames, chunked frames, finish, aborts with
// several errors, the last producer going, virtual time), read by one to three reader
// tasks, each its own way:
// poll_read_frame, poll_read_frames batches, poll_read_object, poll_next_frame with
// poll_read_chunk, a whole-frame read that falls back to poll_next_frame in the same
// poll, or poll_finished. Readers may start with a cap or a skip; while they read, the
// driver asks them to change their cap, start or range (their own changes: disarm
// points), to attach a deadline expiry on the simulator's clock (a reader may have a
// budget of its own, through a recover, which the driver may change), to follow the route
// (a recover that continues the group from the copy the route serves), or pokes their
// task (a wake from another future, which the gates must ride out without walking). The
// route serves replicas of the group (each gets every write), a replica may fail on its
// own, and the route may end with an error. The group model judges every
// write's answer, every read (safety), every read after an end (sticky), every answer a
// gate gives without walking, where each reader parks once the system is quiet
// (liveness), and every reader's walks (the idle path and its budget).
#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "doubles/recover.hpp"
#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "model/group.hpp"
#include "oracle/group_model.hpp"
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
using Waiting = oracle::GroupReaderModel::Waiting;

struct Step {
    std::uint8_t command = 0;  // an index into Commands
    std::uint8_t reader = 0;   // cap, skip, range, poke: which reader, modulo their number
    std::uint8_t n = 0;        // frame, chunk: bytes; start, open: declared size; cap, skip, range: index;
                               // advance: tens of ms
};

enum class Way : std::uint8_t { frame, frames, object, chunks, mixed, finished };
constexpr std::array<const char*, 6> way_names{"frame", "frames", "object", "chunks", "mixed", "finished"};

struct ReaderSpec {
    Way way = Way::frame;
    std::uint8_t batch = 1;  // frames: the batch size
    bool capped = false;     // with_end(end) before the first read
    std::uint8_t end = 0;
    std::uint8_t skip = 0;  // skip_to(skip) before the first read
    // The reader's own expiry budget (advance_of), given by its recover's poll_budget.
    std::optional<std::uint8_t> budget;
    bool follows = false;  // follows the route from the start (G11)
};

// The group's limits (G3), drawn small so that writes reach them; none: the defaults.
struct Limits {
    std::uint8_t bytes = 0;
    std::uint8_t frames = 0;
};

struct GroupCase {
    std::vector<Step> steps;
    std::vector<ReaderSpec> readers;
    std::optional<Limits> limits;
    Drive drive = Drive::woken;
    std::uint64_t seed = 0;
};

// Walks no wake pays for: the first poll's, and the two parks before a group read sets
// up its gate.
constexpr std::uint64_t setup_walks = 3;

kio::Duration advance_of(std::uint8_t n) { return (n % 10 + 1) * 10ms; }

// The error an abort step ends the group with (G5: readers get it, whatever it is).
constexpr std::array<model::Error, 4> abort_errors{model::Error::cancel, model::Error::route_failed,
                                                   model::Error::not_found, model::Error::too_large};
model::Error abort_error_of(std::uint8_t n) { return abort_errors[n % abort_errors.size()]; }

// How a replica fails on its own, or how the route ends: failures a recover continues from.
constexpr std::array<model::Error, 3> copy_errors{model::Error::route_failed, model::Error::not_found,
                                                  model::Error::dropped};
model::Error copy_error_of(std::uint8_t n) { return copy_errors[n % copy_errors.size()]; }

model::GroupLimits limits_of(const std::optional<Limits>& limits) {
    if (!limits) return {};
    return model::GroupLimits{limits->bytes, limits->frames};
}

std::string answer_text(std::optional<model::Error> error) {
    return error ? std::string(model::error_name(*error)) : std::string("ok");
}

// A change the driver asks a reader to make to itself, or a poke: a wake of the reader's
// task that changes nothing, as another future of the same task would.
struct Command {
    enum class Kind : std::uint8_t { poke, cap, skip, range, expiry, follow } kind = Kind::poke;
    // cap: with_end(index); skip: skip_to(index); range: with_range(index, index + 1);
    // expiry: with_expiry of a deadline policy whose budget is advance_of(index)
    std::size_t index = 0;
};

// One reader task's state, as the driver and the oracle see it.
struct Reader {
    Reader(const oracle::GroupModel& group, const ReaderSpec& given, std::size_t number)
        : spec(given),
          model(group, given.skip, given.capped ? std::optional<std::size_t>(given.end) : std::nullopt),
          name("reader " + std::to_string(number)) {}

    ReaderSpec spec;
    oracle::GroupReaderModel model;
    std::string name;
    Mailbox<Command> mailbox;
    kio::Producer<test::TestPreferences> preferences;  // the reader's own budget, changed by the driver
    bool follows = false;                              // its recover follows the route
    IdleChecks checks;
    Waiting waiting = Waiting::whole_frame;
    std::uint32_t task = 0;
};

class Run {
public:
    Run(const GroupCase& value, const RunSettings& settings)
        : value_(value),
          executor_(simulation_options(value.seed, value.drive, settings)),
          origin_(copies_.emplace_back(std::in_place, 0, limits_of(value.limits))->consume()),
          route_model_(oracle::GroupModel(limits_of(value.limits).max_bytes, limits_of(value.limits).max_frames)),
          group_(route_model_.copy(0)),
          route_(test::TestRouteState{0, origin_.cell(), std::nullopt}),
          start_(executor_.clock().now()) {}

    CaseOutcome go() {
        executor_.spawn("driver", [this](sim::Task& task) { drive(task); });
        for (std::size_t i = 0; i < value_.readers.size(); ++i) {
            readers_.push_back(std::make_unique<Reader>(group_, value_.readers[i], i));
            Reader& reader = *readers_.back();
            if (reader.spec.budget)
                reader.preferences.modify(
                    [&](test::TestPreferences& preferences) { preferences.budget = advance_of(*reader.spec.budget); });
            reader.model.budget_changed(
                reader.preferences.read([](const test::TestPreferences& p) { return p.budget; }));
            reader.task = executor_.spawn(reader.name, [this, &reader](sim::Task& task) { read(task, reader); });
        }
        executor_.on_quiescence([this]() { return parked_check(true); });
        executor_.on_settled([this]() { return parked_check(false); });
        const sim::RunResult result = executor_.run();
        for (const auto& reader : readers_)
            fail_as("G12", reader->checks.budget(executor_.task_stats(reader->task), setup_walks, reader->name));
        return outcome_of(result, violation_, executor_);
    }

private:
    // Every task is parked: a reader that could answer, or has posts unread, missed a wake.
    // `quiet`: no deadline is pending either, so an expiry still to come was missed too.
    std::optional<std::string> parked_check(bool quiet) {
        for (const auto& reader : readers_) {
            if (reader->model.stopped()) continue;
            reader->model.at_time(executor_.clock().now());
            if (reader->mailbox.unread() != 0)
                return "G13: missed wake: " + reader->name + " never read " + std::to_string(reader->mailbox.unread()) +
                       " posts";
            auto missed = quiet ? reader->model.quiescent(reader->waiting) : reader->model.settled(reader->waiting);
            if (missed) return *missed + " (" + reader->name + ")";
        }
        return std::nullopt;
    }

    // Every verdict goes to the trace; the first violation is the case's.
    void fail(std::optional<std::string> found) {
        trace_verdict(executor_, found);
        if (found && violation_.empty()) violation_ = *found;
    }
    // A check shared with other suites, whose message names no rule of its own.
    void fail_as(const char* rule, std::optional<std::string> found) {
        if (found) fail(std::string(rule) + ": " + *found);
    }

    void compare(const char* what, std::size_t copy, std::optional<model::Error> got,
                 std::optional<model::Error> expected) {
        if (got != expected)
            fail(std::string(expected == model::Error::too_large || got == model::Error::too_large ? "G3: " : "G2: ") +
                 what + (copy == 0 ? "" : " to replica " + std::to_string(copy)) + " answered " + answer_text(got) +
                 ", the model " + answer_text(expected));
    }

    // One write, to every copy of the group that still has its producer and to that copy's
    // model, each answer compared; kept so a replica served later starts from the same.
    template <class Write>
    void write_each(const char* what, Write write) {
        for (std::size_t i = 0; i < copies_.size(); ++i) {
            if (!copies_[i]) continue;
            const auto expected = write(route_model_.copy(i));
            compare(what, i, write(*copies_[i]), expected);
        }
        log_.push_back([write](model::GroupProducer& replica) { static_cast<void>(write(replica)); });
    }

    void drive(sim::Task& task);  // below, after the commands

public:
    // The driver's operations, which the commands (below) call.
    [[nodiscard]] bool has_producer() const { return copies_[0].has_value(); }
    void end_frame() {
        write_each("end_frame", [](auto& group) { return group.end_frame(); });
    }
    void finish() {
        write_each("finish", [](auto& group) { return group.finish(); });
    }

    // Each attempt its own letter, so a frame read at the wrong index shows.
    void write_frame(std::size_t size) {
        const std::string payload(size, static_cast<char>('a' + frames_written_++ % 26));
        write_each("write_frame", [payload](auto& group) { return group.write_frame(payload); });
    }

    void start_frame(std::size_t size) {
        write_each("start_frame", [size](auto& group) { return group.start_frame(size); });
    }

    void write_chunk(std::size_t size) {
        const std::string bytes(size, static_cast<char>('A' + chunks_written_++ % 26));
        write_each("write_chunk", [bytes](auto& group) { return group.write_chunk(bytes); });
    }

    // A frame's bytes all at once, committed by a later end: the frame is readable in
    // chunks, and to its end, while it is still in flight.
    void open_frame(std::size_t size) {
        start_frame(size);
        write_chunk(size);
    }

    void abort(model::Error error) {
        write_each("abort", [error](auto& group) {
            group.abort(error);
            return std::optional<model::Error>();
        });
    }

    // The last producer of every copy goes (G7).
    void drop() {
        for (std::size_t i = 0; i < copies_.size(); ++i) {
            route_model_.copy(i).drop();
            copies_[i].reset();
        }
        dropped_ = true;
    }

    // The route serves a replica: a new copy given every write so far (G11).
    void serve() {
        std::optional<model::GroupProducer> replica(std::in_place, 0, limits_of(value_.limits));
        for (const auto& write : log_) write(*replica);
        const model::GroupCell cell = replica->consume().cell();
        if (dropped_) replica.reset();  // its producer went with the others'
        copies_.push_back(std::move(replica));
        static_cast<void>(route_model_.serve());
        route_.modify([&](test::TestRouteState& state) { state.serve(cell); });
    }

    // The copy the route serves fails on its own; the first copy never does.
    void fail_replica(model::Error error) {
        if (copies_.size() < 2 || !copies_.back()) return;
        route_model_.copy(copies_.size() - 1).abort(error);
        copies_.back()->abort(error);
    }

    void end_route(model::Error error) {
        if (route_model_.ended()) return;
        route_model_.end(error);
        route_.modify([&](test::TestRouteState& state) { state.end_with(error); });
    }

    // The reader's preferences change its budget; it counts once a recover reads it.
    void change_budget(const Step& step) {
        if (readers_.empty()) return;
        Reader& reader = *readers_[step.reader % readers_.size()];
        const kio::Duration budget = advance_of(step.n);
        reader.model.budget_changed(budget);
        reader.preferences.modify([&](test::TestPreferences& preferences) { preferences.budget = budget; });
    }

    void post(const Step& step, Command::Kind kind) {
        if (!readers_.empty()) readers_[step.reader % readers_.size()]->mailbox.post(Command{kind, step.n});
    }

    static void advance(sim::Task& task, kio::Duration by) {
        kio::Deadline deadline{task.clock()};
        deadline.after(by);
        task.wait([&](const kio::Waiter& waiter) { return deadline.poll(waiter); });
    }

private:
    // The start of every poll of a reader: its own changes, then the idle-path bookkeeping.
    bool begin_poll(sim::Task& task, Reader& reader, model::GroupConsumer& consumer, const kio::Waiter& waiter) {
        reader.checks.begin(task, consumer.walk_counter().walks, reader.mailbox,
                            delivering_ || executor_.firing_timers());
        reader.model.at_time(task.clock().now());
        reader.model.poll_began();
        bool changed = false;
        for (const Command& command : reader.mailbox.collect(waiter)) {
            switch (command.kind) {
                case Command::Kind::poke: continue;
                case Command::Kind::cap:
                    consumer.with_end(command.index);
                    reader.model.with_end(command.index);
                    break;
                case Command::Kind::skip:
                    consumer.skip_to(command.index);
                    reader.model.skip_to(command.index);
                    break;
                case Command::Kind::range:
                    // At most the one frame at `index` from here on.
                    consumer.with_range(command.index, command.index + 1);
                    reader.model.skip_to(command.index);
                    reader.model.with_end(command.index + 1);
                    break;
                case Command::Kind::expiry: attach_expiry(task, reader, consumer, command.index); break;
                case Command::Kind::follow:
                    if (reader.follows) continue;
                    follow_route(reader, consumer);
                    break;
            }
            changed = true;
        }
        return changed;
    }

    // A deadline policy from the group's start; the reader's own budget, when it has a
    // recover to give it, decides instead of the policy's (G10).
    void attach_expiry(sim::Task& task, Reader& reader, model::GroupConsumer& consumer, std::size_t n) {
        const kio::Duration policy = advance_of(static_cast<std::uint8_t>(n));
        consumer.with_expiry(std::make_shared<model::DeadlineExpiry>(task.clock(), start_, policy));
        reader.model.with_expiry(start_, policy);
    }

    // From now on the read continues from the copy the route serves when its copy fails
    // or stalls (G11). The reader reads the first copy until then: generation 0.
    void follow_route(Reader& reader, model::GroupConsumer& consumer) {
        consumer.with_recover(std::make_unique<test::TestRecover>(route_.consume(), reader.preferences.consume(), 0));
        reader.model.with_recover(&route_model_);
        reader.follows = true;
    }

    // A whole-frame read the gate answered without walking stands for the last walk:
    // nothing it registered on changed since, nor the reader itself.
    void check_idle(Reader& reader, const model::GroupConsumer& consumer, bool pending) {
        if (!pending || delivering_ || executor_.firing_timers() || !reader.checks.idle(consumer.walk_counter().walks))
            return;
        if (auto answer = reader.model.answerable(Waiting::whole_frame))
            fail("G12: " + reader.name + ": the gate answered a whole-frame read Pending without walking at " +
                 *answer);
    }

    // `parked`: the poll answers Pending; `gated_pending`: its gated read did.
    void end_poll(sim::Task& task, Reader& reader, const model::GroupConsumer& consumer, bool parked, bool changed,
                  bool gated, bool gated_pending) {
        fail_as("G12", reader.checks.end(task, parked, consumer.gate_armed(), consumer.walk_counter().walks, changed,
                                         gated, gated_pending, reader.mailbox.posted()));
    }

    template <class T>
    static std::string ending_text(const kio::Poll<model::Next<T>>& answer) {
        if (answer.is_pending()) return "Pending";
        if (answer.value().is_end()) return "a clean end";
        if (answer.value().is_error()) return "error " + std::string(model::error_name(answer.value().error()));
        return "an item";
    }

    // G5, G10: an end is final. The same read once more answers the same at once (an
    // expiry verdict is sticky; an end or error of the group stays).
    template <class T, class Read>
    void again(sim::Task& task, Reader& reader, const model::Next<T>& first, Read&& read) {
        const std::string before = ending_text(kio::Poll<model::Next<T>>(first));
        std::string after;
        task.wait([&](const kio::Waiter& waiter) -> kio::Poll<bool> {
            after = ending_text(read(waiter));
            return true;
        });
        if (after != before)
            fail(std::string(first.is_error() && first.error() == model::Error::old ? "G10: " : "G5: ") + reader.name +
                 " read again after " + before + " and got " + after);
    }

    template <class T, class Read>
    void ended(sim::Task& task, Reader& reader, const model::Next<T>& next, Read&& read) {
        stop(reader, next);
        again(task, reader, next, std::forward<Read>(read));
    }

    template <class T>
    void stop(Reader& reader, const model::Next<T>& next) {
        trace_ending(executor_, way_names[static_cast<std::size_t>(reader.spec.way)],
                     next.is_end() ? std::nullopt : std::optional(next.error()));
        if (next.is_end()) {
            fail(reader.model.read_end());
        } else {
            fail(reader.model.read_error(next.error()));
        }
    }

    // Polls `read(waiter)` through the reader's bookkeeping until Ready.
    template <class Read>
    auto wait(sim::Task& task, Reader& reader, model::GroupConsumer& consumer, bool gated, Read&& read) {
        return task.wait([&](const kio::Waiter& waiter) {
            const bool changed = begin_poll(task, reader, consumer, waiter);
            auto answer = read(waiter);
            if (gated) check_idle(reader, consumer, answer.is_pending());
            end_poll(task, reader, consumer, answer.is_pending(), changed, gated, answer.is_pending());
            if (answer.is_pending()) trace_pending(executor_, way_names[static_cast<std::size_t>(reader.spec.way)]);
            return answer;
        });
    }

    void read_chunks(sim::Task& task, Reader& reader, model::GroupConsumer& consumer, model::FrameReader& frame) {
        reader.waiting = Waiting::chunk;
        for (;;) {
            auto piece = wait(task, reader, consumer, false,
                              [&](const kio::Waiter& waiter) { return frame.poll_read_chunk(waiter); });
            if (piece.is_item()) {
                trace_item(executor_, "chunk", std::nullopt, std::nullopt, piece.item());
                fail(reader.model.chunk(piece.item()));
            } else if (piece.is_end()) {
                trace_ending(executor_, "chunk", std::nullopt);
                fail(reader.model.chunk_end());
                return;
            } else {
                trace_ending(executor_, "chunk", piece.error());
                fail(reader.model.chunk_error(piece.error()));
                return;
            }
        }
    }

    void read(sim::Task& task, Reader& reader) {
        model::GroupConsumer consumer = origin_;  // a clone: the producer may be gone by now
        if (reader.spec.skip != 0) consumer.skip_to(reader.spec.skip);
        if (reader.spec.capped) consumer.with_end(reader.spec.end);
        if (reader.spec.follows) {
            follow_route(reader, consumer);
        } else if (reader.spec.budget) {
            consumer.with_recover(std::make_unique<test::BudgetRecover>(reader.preferences.consume()));
            reader.model.with_recover(nullptr);
        }
        switch (reader.spec.way) {
            case Way::frame: return read_frames_one_by_one(task, reader, consumer);
            case Way::frames: return read_batches(task, reader, consumer);
            case Way::object: return read_objects(task, reader, consumer);
            case Way::chunks: return read_chunked(task, reader, consumer);
            case Way::finished: return read_finished(task, reader, consumer);
            case Way::mixed: return read_mixed(task, reader, consumer);
        }
    }

    void read_frames_one_by_one(sim::Task& task, Reader& reader, model::GroupConsumer& consumer) {
        reader.waiting = Waiting::whole_frame;
        const auto read = [&](const kio::Waiter& waiter) { return consumer.poll_read_frame(waiter); };
        for (;;) {
            auto next = wait(task, reader, consumer, true, read);
            if (!next.is_item()) return ended(task, reader, next, read);
            trace_item(executor_, "frame", std::nullopt, std::nullopt, *next.item());
            fail(reader.model.read_frame(*next.item(), std::nullopt));
        }
    }

    void read_batches(sim::Task& task, Reader& reader, model::GroupConsumer& consumer) {
        reader.waiting = Waiting::whole_frame;
        const auto read = [&](const kio::Waiter& waiter) {
            return consumer.poll_read_frames(waiter, reader.spec.batch);
        };
        for (;;) {
            auto next = wait(task, reader, consumer, true, read);
            if (!next.is_item()) return ended(task, reader, next, read);
            if (next.item().empty() || next.item().size() > reader.spec.batch)
                fail("G9: " + reader.name + " got a batch of " + std::to_string(next.item().size()) + " frames for " +
                     std::to_string(reader.spec.batch));
            for (const model::Bytes& frame : next.item()) {
                trace_item(executor_, "frames", std::nullopt, std::nullopt, *frame);
                fail(reader.model.read_frame(*frame, std::nullopt));
            }
            reader.model.batch_answered();
        }
    }

    void read_objects(sim::Task& task, Reader& reader, model::GroupConsumer& consumer) {
        reader.waiting = Waiting::whole_frame;
        const auto read = [&](const kio::Waiter& waiter) { return consumer.poll_read_object(waiter); };
        for (;;) {
            auto next = wait(task, reader, consumer, true, read);
            if (!next.is_item()) return ended(task, reader, next, read);
            trace_item(executor_, "object", next.item().index, std::nullopt, next.item().payload);
            fail(reader.model.read_frame(next.item().payload, next.item().index));
        }
    }

    void read_chunked(sim::Task& task, Reader& reader, model::GroupConsumer& consumer) {
        const auto read = [&](const kio::Waiter& waiter) { return consumer.poll_next_frame(waiter); };
        for (;;) {
            reader.waiting = Waiting::next_frame;
            auto next = wait(task, reader, consumer, false, read);
            if (!next.is_item()) return ended(task, reader, next, read);
            trace_item(executor_, "next_frame", next.item().index());
            fail(reader.model.frame_opened(next.item().index()));
            read_chunks(task, reader, consumer, next.item());
        }
    }

    void read_finished(sim::Task& task, Reader& reader, model::GroupConsumer& consumer) {
        reader.waiting = Waiting::finished;
        auto count = wait(task, reader, consumer, false,
                          [&](const kio::Waiter& waiter) { return consumer.poll_finished(waiter); });
        if (count.is_item()) {
            trace_item(executor_, "finished", count.item());
            fail(reader.model.finished_count(count.item()));
        } else if (count.is_error()) {
            trace_ending(executor_, "finished", count.error());
            fail(reader.model.finished_error(count.error()));
        } else {
            fail("G6: " + reader.name + ": poll_finished answered a clean end without a count");
        }
    }

    // A whole-frame read and, while it parks, the chunked read of the same cursor, as one
    // task polling both would.
    struct Either {
        std::optional<model::Next<model::Bytes>> whole;
        std::optional<model::Next<model::FrameReader>> next;
    };

    kio::Poll<Either> poll_either(sim::Task& task, Reader& reader, model::GroupConsumer& consumer,
                                  const kio::Waiter& waiter) {
        const bool changed = begin_poll(task, reader, consumer, waiter);
        auto whole = consumer.poll_read_frame(waiter);
        check_idle(reader, consumer, whole.is_pending());
        reader.checks.gated_read_done(task);
        if (whole.is_ready()) {
            end_poll(task, reader, consumer, false, changed, true, false);
            return Either{std::move(whole).value(), std::nullopt};
        }
        auto next = consumer.poll_next_frame(waiter);
        end_poll(task, reader, consumer, next.is_pending(), changed, true, true);
        if (next.is_pending()) {
            trace_pending(executor_, "mixed");
            return kio::Poll<Either>::pending();
        }
        return Either{std::nullopt, std::move(next).value()};
    }

    void read_mixed(sim::Task& task, Reader& reader, model::GroupConsumer& consumer) {
        // The gated read, once more after any end: an end reached outside it must reach it too.
        const auto gated_read = [&](const kio::Waiter& waiter) { return consumer.poll_read_frame(waiter); };
        for (;;) {
            reader.waiting = Waiting::either;
            auto got =
                task.wait([&](const kio::Waiter& waiter) { return poll_either(task, reader, consumer, waiter); });
            if (got.whole) {
                if (!got.whole->is_item()) return ended(task, reader, *got.whole, gated_read);
                trace_item(executor_, "frame", std::nullopt, std::nullopt, *got.whole->item());
                fail(reader.model.read_frame(*got.whole->item(), std::nullopt));
                continue;
            }
            if (!got.next->is_item()) return ended(task, reader, *got.next, gated_read);
            trace_item(executor_, "next_frame", got.next->item().index());
            fail(reader.model.frame_opened(got.next->item().index()));
            read_chunks(task, reader, consumer, got.next->item());
        }
    }

    const GroupCase& value_;
    sim::Executor executor_;
    // The group's copies: the first, which every reader starts on, then the replicas the
    // route served; a copy's producer is gone once dropped.
    std::vector<std::optional<model::GroupProducer>> copies_;
    const model::GroupConsumer origin_;
    oracle::GroupRouteModel route_model_;
    oracle::GroupModel& group_;  // the first copy's model
    kio::Producer<test::TestRouteState> route_;
    std::vector<std::function<void(model::GroupProducer&)>> log_;  // every write, for a replica to replay
    bool dropped_ = false;
    bool delivering_ = false;  // a driver operation is under way: its wakes may not all have landed
    kio::Instant start_;       // the group's start, which its expiry is measured from
    std::size_t frames_written_ = 0;
    std::size_t chunks_written_ = 0;
    std::vector<std::unique_ptr<Reader>> readers_;
    std::string violation_;
};

// The driver's commands, one operation each (see properties/commands.hpp). The writes
// apply while the producer is there: once it is gone only the readers' own steps, the
// route and time remain.
struct Always {
    static bool applies(const Run&, const Step&) { return true; }
};
struct Writes {
    static bool applies(const Run& run, const Step&) { return run.has_producer(); }
};

// Every step draws both bytes, whatever its command; a command reads some.
constexpr Argument reader_argument{"reader", 0, 3};  // modulo the number of readers
constexpr Argument n_argument{"n", 0, 5};
constexpr std::array<Argument, 1> n_only{n_argument};
constexpr std::array<Argument, 1> reader_only{reader_argument};
constexpr std::array<Argument, 2> reader_and_n{reader_argument, n_argument};

// A write of `n` bytes (or a frame declared `n` long).
template <void (Run::*write)(std::size_t)>
struct WritesSized : Writes {
    static constexpr auto& arguments = n_only;
    static void run(Run& run, const Step& step, sim::Task&) { (run.*write)(step.n); }
};
struct Frame : WritesSized<&Run::write_frame> {
    static constexpr const char* name = "frame";
    static constexpr std::size_t weight = 20;
};
struct Start : WritesSized<&Run::start_frame> {
    static constexpr const char* name = "start";
    static constexpr std::size_t weight = 8;
};
struct Chunk : WritesSized<&Run::write_chunk> {
    static constexpr const char* name = "chunk";
    static constexpr std::size_t weight = 12;
};
struct Open : WritesSized<&Run::open_frame> {  // a frame's bytes, committed by a later end
    static constexpr const char* name = "open";
    static constexpr std::size_t weight = 5;
};
struct End : Writes {
    static constexpr const char* name = "end";
    static constexpr std::size_t weight = 6;
    static constexpr auto& arguments = no_arguments;
    static void run(Run& run, const Step&, sim::Task&) { run.end_frame(); }
};
struct Finish : Writes {
    static constexpr const char* name = "finish";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = no_arguments;
    static void run(Run& run, const Step&, sim::Task&) { run.finish(); }
};
struct Abort : Writes {
    static constexpr const char* name = "abort";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = n_only;  // the error
    static void run(Run& run, const Step& step, sim::Task&) { run.abort(abort_error_of(step.n)); }
};
// A change a reader makes to itself, posted to its task.
template <Command::Kind kind>
struct Posts : Always {
    static void run(Run& run, const Step& step, sim::Task&) { run.post(step, kind); }
};
struct Cap : Posts<Command::Kind::cap> {
    static constexpr const char* name = "cap";
    static constexpr std::size_t weight = 4;
    static constexpr auto& arguments = reader_and_n;  // the end
};
struct Skip : Posts<Command::Kind::skip> {
    static constexpr const char* name = "skip";
    static constexpr std::size_t weight = 3;
    static constexpr auto& arguments = reader_and_n;  // the index
};
struct Range : Posts<Command::Kind::range> {
    static constexpr const char* name = "range";
    static constexpr std::size_t weight = 2;
    static constexpr auto& arguments = reader_and_n;  // the one index
};
struct Poke : Posts<Command::Kind::poke> {
    static constexpr const char* name = "poke";
    static constexpr std::size_t weight = 6;
    static constexpr auto& arguments = reader_only;
};
struct Yield : Always {
    static constexpr const char* name = "yield";
    static constexpr std::size_t weight = 4;
    static constexpr auto& arguments = no_arguments;
    static void run(Run&, const Step&, sim::Task& task) { task.yield(); }
};
struct Advance : Always {
    static constexpr const char* name = "advance";
    static constexpr std::size_t weight = 5;
    static constexpr auto& arguments = n_only;  // tens of ms
    static void run(Run&, const Step& step, sim::Task& task) { Run::advance(task, advance_of(step.n)); }
};
// Every copy's last producer goes, again if it went before.
struct Drop : Always {
    static constexpr const char* name = "drop";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = no_arguments;
    static void run(Run& run, const Step&, sim::Task&) { run.drop(); }
};
struct Expire : Posts<Command::Kind::expiry> {
    static constexpr const char* name = "expire";
    static constexpr std::size_t weight = 2;
    static constexpr auto& arguments = reader_and_n;  // the budget, tens of ms
};
struct Serve : Always {
    static constexpr const char* name = "serve";
    static constexpr std::size_t weight = 2;
    static constexpr auto& arguments = no_arguments;
    static void run(Run& run, const Step&, sim::Task&) { run.serve(); }
};
struct Fail : Always {
    static constexpr const char* name = "fail";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = n_only;  // the error
    static void run(Run& run, const Step& step, sim::Task&) { run.fail_replica(copy_error_of(step.n)); }
};
struct Budget : Always {
    static constexpr const char* name = "budget";
    static constexpr std::size_t weight = 3;
    static constexpr auto& arguments = reader_and_n;  // tens of ms
    static void run(Run& run, const Step& step, sim::Task&) { run.change_budget(step); }
};
struct Follow : Posts<Command::Kind::follow> {
    static constexpr const char* name = "follow";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = reader_only;
};
struct EndRoute : Always {
    static constexpr const char* name = "end_route";
    static constexpr std::size_t weight = 1;
    static constexpr auto& arguments = n_only;  // the error
    static void run(Run& run, const Step& step, sim::Task&) { run.end_route(copy_error_of(step.n)); }
};

using Commands = CommandTable<Frame, Start, Chunk, Open, End, Finish, Abort, Cap, Skip, Range, Poke, Yield, Advance,
                              Drop, Expire, Serve, Fail, Budget, Follow, EndRoute>;

// How a case's description writes a step: frame(3), abort(cancel), cap(r1,2), advance(40ms).
std::string describe_step(const Step& step, std::size_t readers) {
    std::ostringstream out;
    const auto millis = [](std::uint8_t n) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(advance_of(n)).count();
    };
    out << Commands::names[step.command];
    switch (step.command) {
        case Commands::index_of<Frame>():
        case Commands::index_of<Start>():
        case Commands::index_of<Chunk>():
        case Commands::index_of<Open>(): out << "(" << int{step.n} << ")"; break;
        case Commands::index_of<Abort>(): out << "(" << model::error_name(abort_error_of(step.n)) << ")"; break;
        case Commands::index_of<Fail>():
        case Commands::index_of<EndRoute>(): out << "(" << model::error_name(copy_error_of(step.n)) << ")"; break;
        case Commands::index_of<Poke>():
        case Commands::index_of<Follow>(): out << "(r" << step.reader % readers << ")"; break;
        case Commands::index_of<Budget>():
        case Commands::index_of<Expire>():
            out << "(r" << step.reader % readers << "," << millis(step.n) << "ms)";
            break;
        case Commands::index_of<Cap>():
        case Commands::index_of<Skip>():
        case Commands::index_of<Range>(): out << "(r" << step.reader % readers << "," << int{step.n} << ")"; break;
        case Commands::index_of<Advance>(): out << "(" << millis(step.n) << "ms)"; break;
        default: break;
    }
    return out.str();
}

void Run::drive(sim::Task& task) {
    for (const Step& step : value_.steps) {
        task.yield();
        // The model hears of each operation first; under the inline drive a reader may
        // run inside it, before its wakes are all delivered (a gate not yet fired).
        delivering_ = step.command != Commands::index_of<Yield>() && step.command != Commands::index_of<Advance>();
        Commands::run(
            step.command, *this, step,
            [&](const char* name) {
                trace_operation(task, name, {step.reader, step.n},
                                [&] { return describe_step(step, value_.readers.size()); });
            },
            task);
        delivering_ = false;
    }
}

ReaderSpec parse_reader(const nlohmann::json& json) {
    if (!json.is_object()) throw std::invalid_argument("a reader is an object");
    ReaderSpec spec;
    const std::string way = require_string(json, "way");
    const auto found = std::find(way_names.begin(), way_names.end(), way);
    if (found == way_names.end()) throw std::invalid_argument("unknown reader way '" + way + "'");
    spec.way = static_cast<Way>(found - way_names.begin());
    if (!json.contains("batch")) throw std::invalid_argument("'batch' must be a whole number");
    spec.batch = require_small(json["batch"], 255, "batch");
    if (spec.batch == 0) throw std::invalid_argument("batch must be at least 1");
    if (!json.contains("end")) throw std::invalid_argument("'end' must be null or a whole number");
    spec.capped = !json["end"].is_null();
    if (spec.capped) spec.end = require_small(json["end"], 255, "end");
    if (!json.contains("skip")) throw std::invalid_argument("'skip' must be a whole number");
    spec.skip = require_small(json["skip"], 255, "skip");
    if (json.contains("budget")) spec.budget = require_small(json["budget"], 255, "budget");
    if (json.contains("follows")) {
        if (!json["follows"].is_boolean()) throw std::invalid_argument("'follows' must be true or false");
        spec.follows = json["follows"].get<bool>();
    }
    return spec;
}

// The small scope (properties/scope.hpp): one reader (mixed, following the route,
// finished or object),
// two (frame and mixed), or the three followers of the G4 failure the long sweeps found
// (mixed to 2, chunks to 1, mixed to 1); the readers' changes to index 1, budgets and
// expiries of 10 ms, sizes of 1, the first error of each list; the drives woken, inline
// and spurious; no limits; seed 0. Symmetry: renaming the readers (docs/TESTING.md), so every
// order of a set of readers is listed and all but one skipped.
SmallScope group_scope() {
    const auto reader = [](const char* way, std::optional<int> end, bool follows) {
        nlohmann::json spec{
            {"way", way}, {"batch", 1}, {"end", end ? nlohmann::json(*end) : nlohmann::json()}, {"skip", 0}};
        if (follows) spec["follows"] = true;
        return spec;
    };
    // One reader of each way the efficiency and finish rules need alone: a finished
    // waiter, and a whole-object read.
    std::vector<std::vector<nlohmann::json>> sets{{reader("mixed", std::nullopt, false)},
                                                  {reader("mixed", 2, true)},
                                                  {reader("finished", std::nullopt, false)},
                                                  {reader("object", std::nullopt, false)}};
    std::vector<nlohmann::json> two{reader("frame", std::nullopt, false), reader("mixed", std::nullopt, false)};
    std::vector<nlohmann::json> three{reader("mixed", 2, true), reader("chunks", 1, true), reader("mixed", 1, true)};
    for (std::vector<nlohmann::json>* several : {&two, &three}) {
        std::vector<std::size_t> order(several->size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        do {
            sets.emplace_back();
            for (const std::size_t i : order) sets.back().push_back((*several)[i]);
        } while (std::next_permutation(order.begin(), order.end()));
    }
    SmallScope scope;
    // Spurious polls leave the explorer a re-poll at every step: the walks-per-wake rules.
    for (const char* drive : {"woken", "inline", "spurious"})
        for (const auto& readers : sets) {
            std::vector<nlohmann::json> steps;
            for (const char* name : {"frame", "start", "chunk", "open"}) steps.push_back({name, 0, 1});
            for (const char* name :
                 {"end", "finish", "abort", "yield", "advance", "drop", "serve", "fail", "end_route"})
                steps.push_back({name, 0, 0});
            for (int r = 0; r < static_cast<int>(readers.size()); ++r) {
                for (const char* name : {"cap", "skip"}) steps.push_back({name, r, 1});
                for (const char* name : {"range", "poke", "expire", "budget", "follow"}) steps.push_back({name, r, 0});
            }
            scope.shapes.push_back({nlohmann::json{{"readers", readers}, {"drive", drive}, {"seed", 0}}, steps});
        }
    scope.renamings.push_back(Renaming{"reader",
                                       [](const nlohmann::json& settings) { return settings["readers"].size(); },
                                       [](nlohmann::json& value, const std::vector<std::size_t>& to) {
                                           nlohmann::json readers = value["readers"];
                                           for (std::size_t i = 0; i < to.size(); ++i)
                                               readers[to[i]] = value["readers"][i];
                                           value["readers"] = readers;
                                           rename_argument(value["steps"], Commands::operations(), "reader", 1, to);
                                       }});
    return scope;
}

struct Traits {
    using Commands = moq::properties::Commands;

    static SmallScope small_scope() { return group_scope(); }

    static rc::Gen<GroupCase> generator(Mix mix) {
        return Commands::generator(mix, [](const rc::Gen<std::uint8_t>& kind) {
            const auto step = rc::gen::build<Step>(rc::gen::set(&Step::command, kind),
                                                   rc::gen::set(&Step::reader, byte_in(reader_argument)),
                                                   rc::gen::set(&Step::n, byte_in(n_argument)));
            const auto reader = rc::gen::build<ReaderSpec>(
                rc::gen::set(&ReaderSpec::way, rc::gen::weightedElement<Way>({{3, Way::frame},
                                                                              {2, Way::frames},
                                                                              {2, Way::object},
                                                                              {2, Way::chunks},
                                                                              {5, Way::mixed},
                                                                              {2, Way::finished}})),
                rc::gen::set(&ReaderSpec::batch, rc::gen::inRange<std::uint8_t>(1, 5)),
                rc::gen::set(&ReaderSpec::capped, rc::gen::element(false, true)),
                rc::gen::set(&ReaderSpec::end, rc::gen::inRange<std::uint8_t>(1, 5)),
                rc::gen::set(&ReaderSpec::skip, rc::gen::weightedElement<std::uint8_t>({{4, 0}, {1, 1}, {1, 2}})),
                rc::gen::set(&ReaderSpec::follows, rc::gen::weightedElement<bool>({{2, false}, {1, true}})),
                rc::gen::set(&ReaderSpec::budget, rc::gen::map(rc::gen::maybe(rc::gen::inRange<std::uint8_t>(0, 6)),
                                                               [](const rc::Maybe<std::uint8_t>& drawn) {
                                                                   return drawn ? std::optional<std::uint8_t>(*drawn)
                                                                                : std::nullopt;
                                                               })));
            const auto readers = rc::gen::mapcat(rc::gen::inRange<std::size_t>(1, 4), [reader](std::size_t count) {
                return rc::gen::container<std::vector<ReaderSpec>>(count, reader);
            });
            const auto limits =
                rc::gen::build<Limits>(rc::gen::set(&Limits::bytes, rc::gen::inRange<std::uint8_t>(0, 16)),
                                       rc::gen::set(&Limits::frames, rc::gen::inRange<std::uint8_t>(0, 6)));
            return rc::gen::build<GroupCase>(
                rc::gen::set(&GroupCase::steps, rc::gen::container<std::vector<Step>>(step)),
                rc::gen::set(&GroupCase::readers, readers),
                rc::gen::set(&GroupCase::limits, rc::gen::map(rc::gen::maybe(limits),
                                                              [](const rc::Maybe<Limits>& drawn) {
                                                                  return drawn ? std::optional<Limits>(*drawn)
                                                                               : std::nullopt;
                                                              })),
                rc::gen::set(&GroupCase::drive, drive_generator()),
                rc::gen::set(&GroupCase::seed, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>())));
        });
    }

    static CaseOutcome run(const GroupCase& value, const RunSettings& settings) {
        Run run{value, settings};
        return run.go();
    }

    static nlohmann::json to_json(const GroupCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps) steps.push_back({Commands::names[step.command], step.reader, step.n});
        nlohmann::json readers = nlohmann::json::array();
        for (const ReaderSpec& spec : value.readers)
            readers.push_back({{"way", way_names[static_cast<std::size_t>(spec.way)]},
                               {"batch", spec.batch},
                               {"end", spec.capped ? nlohmann::json(spec.end) : nlohmann::json(nullptr)},
                               {"skip", spec.skip}});
        for (std::size_t i = 0; i < value.readers.size(); ++i) {
            if (value.readers[i].budget) readers[i]["budget"] = *value.readers[i].budget;
            if (value.readers[i].follows) readers[i]["follows"] = true;
        }
        nlohmann::json json{
            {"steps", steps}, {"readers", readers}, {"drive", drive_name(value.drive)}, {"seed", value.seed}};
        if (value.limits) json["limits"] = {{"bytes", value.limits->bytes}, {"frames", value.limits->frames}};
        return json;
    }

    static GroupCase from_json(const nlohmann::json& json) {
        if (!json.is_object()) throw std::invalid_argument("a group case is an object");
        GroupCase value;
        value.seed = require_u64(json, "seed");
        value.drive = require_drive(json);
        if (json.contains("limits")) {
            const nlohmann::json& limits = json["limits"];
            if (!limits.is_object() || !limits.contains("bytes") || !limits.contains("frames"))
                throw std::invalid_argument("'limits' is {\"bytes\": n, \"frames\": n}");
            value.limits = Limits{require_small(limits["bytes"], 255, "limits.bytes"),
                                  require_small(limits["frames"], 255, "limits.frames")};
        }
        for (const nlohmann::json& reader : require_array(json, "readers"))
            value.readers.push_back(parse_reader(reader));
        if (value.readers.empty() || value.readers.size() > 3)
            throw std::invalid_argument("a group case has one to three readers");
        for (const nlohmann::json& step : require_array(json, "steps")) {
            if (!step.is_array() || step.size() != 3 || !step[0].is_string())
                throw std::invalid_argument("a step is [name, reader, n]");
            Step parsed;
            const auto name = step[0].get<std::string>();
            const auto found = Commands::find(name);
            if (!found) throw std::invalid_argument("unknown step '" + name + "'");
            parsed.command = *found;
            parsed.reader = require_small(step[1], 255, "reader");
            parsed.n = require_small(step[2], 255, "n");
            value.steps.push_back(parsed);
        }
        return value;
    }

    static std::string describe(const GroupCase& value) {
        std::ostringstream out;
        out << "readers [";
        for (std::size_t i = 0; i < value.readers.size(); ++i) {
            const ReaderSpec& spec = value.readers[i];
            out << (i ? ", " : "") << way_names[static_cast<std::size_t>(spec.way)];
            if (spec.way == Way::frames) out << " by " << int{spec.batch};
            if (spec.capped) out << " end " << int{spec.end};
            if (spec.skip) out << " skip " << int{spec.skip};
            if (spec.follows) out << " following";
            if (spec.budget)
                out << " budget "
                    << std::chrono::duration_cast<std::chrono::milliseconds>(advance_of(*spec.budget)).count() << "ms";
        }
        out << "]";
        if (value.limits)
            out << ", limits " << int{value.limits->bytes} << " bytes " << int{value.limits->frames} << " frames";
        out << ", " << drive_name(value.drive) << ", seed " << value.seed << ":";
        for (const Step& step : value.steps) out << " " << describe_step(step, value.readers.size());
        return out.str();
    }
};

}  // namespace

const Suite& group_suite() {
    static const TypedSuite<GroupCase, Traits> suite{
        "group", "group readers of every kind against the group model, with caps, skips and chunked frames", 2000};
    return suite;
}

}  // namespace moq::properties
