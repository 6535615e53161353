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
#include "properties/commands.hpp"
#include "properties/scope.hpp"
#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "sim/trace.hpp"

namespace moq::properties {

namespace {

constexpr std::size_t list_count = 10;
constexpr std::uint32_t pick_limit = 256;

// A step's command: an index into Commands (below), stored as its name.
struct Command {
    static constexpr std::uint8_t unknown = 255;  // a stored name no command has
    std::uint8_t index = unknown;
};

struct Step {
    Command op;
    std::uint32_t waiter = 0;  // which waiter, modulo the number created
    std::uint32_t list = 0;
};

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

// The commands, one operation each (see properties/commands.hpp): a step whose waiter is
// gone is skipped, as a shrunk case may leave it without one to act on.
struct World {
    System& system;
    oracle::WaiterModel& model;
};

struct Always {
    static bool applies(const World&, const Step&) { return true; }
};
// The commands that act on a waiter: it must be alive.
struct OnWaiter {
    static bool applies(const World& world, const Step& step) {
        return world.model.live_waiter(step.waiter).has_value();
    }
};

constexpr Argument waiter_argument{"waiter", 0, 64};  // mostly 0 and 1 (see the generator)
constexpr Argument list_argument{"list", 0, list_count};

struct Create : Always {
    static constexpr const char* name = "create";
    static constexpr std::size_t weight = 2;
    static constexpr auto& arguments = no_arguments;
    static void run(World& world, const Step&) {
        System::Slot& slot = world.system.slots.emplace_back();
        slot.waiter = std::make_unique<kio::Waiter>(slot.counter->waker());
        world.model.created();
    }
};

// A waiter registers on a list, itself or through a clone: a clone registers for the
// original, same identity, one entry (K2, K4).
template <bool through_clone>
struct Registers : OnWaiter {
    static constexpr std::array<Argument, 2> arguments{waiter_argument, list_argument};
    static void run(World& world, const Step& step) {
        const std::size_t waiter = *world.model.live_waiter(step.waiter);
        const kio::Waiter& original = *world.system.slots[waiter].waiter;
        if (through_clone)
            kio::Waiter(original).register_on(world.system.lists[step.list]);
        else
            original.register_on(world.system.lists[step.list]);
        world.model.registered(waiter, step.list);
    }
};
struct Register : Registers<false> {
    static constexpr const char* name = "register";
    static constexpr std::size_t weight = 8;
};
struct Clone : Registers<true> {
    static constexpr const char* name = "clone";
    static constexpr std::size_t weight = 2;
};

struct Drop : OnWaiter {
    static constexpr const char* name = "drop";
    static constexpr std::size_t weight = 1;
    static constexpr std::array<Argument, 1> arguments{waiter_argument};
    static void run(World& world, const Step& step) {
        const std::size_t waiter = *world.model.live_waiter(step.waiter);
        world.system.slots[waiter].waiter.reset();
        world.model.dropped(waiter);
    }
};

struct Take : Always {
    static constexpr const char* name = "take";
    static constexpr std::size_t weight = 1;
    static constexpr std::array<Argument, 1> arguments{list_argument};
    static void run(World& world, const Step& step) {
        kio::WaiterList taken = world.system.lists[step.list].take();
        world.model.took(step.list, world.system.lists[step.list].empty());
        taken.wake();
        report_wakes(world.system, world.model, step.list);
    }
};

struct Wake : Always {
    static constexpr const char* name = "wake";
    static constexpr std::size_t weight = 1;
    static constexpr std::array<Argument, 1> arguments{list_argument};
    static void run(World& world, const Step& step) {
        world.system.lists[step.list].wake();
        report_wakes(world.system, world.model, step.list);
    }
};

struct Move : Always {
    static constexpr const char* name = "move";
    static constexpr std::size_t weight = 2;
    static constexpr std::array<Argument, 1> arguments{list_argument};
    static void run(World& world, const Step& step) {
        kio::WaiterList moved = std::move(world.system.lists[step.list]);
        world.system.lists[step.list] = kio::WaiterList();
        moved.wake();
        report_wakes(world.system, world.model, step.list);
    }
};

using Commands = CommandTable<Create, Register, Drop, Clone, Take, Wake, Move>;

// A step's command as stored cases write it: its name; a name no command has reads as
// `unknown`, which the case's reader refuses.
void to_json(nlohmann::json& json, const Command& command) { json = Commands::names[command.index]; }
void from_json(const nlohmann::json& json, Command& command) {
    const auto found = json.is_string() ? Commands::find(json.get<std::string>()) : std::nullopt;
    command.index = found ? *found : Command::unknown;
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Step, op, waiter, list)

struct WaiterCase {
    std::vector<Step> steps;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WaiterCase, steps)

// What every list answers, after every step (K4, K7).
void report_contents(const System& system, oracle::WaiterModel& model) {
    for (std::size_t list = 0; list < list_count; ++list) {
        const kio::WaiterList& real = system.lists[list];
        for (std::size_t i = 0; i < system.slots.size(); ++i)
            if (system.slots[i].waiter) model.holds(list, i, real.contains(*system.slots[i].waiter));
        model.counted(list, real.live(), real.size());
    }
}

// No simulator here: the trace's step is the case's step, at no time and in no task.
// Each step is the operation, then what its list answers (its live count: a note), then
// the model's verdict; last, how often each waiter was woken.
void trace_step(sim::Trace& trace, std::uint64_t index, const Step& step, const System& system,
                const oracle::WaiterModel& model) {
    trace.record(sim::operation_event(Commands::names[step.op.index], {step.waiter, step.list}), index, 0);
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
        World world{system, model};
        Commands::run(step.op.index, world, step, [](const char*) {});
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
    const std::uint8_t command = step.op.index;
    std::string name = Commands::names[command];
    if (command == Commands::index_of<Register>() || command == Commands::index_of<Clone>())
        return name + "(" + std::to_string(step.waiter) + "," + std::to_string(step.list) + ")";
    if (command == Commands::index_of<Drop>()) return name + "(" + std::to_string(step.waiter) + ")";
    if (command == Commands::index_of<Create>()) return name;
    return name + "(" + std::to_string(step.list) + ")";
}

// The small scope (properties/scope.hpp): two waiters and two lists. No symmetry: a
// waiter is named by its creation, and move takes a list to the next one.
SmallScope waiter_scope() {
    std::vector<nlohmann::json> steps;
    const auto step = [](const char* op, int waiter, int list) {
        return nlohmann::json{{"op", op}, {"waiter", waiter}, {"list", list}};
    };
    steps.push_back(step("create", 0, 0));
    for (const char* op : {"register", "clone"})
        for (int waiter : {0, 1})
            for (int list : {0, 1}) steps.push_back(step(op, waiter, list));
    for (int waiter : {0, 1}) steps.push_back(step("drop", waiter, 0));
    for (const char* op : {"take", "wake", "move"})
        for (int list : {0, 1}) steps.push_back(step(op, 0, list));
    return SmallScope{{ScopeShape{nlohmann::json::object(), steps}}, {}};
}

struct Traits {
    using Commands = moq::properties::Commands;

    static SmallScope small_scope() { return waiter_scope(); }

    static rc::Gen<WaiterCase> generator(Mix mix) {
        return Commands::generator(mix, [](const rc::Gen<std::uint8_t>& kind) {
            const auto step = rc::gen::build<Step>(
                rc::gen::set(&Step::op, rc::gen::map(kind, [](std::uint8_t index) { return Command{index}; })),
                // Two hot waiters register on many lists, past what an identity keeps records of.
                rc::gen::set(&Step::waiter, rc::gen::weightedOneOf<std::uint32_t>(
                                                {{4, rc::gen::inRange<std::uint32_t>(0, 2)},
                                                 {1, rc::gen::inRange<std::uint32_t>(0, waiter_argument.high)}})),
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
        for (const Step& step : value.steps) kinds.emplace_back(Commands::names[step.op.index]);
        return kinds;
    }

    static WaiterCase from_json(const nlohmann::json& json) {
        auto value = read_case<WaiterCase>(json, "waiter");
        for (const Step& step : value.steps) {
            require_known(step.op.index, Command::unknown, "waiter step");
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
