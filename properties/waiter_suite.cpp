// The waiter suite: WaiterList against a plain model, no simulator. Waiters are created,
// registered on ten lists (directly or through a clone), dropped, and the lists are
// drained by take-then-wake, an in-place wake, or a move into a new list. Ten lists is
// more than a waiter keeps records of, so the scan that backs the records runs too. After every
// step each list holds exactly the live waiters registered since its last drain, once
// each; every drain wakes each of those exactly once and never a dropped one.
#include <algorithm>
#include <array>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "kio/waker.hpp"
#include "properties/drive.hpp"
#include "properties/suites.hpp"

namespace moq::properties {

namespace {

enum class Op : std::uint8_t { create, register_on, drop, clone_register, take_then_wake, wake, move };
constexpr std::array<const char*, 7> op_names{"create", "register", "drop", "clone", "take", "wake", "move"};
constexpr std::size_t list_count = 10;

struct Step {
    Op op = Op::create;
    std::uint8_t pick = 0;  // which waiter, modulo the number created
    std::uint8_t list = 0;
};

struct WaiterCase {
    std::vector<Step> steps;
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

struct Slot {
    std::unique_ptr<Counter> counter = std::make_unique<Counter>();
    std::unique_ptr<kio::Waiter> waiter;
    std::array<bool, list_count> registered{};  // model: in that list since its last drain
    int expected_wakes = 0;
};

// FNV-1a, 64 bits.
class Digest {
public:
    void add(std::uint64_t value) {
        for (int byte = 0; byte < 8; ++byte) {
            hash_ ^= (value >> (8 * byte)) & 0xff;
            hash_ *= 0x100000001b3ull;
        }
    }
    [[nodiscard]] std::uint64_t value() const { return hash_; }

private:
    std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

class Run {
public:
    explicit Run(bool keep_trace) : keep_trace_(keep_trace) {}

    void apply(std::size_t index, const Step& step) {
        digest_.add(static_cast<std::uint64_t>(step.op) << 16 | std::uint64_t{step.pick} << 8 | step.list);
        Slot* slot = slots_.empty() ? nullptr : &slots_[step.pick % slots_.size()];
        const std::size_t which = slot ? static_cast<std::size_t>(slot - slots_.data()) : 0;
        kio::WaiterList& list = lists_[step.list];
        switch (step.op) {
            case Op::create:
                slots_.emplace_back();
                slots_.back().waiter = std::make_unique<kio::Waiter>(slots_.back().counter->waker());
                break;
            case Op::register_on:
                if (slot && slot->waiter) {
                    slot->waiter->register_on(list);
                    slot->registered[step.list] = true;
                }
                break;
            case Op::clone_register:
                // A clone registers for the original: same identity, one entry.
                if (slot && slot->waiter) {
                    const kio::Waiter clone = *slot->waiter;
                    clone.register_on(list);
                    slot->registered[step.list] = true;
                }
                break;
            case Op::drop:
                if (slot) slot->waiter.reset();
                break;
            case Op::take_then_wake: {
                kio::WaiterList taken = list.take();
                if (!list.empty()) fail("take() left entries in list " + std::to_string(step.list));
                taken.wake();
                drained(step.list);
                break;
            }
            case Op::wake:
                list.wake();
                drained(step.list);
                break;
            case Op::move: {
                kio::WaiterList moved = std::move(list);
                list = kio::WaiterList();
                moved.wake();
                drained(step.list);
                break;
            }
        }
        if (keep_trace_) {
            std::ostringstream line;
            line << "{\"step\":" << index << ",\"event\":\"" << op_names[static_cast<std::size_t>(step.op)] << "\"";
            const bool picks = step.op == Op::register_on || step.op == Op::clone_register || step.op == Op::drop;
            if (picks && slot) line << ",\"waiter\":" << which;
            line << ",\"list\":" << int{step.list} << ",\"live\":" << lists_[step.list].live() << "}";
            trace_.push_back(line.str());
        }
        check_contents();
    }

    // Drains every list, as a last step.
    void finish() {
        for (std::size_t list = 0; list < list_count; ++list) {
            lists_[list].take().wake();
            drained(list);
        }
    }

    [[nodiscard]] const std::string& violation() const { return violation_; }
    [[nodiscard]] std::uint64_t digest() const { return digest_.value(); }
    [[nodiscard]] std::vector<std::string> take_trace() { return std::move(trace_); }

private:
    void fail(const std::string& found) {
        if (violation_.empty()) violation_ = found;
    }

    // After `list` was drained and woken: each live waiter registered there was woken
    // once, and nothing else.
    void drained(std::size_t list) {
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            Slot& slot = slots_[i];
            if (slot.registered[list] && slot.waiter) ++slot.expected_wakes;
            slot.registered[list] = false;
            const int wakes = slot.counter->wakes();
            digest_.add(static_cast<std::uint64_t>(wakes));
            if (wakes == slot.expected_wakes) continue;
            if (!slot.waiter && wakes > slot.expected_wakes)
                fail("waiter " + std::to_string(i) + " was woken after it was dropped (a dead entry was woken)");
            else
                fail("waiter " + std::to_string(i) + " was woken " + std::to_string(wakes) + " times, expected " +
                     std::to_string(slot.expected_wakes));
        }
    }

    // Each list holds exactly the live waiters registered since its last drain, once.
    void check_contents() {
        for (std::size_t list = 0; list < list_count; ++list) {
            std::size_t expected = 0;
            for (std::size_t i = 0; i < slots_.size(); ++i) {
                const Slot& slot = slots_[i];
                if (!slot.waiter) continue;
                if (slot.registered[list]) ++expected;
                if (lists_[list].contains(*slot.waiter) != slot.registered[list])
                    fail("list " + std::to_string(list) + (slot.registered[list] ? " lost" : " holds") + " waiter " +
                         std::to_string(i));
            }
            if (lists_[list].live() != expected)
                fail("list " + std::to_string(list) + " holds " + std::to_string(lists_[list].live()) +
                     " live entries for " + std::to_string(expected) + " registered waiters" +
                     (lists_[list].live() > expected ? " (a duplicate live entry)" : ""));
            if (lists_[list].size() < lists_[list].live())
                fail("list " + std::to_string(list) + " counts more live entries than entries");
        }
    }

    bool keep_trace_;
    std::array<kio::WaiterList, list_count> lists_;
    std::vector<Slot> slots_;
    Digest digest_;
    std::string violation_;
    std::vector<std::string> trace_;
};

struct Traits {
    static rc::Gen<WaiterCase> generator() {
        const auto step = rc::gen::build<Step>(
            rc::gen::set(&Step::op, rc::gen::weightedElement<Op>({{2, Op::create},
                                                                  {8, Op::register_on},
                                                                  {1, Op::drop},
                                                                  {2, Op::clone_register},
                                                                  {1, Op::take_then_wake},
                                                                  {1, Op::wake},
                                                                  {2, Op::move}})),
            // Two hot waiters register on many lists, past what an identity keeps records of.
            rc::gen::set(&Step::pick, rc::gen::weightedOneOf<std::uint8_t>({{4, rc::gen::inRange<std::uint8_t>(0, 2)},
                                                                            {1, rc::gen::inRange<std::uint8_t>(0, 64)}})),
            rc::gen::set(&Step::list, rc::gen::inRange<std::uint8_t>(0, static_cast<std::uint8_t>(list_count))));
        return rc::gen::build<WaiterCase>(
            rc::gen::set(&WaiterCase::steps, rc::gen::container<std::vector<Step>>(step)));
    }

    static CaseOutcome run(const WaiterCase& value, const RunSettings& settings) {
        Run run{settings.keep_trace};
        for (std::size_t i = 0; i < value.steps.size(); ++i) run.apply(i, value.steps[i]);
        run.finish();
        CaseOutcome outcome;
        outcome.ok = run.violation().empty();
        outcome.message = run.violation();
        outcome.digest = run.digest();
        outcome.steps = value.steps.size();
        outcome.trace = run.take_trace();
        return outcome;
    }

    static nlohmann::json to_json(const WaiterCase& value) {
        nlohmann::json steps = nlohmann::json::array();
        for (const Step& step : value.steps)
            steps.push_back({op_names[static_cast<std::size_t>(step.op)], step.pick, step.list});
        return {{"steps", steps}};
    }

    static WaiterCase from_json(const nlohmann::json& json) {
        if (!json.is_object()) throw std::invalid_argument("a waiter case is an object");
        WaiterCase value;
        for (const nlohmann::json& step : require_array(json, "steps")) {
            if (!step.is_array() || step.size() != 3 || !step[0].is_string())
                throw std::invalid_argument("a step is [name, waiter, list]");
            Step parsed;
            const auto name = step[0].get<std::string>();
            const auto found = std::find(op_names.begin(), op_names.end(), name);
            if (found == op_names.end()) throw std::invalid_argument("unknown step '" + name + "'");
            parsed.op = static_cast<Op>(found - op_names.begin());
            parsed.pick = require_small(step[1], 255, "waiter");
            parsed.list = require_small(step[2], list_count - 1, "list");
            value.steps.push_back(parsed);
        }
        return value;
    }

    static std::string describe(const WaiterCase& value) {
        std::ostringstream out;
        out << value.steps.size() << " steps:";
        for (const Step& step : value.steps) {
            out << " " << op_names[static_cast<std::size_t>(step.op)];
            if (step.op == Op::register_on || step.op == Op::clone_register)
                out << "(" << int{step.pick} << "," << int{step.list} << ")";
            else if (step.op == Op::drop)
                out << "(" << int{step.pick} << ")";
            else if (step.op != Op::create)
                out << "(" << int{step.list} << ")";
        }
        return out.str();
    }
};

}  // namespace

const Suite& waiter_suite() {
    static const TypedSuite<WaiterCase, Traits> suite{
        "waiter", "WaiterList registrations, clones, drops and drains against a plain model", 3000};
    return suite;
}

}  // namespace moq::properties
