// What a sweep checks of its own runs, on cases made to fail, to run slowly or to run
// differently each time (a suite of its own here, so each behaviour is certain): two runs
// that part are told with the first event where they part; a shrink stops at its
// deadline; failures of one bug make one bucket, shrunk once, and two rules two buckets;
// a rechecked case or a replayed failure that gives another digest is a nondeterministic
// failure of its own bucket; a case that never ends is a hang, told with its replay
// command, while slow cases that do end are not.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "runner/bucket_book.hpp"
#include "runner/buckets.hpp"
#include "runner/determinism_check.hpp"
#include "runner/shrink.hpp"
#include "runner/suite_tally.hpp"
#include "runner/watchdog.hpp"
#include "sim/executor.hpp"
#include "sim/trace.hpp"

namespace moq::runner {

namespace {

int runs = 0;  // every run of a TestCase, for counting what a shrink costs

// The watchdog's clock in these tests: each look moves it a quarter of the 1 s limit, so
// the limit passes after four looks with nothing begun, and no test waits one out.
std::atomic<std::uint64_t> watchdog_looks{0};
std::chrono::steady_clock::time_point quarter_second_a_look() {
    return std::chrono::steady_clock::time_point{} + watchdog_looks.fetch_add(1) * std::chrono::milliseconds(250);
}
void watched() { watchdog::start(1, &quarter_second_a_look); }
// Busy until the watchdog has looked `count` more times: a run it sees go on that long.
void until_looked(std::uint64_t count) {
    const std::uint64_t target = watchdog_looks.load() + count;
    while (count != 0 && watchdog_looks.load() < target) {}
}

// A case of named steps. It fails when it holds `bad`: with `message` (its number of
// steps for '#') if it also holds `also` (or `also` is empty), else with `alone` (unless
// empty: then it passes). `flaky`: one event differs from one run to the next.
struct Shape {
    std::vector<std::string> steps;
    std::string bad = "bad";
    std::string message = "R1: a bad step among #";
    std::string also;
    std::string alone;
    bool flaky = false;
    std::chrono::milliseconds run_time{0};
    std::uint64_t watchdog_looks = 0;  // the run lasts this many looks of the watchdog (watched())
};

class TestCase final : public properties::Case {
public:
    explicit TestCase(Shape shape) : shape_(std::move(shape)) {}

    [[nodiscard]] properties::CaseOutcome run_once(const properties::RunSettings& settings) const override {
        ++runs;
        std::this_thread::sleep_for(shape_.run_time);
        until_looked(shape_.watchdog_looks);
        sim::Trace trace(settings.keep_trace);
        std::uint64_t step = 0;
        for (const std::string& name : shape_.steps)
            trace.record(sim::Event{.kind = sim::EventKind::note, .name = name.c_str()}, step++, 0);
        if (shape_.flaky)
            trace.record(sim::Event{.kind = sim::EventKind::note, .name = "flaky"}.with(0, runs), step, 0);
        const auto holds = [&](const std::string& name) {
            return std::find(shape_.steps.begin(), shape_.steps.end(), name) != shape_.steps.end();
        };
        const bool with_also = shape_.also.empty() || holds(shape_.also);
        properties::CaseOutcome outcome;
        outcome.ok = !holds(shape_.bad) || (!with_also && shape_.alone.empty());
        if (!outcome.ok) {
            outcome.message = with_also ? shape_.message : shape_.alone;
            if (const auto at = outcome.message.find('#'); at != std::string::npos)
                outcome.message.replace(at, 1, std::to_string(shape_.steps.size()));
        }
        outcome.digest = trace.digest();
        outcome.steps = step;
        outcome.trace = trace.take_entries();
        return outcome;
    }
    [[nodiscard]] nlohmann::json to_json() const override {
        nlohmann::json steps = nlohmann::json::array();
        for (const std::string& name : shape_.steps) steps.push_back({name});
        return {{"steps", steps}};
    }
    [[nodiscard]] std::string describe() const override { return to_json().dump(); }
    [[nodiscard]] std::unique_ptr<Case> clone() const override { return std::make_unique<TestCase>(shape_); }
    // The smaller cases: one step left out, from the first.
    [[nodiscard]] std::unique_ptr<Case> first_failing_shrink(
        const std::function<bool(const Case&)>& fails) const override {
        for (std::size_t left_out = 0; left_out < shape_.steps.size(); ++left_out) {
            Shape smaller = shape_;
            smaller.steps.erase(smaller.steps.begin() + static_cast<std::ptrdiff_t>(left_out));
            auto candidate = std::make_unique<TestCase>(smaller);
            if (fails(*candidate)) return candidate;
        }
        return nullptr;
    }

private:
    Shape shape_;
};

// A suite whose case `index` is `cases(index)`.
class TestSuite final : public properties::Suite {
public:
    explicit TestSuite(std::function<Shape(std::uint64_t)> cases) : cases_(std::move(cases)) {}
    [[nodiscard]] std::string_view name() const override { return "gate"; }
    [[nodiscard]] std::string_view summary() const override { return "cases made for these tests"; }
    [[nodiscard]] std::uint64_t default_cases() const override { return 10; }
    [[nodiscard]] std::unique_ptr<properties::Case> generate(std::uint64_t, std::uint64_t index,
                                                             properties::Mix) const override {
        return std::make_unique<TestCase>(cases_(index));
    }
    [[nodiscard]] std::unique_ptr<properties::Case> from_json(const nlohmann::json&) const override { return nullptr; }
    // Its cases are made by hand, not drawn from a command table.
    [[nodiscard]] std::vector<properties::Operation> operations() const override { return {}; }

private:
    std::function<Shape(std::uint64_t)> cases_;
};

Shape steps(std::vector<std::string> names) {
    Shape shape;
    shape.steps = std::move(names);
    return shape;
}

// What a sweep's suites share, as the sweep sets it up, with these options.
struct Sweeping {
    explicit Sweeping(std::uint64_t recheck) { options.recheck = recheck; }
    SweepOptions options;
    BucketBook book{BookSettings{}};
    Program program{"moqsim"};
    SweepContext context{program, options, book};
};

// How a child process that ran `body` ended: its exit status (-1: killed by a signal)
// and what it wrote to standard error. The watchdog ends its process, so it is tried in one.
struct Ended {
    int status = -1;
    std::string errors;
};
Ended in_child(const std::function<void()>& body) {
    int pipe_ends[2];
    REQUIRE(pipe(pipe_ends) == 0);
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        dup2(pipe_ends[1], STDERR_FILENO);
        close(pipe_ends[0]);
        close(pipe_ends[1]);
        // A failed check or a throw must not run the rest of the tests in the child.
        try {
            body();
        } catch (...) {
            std::_Exit(3);
        }
        std::_Exit(0);
    }
    close(pipe_ends[1]);
    Ended ended;
    char buffer[4096];
    for (ssize_t got; (got = read(pipe_ends[0], buffer, sizeof buffer)) > 0;)
        ended.errors.append(buffer, static_cast<std::size_t>(got));
    close(pipe_ends[0]);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    if (WIFEXITED(status)) ended.status = WEXITSTATUS(status);
    return ended;
}

std::vector<std::string> signature(const nlohmann::json& bucket) {
    return bucket["signature"].get<std::vector<std::string>>();
}

}  // namespace

TEST_CASE("two runs that part are told with the first event where they part") {
    const properties::RunSettings traced{sim::StrategyKind::random, true};
    Shape flaky = steps({"open", "serve"});
    flaky.flaky = true;
    const TestCase changing(flaky);
    const auto parted = run_again(changing, traced, changing.run(traced));
    REQUIRE(parted);
    CHECK(parted->parted["event"] == 2);  // after the two steps both runs share
    CHECK(parted->parted["first"] != parted->parted["second"]);
    CHECK(parted->parted["first"].get<std::string>().find("\"flaky\"") != std::string::npos);
    CHECK(parted->message.rfind("nondeterministic: two runs of the case gave digests ", 0) == 0);
    CHECK(parted->message.find("they part at event 2") != std::string::npos);
    CHECK(failure_kind(parted->message).check == "nondeterministic");

    const TestCase steady(steps({"open", "serve"}));
    CHECK_FALSE(run_again(steady, traced, steady.run(traced)));
}

TEST_CASE("a replayed failure must give the digest the sweep recorded") {
    const TestCase steady(steps({"open", "bad"}));
    const std::uint64_t digest = steady.run({}).digest;
    CHECK_FALSE(replay_differs(steady, sim::StrategyKind::random, digest));
    // Replays that agree with each other but not with the sweep: no event to show.
    const auto other = replay_differs(steady, sim::StrategyKind::random, digest + 1);
    REQUIRE(other);
    CHECK(other->parted["event"].is_null());
    CHECK(other->message.find("as did a second replay") != std::string::npos);
    // Replays that part from each other: where they part.
    Shape flaky = steps({"open", "bad"});
    flaky.flaky = true;
    const auto parted = replay_differs(TestCase(flaky), sim::StrategyKind::random, digest);
    REQUIRE(parted);
    CHECK(parted->parted["event"] == 2);
}

TEST_CASE("a shrink stops at its deadline with the smallest failing case it found") {
    Shape slow = steps({"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "bad"});
    slow.run_time = std::chrono::milliseconds(40);
    const TestCase failing(slow);
    const properties::CaseOutcome failed = failing.run({});
    const auto started = std::chrono::steady_clock::now();
    ShrinkLimits limits;
    limits.deadline = started + std::chrono::milliseconds(150);
    const Shrunk bounded = shrink(Failing{&failing, failed, std::nullopt}, limits);
    const auto took = std::chrono::steady_clock::now() - started;
    // The runs of one candidate past the deadline at most: along its decisions, and its
    // exploration's first run.
    CHECK(took < std::chrono::milliseconds(150 + 2 * 40 + 100));
    CHECK_FALSE(bounded.complete);
    const std::size_t left = bounded.smallest->to_json()["steps"].size();
    CHECK(left < 11);
    CHECK(left > 1);
    CHECK_FALSE(bounded.outcome.ok);

    slow.run_time = std::chrono::milliseconds(0);
    const TestCase quick(slow);
    const Shrunk whole = shrink(Failing{&quick, quick.run({}), std::nullopt});
    CHECK(whole.complete);
    CHECK(whole.smallest->to_json()["steps"] == nlohmann::json::array({{"bad"}}));
}

TEST_CASE("ten failures of one bug make one bucket, shrunk once; two rules make two") {
    BucketBook book(BookSettings{});
    const TestSuite suite([](std::uint64_t) { return Shape{}; });
    const auto add = [&](Shape shape, std::uint64_t index) {
        const TestCase value(std::move(shape));
        const properties::CaseOutcome outcome = value.run({});
        return book.add_failure(Failure{suite, 1, index, value, outcome.message, outcome.steps, "replay"});
    };
    const Sorted first = add(steps({"open", "poke", "bad", "serve"}), 0);
    CHECK(first.new_bucket);
    CHECK(first.shrink_steps == 3);
    const int after_first = runs;
    // Other operations and other numbers in the message: the message's shape finds the bucket.
    for (std::uint64_t index = 1; index < 10; ++index) {
        std::vector<std::string> names(index, "land");
        names.emplace_back("bad");
        const Sorted again = add(steps(names), index);
        CHECK_FALSE(again.new_bucket);
        CHECK(again.id == first.id);
    }
    CHECK(runs == after_first + 9);  // each run once by the test, none shrunk
    REQUIRE(book.size() == 1);
    CHECK(book.buckets()[0]["count"] == 10);
    CHECK(signature(book.buckets()[0]) == std::vector<std::string>{"bad"});
    CHECK(book.buckets()[0]["first"]["case"] == 0);
    CHECK(book.buckets()[0]["smallest"]["saved"]["case"]["steps"] == nlohmann::json::array({{"bad"}}));

    // Another rule: another bucket. Its shrink keeps to that rule: leaving "worse" out
    // fails too, but as R1, so that smaller case is not taken.
    Shape other = steps({"open", "bad", "worse"});
    other.also = "worse";
    other.message = "R2: a bad step with a worse one among #";
    other.alone = "R1: a bad step among #";
    const Sorted second = add(other, 10);
    CHECK(second.new_bucket);
    REQUIRE(book.size() == 2);
    CHECK(book.buckets()[1]["rule"] == "R2");
    CHECK(signature(book.buckets()[1]) == std::vector<std::string>{"bad", "worse"});

    // A message of a new shape whose case shrinks to a bucket's signature: counted into it.
    Shape reworded = steps({"serve", "bad"});
    reworded.message = "R1: the step after # was bad";
    CHECK(add(reworded, 11).id == first.id);
    CHECK(book.size() == 2);
    CHECK(book.buckets()[0]["count"] == 11);
}

TEST_CASE("adopted buckets count later failures of theirs unshrunk, and are listed once they do") {
    const TestSuite suite([](std::uint64_t) { return Shape{}; });
    const auto failure_of = [&](BucketBook& book, Shape shape, std::uint64_t index) {
        const TestCase value(std::move(shape));
        const properties::CaseOutcome outcome = value.run({});
        return book.add_failure(Failure{suite, 1, index, value, outcome.message, outcome.steps, "replay"});
    };
    BucketBook earlier(BookSettings{});
    const Sorted found = failure_of(earlier, steps({"open", "bad"}), 0);

    BookSettings pct;
    pct.strategy = sim::StrategyKind::pct;
    BucketBook later(pct);
    later.adopt(earlier.buckets());
    CHECK(later.size() == 0);
    CHECK(later.buckets().empty());
    const int before = runs;
    const Sorted again = failure_of(later, steps({"land", "land", "bad"}), 5);
    CHECK(runs == before + 1);  // the test's own run: no shrink
    CHECK_FALSE(again.new_bucket);
    CHECK(again.id == found.id);
    REQUIRE(later.buckets().size() == 1);
    CHECK(later.buckets()[0]["count"] == 1);
    CHECK(later.buckets()[0]["strategies"] == nlohmann::json({"pct", "random"}));
}

TEST_CASE("a rechecked case whose two runs part is a nondeterministic failure of its own bucket") {
    const TestSuite suite([](std::uint64_t index) {
        Shape shape = steps({"open", "serve"});
        shape.flaky = index == 3;
        return shape;
    });
    Sweeping sweeping(1);  // every case twice
    BucketBook& book = sweeping.book;
    SuiteTally tally(sweeping.context, suite);
    for (std::uint64_t index = 0; index < 6; ++index) CHECK(tally.run_case(1, index) == (index != 3));
    CHECK(tally.failed() == 1);
    REQUIRE(book.size() == 1);
    CHECK(book.buckets()[0]["check"] == "nondeterministic");
    CHECK(book.buckets()[0]["rule"] == "none");
    CHECK(book.buckets()[0]["first"]["case"] == 3);
    const nlohmann::json listed = tally.result(6)["failures"];
    REQUIRE(listed.size() == 1);
    CHECK(listed[0]["parted"]["event"] == 2);

    // Without --recheck the same case passes: nothing runs it twice.
    sweeping.options.recheck = 0;
    SuiteTally unchecked(sweeping.context, suite);
    CHECK(unchecked.run_case(1, 3));
}

TEST_CASE("every listed failure is replayed, and one that runs to another digest is nondeterministic") {
    const TestSuite suite([](std::uint64_t index) {
        Shape shape = steps({"open", "bad"});
        shape.flaky = index == 1;
        return shape;
    });
    Sweeping sweeping(0);
    BucketBook& book = sweeping.book;
    SuiteTally tally(sweeping.context, suite);
    CHECK_FALSE(tally.run_case(1, 0));
    CHECK_FALSE(tally.run_case(1, 1));
    REQUIRE(book.size() == 1);
    CHECK_FALSE(tally.replay_failures());
    REQUIRE(book.size() == 2);
    CHECK(book.buckets()[1]["check"] == "nondeterministic");
    CHECK(book.buckets()[1]["first"]["case"] == 1);
    CHECK(tally.result(2)["failures"].size() == 3);

    // A steady failure replays to its digest.
    SuiteTally steady(sweeping.context, suite);
    CHECK_FALSE(steady.run_case(1, 0));
    CHECK(steady.replay_failures());
}

TEST_CASE("the failures listed stop at --max-failures; every one is still counted and bucketed") {
    const TestSuite suite([](std::uint64_t) { return steps({"open", "bad"}); });
    Sweeping sweeping(default_recheck);
    sweeping.options.max_failures = 2;
    BucketBook& book = sweeping.book;
    SuiteTally tally(sweeping.context, suite);
    for (std::uint64_t index = 0; index < 5; ++index) CHECK_FALSE(tally.run_case(1, index));
    CHECK(tally.failed() == 5);
    CHECK(tally.result(5)["failures"].size() == 2);
    CHECK(book.buckets()[0]["count"] == 5);
}

TEST_CASE("a case that does not end within --case-timeout is a hang, told with its replay command") {
    const Ended ended = in_child([] {
        const TestSuite suite([](std::uint64_t index) {
            Shape shape = steps({"open"});
            // Far past the limit: a watchdog that never fires lets the child end, and fails the test.
            if (index == 2) shape.watchdog_looks = 100;
            return shape;
        });
        Sweeping sweeping(0);
        SuiteTally tally(sweeping.context, suite);
        watched();
        for (std::uint64_t index = 0; index < 3; ++index) tally.run_case(7, index);
    });
    CHECK(ended.status == 1);
    CHECK_MESSAGE(ended.errors.find("HANG: gate seed 7 case 2 did not end within 1 s") != std::string::npos,
                  ended.errors);
    CHECK_MESSAGE(ended.errors.find("again: moqsim replay --suite gate --seed 7 --case 2\n") != std::string::npos,
                  ended.errors);
}

TEST_CASE("slow cases that each end keep the watchdog quiet, however long the sweep") {
    const Ended ended = in_child([] {
        const TestSuite suite([](std::uint64_t) {
            Shape shape = steps({"open"});
            shape.watchdog_looks = 1;
            return shape;
        });
        Sweeping sweeping(0);
        SuiteTally tally(sweeping.context, suite);
        watched();
        for (std::uint64_t index = 0; index < 6; ++index) tally.run_case(7, index);
    });
    CHECK_MESSAGE(ended.status == 0, ended.errors);
    CHECK(ended.errors.empty());
}

// A task that loops without a schedule point never gives the simulator control back;
// every simulated run that begins counts as progress, and this one never ends.
TEST_CASE("a simulated run stuck in a loop with no schedule point is a hang; short runs between cases are not") {
    const auto simulated_runs = [](bool last_spins) {
        return in_child([last_spins] {
            watched();
            watchdog::describe([](std::uint64_t, std::uint64_t) { return watchdog::Described{"a shrink", "rerun"}; });
            for (int run = 0; run < 8; ++run) {
                const bool spin = last_spins && run == 7;
                sim::Executor executor{sim::Options{}};
                executor.spawn("worker", [spin](sim::Task& task) {
                    task.yield();
                    // One look a run: far below the limit. The stuck one gives up after 100,
                    // so a watchdog that never fires fails the test.
                    until_looked(spin ? 100 : 1);
                });
                executor.run();
            }
        });
    };
    const Ended quiet = simulated_runs(false);
    CHECK_MESSAGE(quiet.status == 0, quiet.errors);
    const Ended stuck = simulated_runs(true);
    CHECK(stuck.status == 1);
    CHECK_MESSAGE(stuck.errors.find("HANG: a shrink did not end within 1 s") != std::string::npos, stuck.errors);
    CHECK(stuck.errors.find("again: rerun") != std::string::npos);
}

}  // namespace moq::runner
