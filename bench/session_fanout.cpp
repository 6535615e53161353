// session_fanout_threads: the session fanout program (programs/fanout.*) on the runtime's
// worker threads, as upstream's bench of the same name: one publisher, 64 viewers, each
// a track subscriber over a resume reader as an export reads, 400-byte one-frame groups,
// at 1 and 16 workers. One round: the benchmark thread lets the publisher land one
// group, then sleeps until all 64 viewers have read its frame. Google Benchmark measures
// the process CPU clock (every thread) and the wall clock per round.
//
//   session_fanout [Google Benchmark flags]   e.g. --benchmark_format=json
//   session_fanout --test[=ROUNDS]            a few rounds a case (default 100), checked
//
// After every run each viewer must have read every frame the publisher wrote, in order
// and intact, and ended cleanly once the track finished: otherwise that case fails (one
// line on stderr) and the program exits 1. The test mode ends with the line
// "fanout: N passed, M failed". A bad argument is one line on stderr and exit 2.

#include <benchmark/benchmark.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_args.hpp"
#include "programs/fanout.hpp"
#include "runtime/runtime.hpp"

namespace {

using namespace moq;

constexpr std::size_t viewer_count = 64;
constexpr std::size_t frame_bytes = 400;
constexpr std::uint64_t default_test_rounds = 100;
constexpr const char* usage_text =
    "usage: session_fanout [--test[=ROUNDS]] [Google Benchmark flags]\n"
    "\n"
    "Cases session_fanout_threads/workers=1 and /workers=16: one publisher, 64 viewers,\n"
    "400-byte one-frame groups; a round is one group landed and read by every viewer.\n"
    "Cases runtime_wake_fanout/workers=1 and /workers=16: the runtime alone in the same\n"
    "shape; a round is one task waking 64 tasks that each read one cell.\n"
    "  --test[=ROUNDS]  ROUNDS rounds a case (default 100), each case checked; ends with\n"
    "                   the line \"fanout: N passed, M failed\"\n"
    "Every run checks that each viewer read every frame in order (exit 1 otherwise).\n\n";
// How long a round, or the end, may take before a case counts as hung (a lost wake).
constexpr auto hang_limit = std::chrono::seconds(10);

// A frame names its group in its first bytes, so a viewer can check order and loss.
std::string payload_of(std::uint64_t sequence) {
    std::string payload(frame_bytes, '.');
    std::memcpy(payload.data(), &sequence, sizeof sequence);
    return payload;
}

bool payload_is(const std::string& payload, std::uint64_t sequence) {
    return payload.size() == frame_bytes && std::memcmp(payload.data(), &sequence, sizeof sequence) == 0;
}

// Counts what the tasks deliver and wakes the benchmark thread, which sleeps meanwhile,
// once a round's last delivery is in.
class RoundCounter {
public:
    // The round is done once `total` deliveries in all were counted. Set before the round
    // starts (its deliveries learn it through the wake that starts them).
    void expect(std::uint64_t total) { target_.store(total, std::memory_order_release); }
    // Sleeps until the round is done; false if that took longer than hang_limit.
    bool wait() {
        const std::uint64_t target = target_.load(std::memory_order_relaxed);
        std::unique_lock lock(mutex_);
        return done_.wait_for(lock, hang_limit, [&] { return counted_.load(std::memory_order_acquire) >= target; });
    }
    // One delivery, from any thread.
    void count() {
        if (counted_.fetch_add(1, std::memory_order_acq_rel) + 1 == target_.load(std::memory_order_acquire)) {
            // Taken so the wake cannot fall between the waiter's check and its sleep.
            { std::lock_guard lock(mutex_); }
            done_.notify_one();
        }
    }
    [[nodiscard]] std::uint64_t counted() const { return counted_.load(std::memory_order_acquire); }
    // What a round that did not end says.
    [[nodiscard]] std::string unfinished(std::uint64_t round) const {
        return "round " + std::to_string(round) + ": " + std::to_string(counted()) + " of " +
               std::to_string(target_.load(std::memory_order_relaxed)) + " deliveries after " +
               std::to_string(hang_limit.count()) + " s";
    }

private:
    std::atomic<std::uint64_t> counted_{0};
    std::atomic<std::uint64_t> target_{0};
    std::mutex mutex_;
    std::condition_variable done_;
};

// Waits up to hang_limit for every task to end; what went wrong, if anything.
std::optional<std::string> join_all(const std::vector<runtime::JoinHandle>& tasks) {
    for (const runtime::JoinHandle& task : tasks) {
        if (!task.wait_for(hang_limit)) return "a task did not end within " + std::to_string(hang_limit.count()) + " s";
        if (!task.join()) return std::string("a task was dropped before it ended");
    }
    return std::nullopt;
}

// Counts the frames the viewers read, a round done once all 64 read its frame, and keeps
// per viewer what it read for the check at the end.
class RoundListener final : public programs::FanoutListener {
public:
    explicit RoundListener(std::size_t viewers) : tallies_(viewers) {}

    [[nodiscard]] RoundCounter& rounds() { return rounds_; }

    void frame(std::size_t viewer, std::uint64_t sequence, const std::string& payload) override {
        // Only the viewer's own task touches its tally; its polls are ordered by the runtime.
        Tally& tally = tallies_[viewer];
        if (sequence != tally.frames || !payload_is(payload, sequence)) ++tally.wrong;
        ++tally.frames;
        rounds_.count();
    }
    void group_ended(std::size_t viewer, std::uint64_t, std::optional<model::Error> error) override {
        if (error) ++tallies_[viewer].wrong;
    }
    void ended(std::size_t viewer, std::optional<model::Error> error) override {
        tallies_[viewer].ended = true;
        if (error) ++tallies_[viewer].wrong;
    }

    // Once every task is done: what went wrong, if anything.
    [[nodiscard]] std::optional<std::string> check(std::uint64_t rounds) const {
        for (std::size_t viewer = 0; viewer < tallies_.size(); ++viewer) {
            const Tally& tally = tallies_[viewer];
            const std::string who = "viewer " + std::to_string(viewer);
            if (tally.wrong != 0)
                return who + " read " + std::to_string(tally.wrong) + " wrong frames, group errors or error ends";
            if (tally.frames != rounds)
                return who + " read " + std::to_string(tally.frames) + " frames of " + std::to_string(rounds);
            if (!tally.ended) return who + " did not end after the track finished";
        }
        return std::nullopt;
    }

private:
    struct Tally {
        std::uint64_t frames = 0;
        std::uint64_t wrong = 0;
        bool ended = false;
    };

    std::vector<Tally> tallies_;
    RoundCounter rounds_;
};

// The program on a runtime: the publisher and every viewer spawned as tasks.
class Fanout {
public:
    Fanout(std::size_t workers, std::size_t viewers)
        : runtime_(std::make_unique<runtime::Runtime>(workers)),
          listener_(viewers),
          publisher_(track_, &payload_of, listener_) {
        for (std::size_t index = 0; index < viewers; ++index)
            viewers_.push_back(std::make_unique<programs::Viewer>(index, track_, runtime_->clock(), listener_));
        tasks_.push_back(runtime_->spawn([this](const kio::Waiter& waiter) { return publisher_.poll(waiter); }));
        for (const auto& viewer : viewers_)
            tasks_.push_back(
                runtime_->spawn([viewer = viewer.get()](const kio::Waiter& waiter) { return viewer->poll(waiter); }));
    }
    // The workers stop before the program they poll goes.
    ~Fanout() { runtime_.reset(); }
    Fanout(const Fanout&) = delete;
    Fanout& operator=(const Fanout&) = delete;

    // One round; what went wrong, if it did not end.
    std::optional<std::string> round() {
        ++rounds_;
        listener_.rounds().expect(rounds_ * viewers_.size());
        track_.allow(rounds_);
        if (listener_.rounds().wait()) return std::nullopt;
        return listener_.rounds().unfinished(rounds_);
    }

    // Finishes the track, waits for every task to end, and says what went wrong, if anything.
    std::optional<std::string> finish() {
        track_.finish_after_allowed();
        if (auto failure = join_all(tasks_)) return failure;
        if (publisher_.landed() != rounds_)
            return "the publisher landed " + std::to_string(publisher_.landed()) + " groups in " +
                   std::to_string(rounds_) + " rounds";
        return listener_.check(rounds_);
    }

private:
    std::unique_ptr<runtime::Runtime> runtime_;
    programs::FanoutTrack track_;
    RoundListener listener_;
    programs::Publisher publisher_;
    std::vector<std::unique_ptr<programs::Viewer>> viewers_;
    std::vector<runtime::JoinHandle> tasks_;
    std::uint64_t rounds_ = 0;
};

// The runtime alone in the same shape, for what the pool's hand-offs cost apart from
// the readers: a source task that a round wakes bumps one cell, and each of 64 tasks
// waits for the cell's next value. No track, route or group is involved.
class WakeFanout {
public:
    WakeFanout(std::size_t workers, std::size_t waiters)
        : runtime_(std::make_unique<runtime::Runtime>(workers)), seen_(waiters, 0) {
        tasks_.push_back(runtime_->spawn([pace = pace_.consume(), bumped = std::uint64_t{0},
                                          value = std::optional(kio::Producer<std::uint64_t>(value_))](
                                             const kio::Waiter& waiter) mutable -> kio::Poll<kio::Done> {
            for (;;) {
                auto wanted = pace.poll(waiter, [&](const std::uint64_t& rounds) -> std::optional<std::uint64_t> {
                    if (rounds > bumped) return rounds;
                    return std::nullopt;
                });
                if (wanted.is_pending()) return kio::Poll<kio::Done>::pending();
                if (wanted.is_closed()) {
                    value.reset();  // the last producer: closing the cell ends the waiters
                    return kio::Done{};
                }
                bumped = wanted.value();
                value->modify([&](std::uint64_t& now) { now = bumped; });
            }
        }));
        for (std::size_t index = 0; index < waiters; ++index)
            tasks_.push_back(runtime_->spawn([this, index, cell = value_.consume()](const kio::Waiter& waiter) {
                return wait_for_values(index, cell, waiter);
            }));
        value_ = kio::Producer<std::uint64_t>();  // the source task holds the only producer now
    }
    ~WakeFanout() { runtime_.reset(); }
    WakeFanout(const WakeFanout&) = delete;
    WakeFanout& operator=(const WakeFanout&) = delete;

    std::optional<std::string> round() {
        ++rounds_;
        counter_.expect(rounds_ * seen_.size());
        pace_.modify([&](std::uint64_t& rounds) { rounds = rounds_; });
        if (counter_.wait()) return std::nullopt;
        return counter_.unfinished(rounds_);
    }

    std::optional<std::string> finish() {
        pace_.close();
        if (auto failure = join_all(tasks_)) return failure;
        for (std::size_t index = 0; index < seen_.size(); ++index)
            if (seen_[index] != rounds_)
                return "task " + std::to_string(index) + " saw value " + std::to_string(seen_[index]) + " of " +
                       std::to_string(rounds_);
        return std::nullopt;
    }

private:
    kio::Poll<kio::Done> wait_for_values(std::size_t index, const kio::Consumer<std::uint64_t>& cell,
                                         const kio::Waiter& waiter) {
        for (;;) {
            auto next = cell.poll(waiter, [&](const std::uint64_t& value) -> std::optional<std::uint64_t> {
                if (value > seen_[index]) return value;
                return std::nullopt;
            });
            if (next.is_pending()) return kio::Poll<kio::Done>::pending();
            if (next.is_closed()) return kio::Done{};
            // Each round waits for every task, so a task sees every value once.
            if (next.value() != seen_[index] + 1) return kio::Done{};
            seen_[index] = next.value();
            counter_.count();
        }
    }

    std::unique_ptr<runtime::Runtime> runtime_;
    kio::Producer<std::uint64_t> pace_{0};   // rounds the benchmark thread asked for
    kio::Producer<std::uint64_t> value_{0};  // handed to the source task at set-up
    std::vector<std::uint64_t> seen_;        // each written only by its own task
    RoundCounter counter_;
    std::vector<runtime::JoinHandle> tasks_;
    std::uint64_t rounds_ = 0;
};

double process_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::atomic<int> cases_passed{0};
std::atomic<int> cases_failed{0};

// Runs the rounds and checks the end; the process CPU seconds of the rounds, or nothing
// if the case failed (reported on stderr and to Google Benchmark).
template <class Program>
std::optional<double> run_rounds(benchmark::State& state, Program& program, const std::string& name) {
    const double cpu_before = process_cpu_seconds();
    std::optional<std::string> failure;
    for (auto _ : state) {
        failure = program.round();
        if (failure) break;
    }
    const double cpu = process_cpu_seconds() - cpu_before;
    if (!failure) failure = program.finish();
    if (failure) {
        std::fprintf(stderr, "session_fanout: %s: %s\n", name.c_str(), failure->c_str());
        ++cases_failed;
        state.SkipWithError(failure->c_str());
        return std::nullopt;
    }
    ++cases_passed;
    return cpu;
}

// Counters of what a round delivers (`unit`: group or wake): a round's, a second's, and
// the process CPU of one, in nanoseconds (for groups, the figure the contention fix aims
// at). The total of all rounds.
double count_deliveries(benchmark::State& state, double cpu, const std::string& unit) {
    using benchmark::Counter;
    const auto delivered = static_cast<double>(state.iterations() * viewer_count);
    state.counters[unit + "s"] = Counter(delivered, Counter::kAvgIterations);
    state.counters[unit + "s_per_s"] = Counter(delivered, Counter::kIsRate);
    state.counters["cpu_ns_per_" + unit] = Counter(delivered > 0 ? cpu * 1e9 / delivered : 0.0);
    return delivered;
}

void session_fanout_threads(benchmark::State& state, std::size_t workers, const std::string& name) {
    Fanout fanout{workers, viewer_count};
    const std::optional<double> cpu = run_rounds(state, fanout, name);
    if (!cpu) return;
    const double groups = count_deliveries(state, *cpu, "group");
    using benchmark::Counter;
    state.counters["bytes"] = Counter(groups * frame_bytes, Counter::kAvgIterations);
    state.counters["bytes_per_s"] = Counter(groups * frame_bytes, Counter::kIsRate);
}

void runtime_wake_fanout(benchmark::State& state, std::size_t workers, const std::string& name) {
    WakeFanout fanout{workers, viewer_count};
    if (const std::optional<double> cpu = run_rounds(state, fanout, name)) count_deliveries(state, *cpu, "wake");
}

// Takes --test[=ROUNDS] out of argv; the rest is Google Benchmark's.
std::optional<std::uint64_t> take_test_flag(int& argc, char** argv) {
    const bench::Args args{"session_fanout"};
    std::optional<std::uint64_t> rounds;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            // Google Benchmark prints its own flags after this, and exits.
            std::fputs(usage_text, stdout);
            argv[kept++] = argv[i];
        } else if (arg == "--test") {
            rounds = default_test_rounds;
        } else if (arg.starts_with("--test=")) {
            rounds = args.parse_count(arg.substr(7), 1, 1'000'000, "--test takes 1 to 1000000 rounds, not");
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = nullptr;
    return rounds;
}

}  // namespace

int main(int argc, char** argv) {
    const std::optional<std::uint64_t> test_rounds = take_test_flag(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    using Case = void (*)(benchmark::State&, std::size_t, const std::string&);
    const std::pair<const char*, Case> cases[] = {{"session_fanout_threads", &session_fanout_threads},
                                                  {"runtime_wake_fanout", &runtime_wake_fanout}};
    for (const auto& [family, run] : cases)
        for (const std::size_t workers : {std::size_t{1}, std::size_t{16}}) {
            const std::string name = std::string(family) + "/workers=" + std::to_string(workers);
            auto* registered = benchmark::RegisterBenchmark(name.c_str(), run, workers, name);
            registered->MeasureProcessCPUTime()->UseRealTime()->Unit(benchmark::kMicrosecond);
            if (test_rounds)
                registered->Iterations(static_cast<benchmark::IterationCount>(*test_rounds))->Repetitions(1);
        }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (test_rounds) std::printf("fanout: %d passed, %d failed\n", cases_passed.load(), cases_failed.load());
    return cases_failed.load() == 0 ? 0 : 1;
}
