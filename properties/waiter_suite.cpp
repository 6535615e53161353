// The waiter suite: WaiterList against oracle/waiter_model, no simulator. Waiters are
// created, registered on ten lists (directly or through a clone), dropped, and the lists
// are drained by take-then-wake, an in-place wake, or a move into a new list. Ten lists
// is more than a waiter keeps records of, so the scan that backs the records runs too.
// Each step is one command: when it applies (on the model), what it does to the real
// lists, and what it tells the model; after every step the model hears what each list
// answers (contains, live, size), and after every drain how often each waker was woken.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "kio/waker.hpp"
#include "oracle/waiter_model.hpp"
#include "properties/case_json.hpp"
#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "sim/trace.hpp"

namespace moq::properties {

namespace {

enum class Op : std::uint8_t { unknown, create, register_on, drop, clone_register, take_then_wake, wake, move };
NLOHMANN_JSON_SERIALIZE_ENUM(Op, {{Op::unknown, nullptr},
                                  {Op::create, "create"},
                                  {Op::register_on, "register"},
                                  {Op::drop, "drop"},
                                  {Op::clone_register, "clone"},
                                  {Op::take_then_wake, "take"},
                                  {Op::wake, "wake"},
                                  {Op::move, "move"}})

constexpr std::size_t list_count = 10;
constexpr std::uint32_t pick_limit = 256;

struct Step {
    Op op = Op::create;
    std::uint32_t waiter = 0;  // which waiter, modulo the number created
    std::uint32_t list = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Step, op, waiter, list)

struct WaiterCase {
    std::vector<Step> steps;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WaiterCase, steps)

// A waker that counts its wakes. It outlives every waker made from it.
class Counter {
public:
    kio::Waker waker() { return kio::Waker(&vtable, this); }
    [[nodiscard]] int wakes() const { return wakes_; }

private:
    static void* clone_fn(void* data) { return data; }
    static void wake_fn(void* data) { ++static_cast<Counter*>(data)->wakes_; }
    static void drop_fn(void*) {}
    static constexpr kio::WakerVtable vtable{&clone_fn, &wake_fn, &drop_fn};

    int wakes_ = 0;
};

// The real system: the lists, and each waiter with the counter its waker wakes.
struct System {
    struct Slot {
        std::unique_ptr<Counter> counter = std::make_unique<Counter>();
        std::unique_ptr<kio::Waiter> waiter;
    };
    std::array<kio::WaiterList, list_count> lists;
    std::vector<Slot> slots;
};

// After a drain of `list`: every waker's count of wakes, for the model to judge (K6).
void report_wakes(const System& system, oracle::WaiterModel& model, std::size_t list) {
    model.drained(list);
    for (std::size_t i = 0; i < system.slots.size(); ++i) model.woken(i, system.slots[i].counter->wakes());
}

// The commands. Each returns false when its precondition does not hold (the step is
// then skipped, as a shrunk case may leave it without a waiter to act on).
bool create(System& system, oracle::WaiterModel& model, const Step&) {
    System::Slot& slot = system.slots.emplace_back();
    slot.waiter = std::make_unique<kio::Waiter>(slot.counter->waker());
    model.created();
    return true;
}

bool register_on(System& system, oracle::WaiterModel& model, const Step& step) {
    const auto waiter = model.live_waiter(step.waiter);
    if (!waiter) return false;
    system.slots[*waiter].waiter->register_on(system.lists[step.list]);
    model.registered(*waiter, step.list);
    return true;
}

// A clone registers for the original: same identity, one entry (K2, K4).
bool clone_register(System& system, oracle::WaiterModel& model, const Step& step) {
    const auto waiter = model.live_waiter(step.waiter);
    if (!waiter) return false;
    const kio::Waiter clone = *system.slots[*waiter].waiter;
    clone.register_on(system.lists[step.list]);
    model.registered(*waiter, step.list);
    return true;
}

bool drop(System& system, oracle::WaiterModel& model, const Step& step) {
    const auto waiter = model.live_waiter(step.waiter);
    if (!waiter) return false;
    system.slots[*waiter].waiter.reset();
    model.dropped(*waiter);
    return true;
}

bool take_then_wake(System& system, oracle::WaiterModel& model, const Step& step) {
    kio::WaiterList taken = system.lists[step.list].take();
    model.took(step.list, system.lists[step.list].empty());
    taken.wake();
    report_wakes(system, model, step.list);
    return true;
}

bool wake(System& system, oracle::WaiterModel& model, const Step& step) {
    system.lists[step.list].wake();
    report_wakes(system, model, step.list);
    return true;
}

bool move(System& system, oracle::WaiterModel& model, const Step& step) {
    kio::WaiterList moved = std::move(system.lists[step.list]);
    system.lists[step.list] = kio::WaiterList();
    moved.wake();
    report_wakes(system, model, step.list);
    return true;
}

using Command = bool (*)(System&, oracle::WaiterModel&, const Step&);
constexpr std::array<Command, 8> commands{nullptr,         &create,         &register_on, &drop,
                                          &clone_register, &take_then_wake, &wake,        &move};

// What every list answers, after every step (K4, K7).
void report_contents(const System& system, oracle::WaiterModel& model) {
    for (std::size_t list = 0; list < list_count; ++list) {
        const kio::WaiterList& real = system.lists[list];
        for (std::size_t i = 0; i < system.slots.size(); ++i)
            if (system.slots[i].waiter) model.holds(list, i, real.contains(*system.slots[i].waiter));
        model.counted(list, real.live(), real.size());
    }
}

// A step's name, as stored cases write it (the names of the JSON mapping above), for the
// trace, which keeps names for the run's life.
const char* op_name(Op op) {
    static const std::array<std::string, 8> names = [] {
        std::array<std::string, 8> named;
        for (std::size_t i = 0; i < named.size(); ++i) {
            const nlohmann::json json = static_cast<Op>(i);
            named[i] = json.is_string() ? json.get<std::string>() : "unknown";
        }
        return named;
    }();
    return names[static_cast<std::size_t>(op)].c_str();
}

// No simulator here: the trace's step is the case's step, at no time and in no task.
// Each step is the operation, then what its list answers (its live count: a note), then
// the model's verdict; last, how often each waiter was woken.
void trace_step(sim::Trace& trace, std::uint64_t index, const Step& step, const System& system,
                const oracle::WaiterModel& model) {
    trace.record(sim::operation_event(op_name(step.op), {step.waiter, step.list}), index, 0);
    trace.record(sim::Event{.kind = sim::EventKind::note, .name = "live"}
                     .with(0, step.list)
                     .with(1, static_cast<std::int64_t>(system.lists[step.list].live())),
                 index, 0);
    const sim::Verdict verdict = model.violation().empty() ? sim::Verdict::ok : sim::Verdict::violated;
    trace.record(sim::Event{.kind = sim::EventKind::verdict, .code = static_cast<std::uint8_t>(verdict)}, index, 0,
                 model.violation());
}

CaseOutcome run_case(const WaiterCase& value, const RunSettings& settings) {
    System system;
    oracle::WaiterModel model{list_count};
    sim::Trace trace{settings.keep_trace};
    CaseOutcome outcome;
    for (std::size_t i = 0; i < value.steps.size() && model.violation().empty(); ++i) {
        const Step& step = value.steps[i];
        commands[static_cast<std::size_t>(step.op)](system, model, step);
        report_contents(system, model);
        trace_step(trace, i, step, system, model);
    }
    // Last, every list is drained once more.
    for (std::size_t list = 0; list < list_count && model.violation().empty(); ++list) {
        system.lists[list].take().wake();
        report_wakes(system, model, list);
    }
    for (std::size_t i = 0; i < system.slots.size(); ++i)
        trace.record(sim::Event{.kind = sim::EventKind::note, .name = "wakes"}
                         .with(0, static_cast<std::int64_t>(i))
                         .with(1, system.slots[i].counter->wakes()),
                     value.steps.size(), 0);
    const sim::Verdict verdict = model.violation().empty() ? sim::Verdict::ok : sim::Verdict::violated;
    trace.record(sim::Event{.kind = sim::EventKind::verdict, .code = static_cast<std::uint8_t>(verdict)},
                 value.steps.size(), 0, model.violation());
    outcome.ok = model.violation().empty();
    outcome.message = model.violation();
    outcome.digest = trace.digest();
    outcome.answers_digest = trace.answers_digest();
    outcome.steps = value.steps.size();
    outcome.trace = trace.take_entries();
    return outcome;
}

std::string describe_step(const Step& step) {
    std::string name = op_name(step.op);
    if (step.op == Op::register_on || step.op == Op::clone_register)
        return name + "(" + std::to_string(step.waiter) + "," + std::to_string(step.list) + ")";
    if (step.op == Op::drop) return name + "(" + std::to_string(step.waiter) + ")";
    if (step.op == Op::create) return name;
    return name + "(" + std::to_string(step.list) + ")";
}

struct Traits {
    static rc::Gen<WaiterCase> generator(Mix mix) {
        return swarmed<Op>({{2, Op::create},
                            {8, Op::register_on},
                            {1, Op::drop},
                            {2, Op::clone_register},
                            {1, Op::take_then_wake},
                            {1, Op::wake},
                            {2, Op::move}},
                           mix, [](const rc::Gen<Op>& kind) {
                               const auto step = rc::gen::build<Step>(
                                   rc::gen::set(&Step::op, kind),
                                   // Two hot waiters register on many lists, past what an identity keeps records of.
                                   rc::gen::set(&Step::waiter, rc::gen::weightedOneOf<std::uint32_t>(
                                                                   {{4, rc::gen::inRange<std::uint32_t>(0, 2)},
                                                                    {1, rc::gen::inRange<std::uint32_t>(0, 64)}})),
                                   rc::gen::set(&Step::list, rc::gen::inRange<std::uint32_t>(0, list_count)));
                               return rc::gen::build<WaiterCase>(
                                   rc::gen::set(&WaiterCase::steps, rc::gen::container<std::vector<Step>>(step)));
                           });
    }

    static CaseOutcome run(const WaiterCase& value, const RunSettings& settings) { return run_case(value, settings); }

    static nlohmann::json to_json(const WaiterCase& value) { return value; }

    // Stored as objects ({"op": "register", ...}), not [name, ...] arrays.
    static std::vector<std::string> operation_kinds(const WaiterCase& value) {
        std::vector<std::string> kinds;
        for (const Step& step : value.steps) kinds.emplace_back(op_name(step.op));
        return kinds;
    }

    static WaiterCase from_json(const nlohmann::json& json) {
        auto value = read_case<WaiterCase>(json, "waiter");
        for (const Step& step : value.steps) {
            require_known(step.op, Op::unknown, "waiter step");
            require_below(step.waiter, pick_limit, "waiter");
            require_below(step.list, list_count, "list");
        }
        return value;
    }

    static std::string describe(const WaiterCase& value) {
        std::string out = std::to_string(value.steps.size()) + " steps:";
        for (const Step& step : value.steps) out += " " + describe_step(step);
        return out;
    }
};

}  // namespace

const Suite& waiter_suite() {
    static const TypedSuite<WaiterCase, Traits> suite{
        "waiter", "WaiterList registrations, clones, drops and drains against the waiter model", 3000};
    return suite;
}

}  // namespace moq::properties
