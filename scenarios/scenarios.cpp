#include "scenarios/scenarios.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <variant>

#include "kio/cell.hpp"
#include "model/group.hpp"
#include "model/resume.hpp"
#include "model/route.hpp"
#include "model/track.hpp"

namespace moq::scenarios {

using sim::Executor;
using sim::Options;
using sim::Outcome;
using sim::RunResult;
using sim::Task;

namespace {

// A reader's answer in the trace: an item (its index, and the hash of its bytes; the
// bytes themselves with a kept trace), or how the read ended.
void answered(Executor& executor, const char* read, std::int64_t index, std::string_view bytes) {
    executor.record(sim::answer_event(read, sim::AnswerKind::item)
                        .with(sim::answer_sequence, index)
                        .with(sim::answer_content, sim::Trace::content_hash(bytes)),
                    {}, executor.keeps_trace() ? std::string(bytes) : std::string());
}
template <class T>
void answered_end(Executor& executor, const char* read, const model::Next<T>& next) {
    auto event = sim::answer_event(read, next.is_end() ? sim::AnswerKind::end : sim::AnswerKind::error);
    if (next.is_error()) event.label = model::error_name(next.error()).data();
    executor.record(event);
}

// A run that finished but read the wrong thing is a failure too.
RunResult judged(RunResult result, const std::string& wrong) {
    if (result.ok() && !wrong.empty()) {
        result.outcome = Outcome::task_failed;
        result.message = wrong;
    }
    return result;
}

// Three writers add to a cell; three readers wait for the total.
RunResult cell_scenario(const Options& options) {
    Executor executor{options};
    kio::Producer<int> cell{0};
    constexpr int writers = 3;
    constexpr int writes = 4;
    std::array<int, 3> seen{};
    for (int r = 0; r < 3; ++r) {
        executor.spawn("reader" + std::to_string(r), [&, r, consumer = cell.consume()](Task& task) {
            seen[r] = task.wait([&](const kio::Waiter& waiter) -> kio::Poll<int> {
                auto answer = consumer.poll(waiter, [](const int& value) -> std::optional<int> {
                    if (value >= writers * writes) return value;
                    return std::nullopt;
                });
                if (answer.is_ready()) return answer.value();
                return kio::Poll<int>::pending();
            });
            executor.record(sim::answer_event("value", sim::AnswerKind::item).with(sim::answer_sequence, seen[r]));
        });
    }
    for (int w = 0; w < writers; ++w) {
        executor.spawn("writer" + std::to_string(w), [&](Task& task) {
            for (int i = 0; i < writes; ++i) {
                cell.modify([](int& value) { ++value; });
                task.yield();
            }
        });
    }
    auto result = executor.run();
    std::string wrong;
    for (int r = 0; r < 3; ++r)
        if (seen[r] != writers * writes) wrong = "reader" + std::to_string(r) + " saw " + std::to_string(seen[r]);
    return judged(std::move(result), wrong);
}

// Writes the frames, those named "chunked" in two chunks with a switch between them.
void write_frames(Task& task, model::GroupProducer& producer, const std::vector<std::string>& frames) {
    for (const std::string& frame : frames) {
        if (frame.find("chunked") != std::string::npos) {
            producer.start_frame(frame.size());
            task.yield();
            producer.write_chunk(std::string_view(frame).substr(0, 4));
            task.yield();
            producer.write_chunk(std::string_view(frame).substr(4));
            producer.end_frame();
        } else {
            producer.write_frame(frame);
        }
        task.yield();
    }
    producer.finish();
}

// Reads every frame chunk by chunk, as a stream of its bytes.
void read_chunked(Executor& executor, Task& task, model::GroupConsumer& consumer, std::vector<std::string>& streamed) {
    for (;;) {
        auto next = task.wait([&](const kio::Waiter& waiter) { return consumer.poll_next_frame(waiter); });
        if (!next.is_item()) return answered_end(executor, "next_frame", next);
        model::FrameReader reader = std::move(next.item());
        std::string bytes;
        for (;;) {
            auto chunk = task.wait([&](const kio::Waiter& waiter) { return reader.poll_read_chunk(waiter); });
            if (!chunk.is_item()) {
                answered_end(executor, "chunk", chunk);
                break;
            }
            answered(executor, "chunk", static_cast<std::int64_t>(streamed.size()), chunk.item());
            bytes += chunk.item();
        }
        streamed.push_back(bytes);
    }
}

// One writer streams whole and chunked frames; three readers read them three ways.
RunResult group_scenario(const Options& options) {
    Executor executor{options};
    model::GroupProducer producer{1};
    const std::vector<std::string> frames{"alpha", "bravo-chunked", "c", "delta-chunked", "echo"};
    std::vector<std::string> whole, batched, streamed;
    executor.spawn("writer", [&](Task& task) { write_frames(task, producer, frames); });
    executor.spawn("whole", [&, consumer = producer.consume()](Task& task) mutable {
        for (;;) {
            auto next = task.wait([&](const kio::Waiter& waiter) { return consumer.poll_read_frame(waiter); });
            if (!next.is_item()) return answered_end(executor, "frame", next);
            answered(executor, "frame", static_cast<std::int64_t>(whole.size()), *next.item());
            whole.push_back(*next.item());
        }
    });
    executor.spawn("batched", [&, consumer = producer.consume()](Task& task) mutable {
        for (;;) {
            auto next = task.wait([&](const kio::Waiter& waiter) { return consumer.poll_read_frames(waiter, 2); });
            if (!next.is_item()) return answered_end(executor, "frames", next);
            for (const model::Bytes& frame : next.item()) {
                answered(executor, "frames", static_cast<std::int64_t>(batched.size()), *frame);
                batched.push_back(*frame);
            }
        }
    });
    executor.spawn("streamed", [&, consumer = producer.consume()](Task& task) mutable {
        read_chunked(executor, task, consumer, streamed);
    });
    auto result = executor.run();
    std::string wrong;
    if (whole != frames) wrong = "whole-frame reader read " + std::to_string(whole.size()) + " frames";
    if (batched != frames) wrong = "batch reader read " + std::to_string(batched.size()) + " frames";
    if (streamed != frames) wrong = "chunked reader read " + std::to_string(streamed.size()) + " frames";
    return judged(std::move(result), wrong);
}

enum class FlapEvent { switch_to_b, return_to_a, finish_a, finish_b, update, kill_b };

// The flap's events in an order the seed picks (a shuffle, then return_to_a moved behind
// switch_to_b if needed), noted in the trace.
std::array<FlapEvent, 6> flap_order(Executor& executor) {
    using enum FlapEvent;
    std::array<FlapEvent, 6> order{switch_to_b, return_to_a, finish_a, finish_b, update, kill_b};
    for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[executor.random().below(i + 1)]);
    const auto switched = std::find(order.begin(), order.end(), switch_to_b);
    const auto returned = std::find(order.begin(), order.end(), return_to_a);
    if (returned < switched) std::iter_swap(switched, returned);
    return order;
}

// What the flap's two copies and route go through.
struct FlapWorld {
    model::Route route;
    kio::Producer<model::Preferences> preferences;
    model::TrackProducer a, b;

    static void write(model::TrackProducer& copy, std::uint64_t sequence, const char* payload) {
        auto created = copy.create_group(sequence);
        if (!std::holds_alternative<model::GroupProducer>(created)) return;
        auto& group = std::get<model::GroupProducer>(created);
        group.write_frame(payload);
        group.finish();
    }

    void apply(FlapEvent event) {
        switch (event) {
            case FlapEvent::switch_to_b: route.serve_from(b.consume()); break;
            case FlapEvent::return_to_a: route.serve_from(a.consume()); break;
            case FlapEvent::finish_a:
                write(a, 1, "second");
                a.finish();
                break;
            case FlapEvent::finish_b:
                write(b, 0, "first");
                write(b, 1, "second");
                b.finish();
                break;
            case FlapEvent::update: preferences.modify([](model::Preferences& p) { p.priority = 7; }); break;
            case FlapEvent::kill_b: b.abort(model::Error::route_failed); break;
        }
    }
};

// One group's first frame, read to its end; records what was handed out. False once the
// reader has ended (`ended` says whether cleanly).
bool read_one_group(Executor& executor, Task& task, model::ResumeReader& reader, std::vector<std::string>& handed_out,
                    bool& ended) {
    auto peek = task.wait([&](const kio::Waiter& waiter) {
        auto answer = reader.poll_peek_group(waiter, model::Walk::arrival);
        if (answer.is_pending()) return kio::Poll<model::Next<std::uint64_t>>::pending();
        if (answer.value().is_item()) return kio::Poll<model::Next<std::uint64_t>>(answer.value().item()->sequence);
        if (answer.value().is_end()) return kio::Poll<model::Next<std::uint64_t>>(model::End{});
        return kio::Poll<model::Next<std::uint64_t>>(answer.value().error());
    });
    if (!peek.is_item()) {
        ended = peek.is_end();
        answered_end(executor, "group", peek);
        return false;
    }
    model::GroupConsumer group = *reader.take();
    auto taken = sim::answer_event("group", sim::AnswerKind::item)
                     .with(sim::answer_sequence, static_cast<std::int64_t>(peek.item()));
    if (const auto source = reader.taken_from()) taken.with(sim::answer_source, static_cast<std::int64_t>(*source));
    executor.record(taken);
    auto frame = task.wait([&](const kio::Waiter& waiter) { return group.poll_read_frame(waiter); });
    if (frame.is_item()) {
        answered(executor, "frame", static_cast<std::int64_t>(peek.item()), *frame.item());
        handed_out.push_back(*frame.item());
    } else {
        answered_end(executor, "frame", frame);
    }
    return true;
}

// The route flaps A -> B -> A while both copies finish, preferences change and B dies,
// in an order the seed picks; the reader must hand out "first", "second", then end.
RunResult route_flap_scenario(const Options& options) {
    Executor executor{options};
    FlapWorld world;
    FlapWorld::write(world.a, 0, "first");
    world.route.serve_from(world.a.consume());
    const std::array<FlapEvent, 6> order = flap_order(executor);
    std::string events;
    for (FlapEvent event : order) events += std::to_string(static_cast<int>(event));
    executor.note("order", events);

    std::vector<std::string> handed_out;
    bool ended = false;
    executor.spawn("front", [&](Task& task) {
        for (FlapEvent event : order) {
            task.yield();
            world.apply(event);
        }
    });
    executor.spawn("reader", [&](Task& task) {
        model::ResumeReader reader{world.route.consume(), world.preferences.consume(), task.clock()};
        while (read_one_group(executor, task, reader, handed_out, ended)) {}
    });
    auto result = executor.run();
    std::string wrong;
    if (handed_out != std::vector<std::string>{"first", "second"})
        wrong = "the reader handed out " + std::to_string(handed_out.size()) + " groups, events " + events;
    else if (!ended)
        wrong = "the reader did not end cleanly, events " + events;
    return judged(std::move(result), wrong);
}

}  // namespace

const std::vector<Scenario>& scenarios() {
    static const std::vector<Scenario> all{
        {"cell", "three writers, three readers on one watch cell", &cell_scenario},
        {"group", "whole, batched and chunked readers of one group written in chunks", &group_scenario},
        {"route_flap", "a resume reader while its route flaps A -> B -> A in a seeded order", &route_flap_scenario},
    };
    return all;
}

const Scenario* find_scenario(std::string_view name) {
    for (const Scenario& scenario : scenarios())
        if (scenario.name == name) return &scenario;
    return nullptr;
}

}  // namespace moq::scenarios
