#include "properties/guided.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <utility>

#include <nlohmann/json.hpp>

namespace moq::properties {

namespace {

using Json = nlohmann::json;

// The case's steps, when it keeps them as a list (every suite does).
Json* steps_of(Json& value) {
    auto found = value.find("steps");
    return found != value.end() && found->is_array() ? &*found : nullptr;
}

std::size_t below(std::mt19937_64& random, std::size_t count) {
    return count == 0 ? 0 : static_cast<std::size_t>(random() % count);
}

// A generated case of `suite`, as stored: where operations and settings come from.
Json donor(const Suite& suite, std::mt19937_64& random, Mix mix) {
    const std::uint64_t seed = random() % 1000000 + 1;
    return suite.generate(seed, below(random, 200), mix)->to_json();
}

// The numbers of a step a mutation may move: every argument, never its operation's name.
std::vector<Json*> numbers_of(Json& step) {
    std::vector<Json*> numbers;
    if (step.is_array()) {
        for (std::size_t i = 1; i < step.size(); ++i)
            if (step[i].is_number_integer()) numbers.push_back(&step[i]);
    } else if (step.is_object()) {
        for (auto& [key, item] : step.items())
            if (item.is_number_integer()) numbers.push_back(&item);
    }
    return numbers;
}

// A run makes at most a few thousand decisions; bytes past them would answer nothing.
constexpr std::size_t max_decision_bytes = 4096;

enum class Change { decisions, drop, repeat, swap, replace, insert, argument, setting, fresh };

Change draw_change(std::mt19937_64& random) {
    // The schedule as often as every change of the case together: most failures need a
    // rare interleaving of a few operations more than more operations.
    // A fresh case now and then keeps the variety a blind sweep has: the search must not
    // stay among the mutations of the cases it began with.
    static constexpr std::array<std::pair<Change, unsigned>, 9> weights{{{Change::decisions, 36},
                                                                         {Change::drop, 7},
                                                                         {Change::repeat, 5},
                                                                         {Change::swap, 5},
                                                                         {Change::replace, 10},
                                                                         {Change::insert, 10},
                                                                         {Change::argument, 10},
                                                                         {Change::setting, 5},
                                                                         {Change::fresh, 12}}};
    unsigned total = 0;
    for (const auto& [change, weight] : weights) total += weight;
    auto pick = static_cast<unsigned>(random() % total);
    for (const auto& [change, weight] : weights) {
        if (pick < weight) return change;
        pick -= weight;
    }
    return Change::decisions;
}

// `value` changed by `change`; false when it does not apply (no step to drop, say).
bool change_case(Change change, Json& value, const Suite& suite, std::mt19937_64& random, Mix mix) {
    if (change == Change::fresh) {
        value = donor(suite, random, mix);
        return true;
    }
    Json* steps = steps_of(value);
    if (!steps) return false;
    const std::size_t count = steps->size();
    switch (change) {
        case Change::drop:
            if (count == 0) return false;
            steps->erase(steps->begin() + static_cast<std::ptrdiff_t>(below(random, count)));
            return true;
        case Change::repeat: {
            if (count == 0) return false;
            const std::size_t at = below(random, count);
            const Json copy = (*steps)[at];
            steps->insert(steps->begin() + static_cast<std::ptrdiff_t>(at), copy);
            return true;
        }
        case Change::swap: {
            if (count < 2) return false;
            const std::size_t at = below(random, count - 1);
            std::swap((*steps)[at], (*steps)[at + 1]);
            return true;
        }
        case Change::replace:
        case Change::insert: {
            Json other = donor(suite, random, mix);
            Json* given = steps_of(other);
            if (!given || given->empty()) return false;
            const Json step = (*given)[below(random, given->size())];
            if (change == Change::replace) {
                if (count == 0) return false;
                (*steps)[below(random, count)] = step;
            } else {
                steps->insert(steps->begin() + static_cast<std::ptrdiff_t>(below(random, count + 1)), step);
            }
            return true;
        }
        case Change::argument: {
            if (count == 0) return false;
            std::vector<Json*> numbers = numbers_of((*steps)[below(random, count)]);
            if (numbers.empty()) return false;
            Json& number = *numbers[below(random, numbers.size())];
            // Unsigned, so the step wraps instead of overflowing; the reader refuses what is out of range.
            const auto now = number.get<std::int64_t>();
            number = static_cast<std::int64_t>(static_cast<std::uint64_t>(now) + ((random() & 1) != 0 ? 1 : ~0ULL));
            return true;
        }
        case Change::setting: {
            const Json other = donor(suite, random, mix);
            std::vector<std::string> keys;
            for (const auto& [key, item] : other.items())
                if (key != "steps" && value.contains(key) && value[key] != item) keys.push_back(key);
            if (keys.empty()) return false;
            const std::string& key = keys[below(random, keys.size())];
            value[key] = other[key];
            return true;
        }
        case Change::fresh:
        case Change::decisions: return false;
    }
    return false;
}

// FNV-1a: the same number for the same text on every build, where std::hash need not be.
std::uint64_t text_hash(std::string_view text) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : text) hash = (hash ^ static_cast<std::uint8_t>(c)) * 0x100000001b3ULL;
    return hash;
}

bool reads(const Suite& suite, const Json& value) {
    try {
        static_cast<void>(suite.from_json(value));
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

std::string encode_json(const Suite& suite, const Json& value, const std::vector<std::uint8_t>& decisions) {
    std::string bytes = std::string(suite.name()) + "\n" + value.dump() + "\n";
    bytes.append(decisions.begin(), decisions.end());
    return bytes;
}

// The input within `max_size` bytes: its decision bytes cut to fit, or, when the case
// alone is longer (a cut case would read as nothing), `unchanged` as it came.
std::string encode_within(const Suite& suite, const Json& value, const std::vector<std::uint8_t>& decisions,
                          std::size_t max_size, std::string_view unchanged) {
    std::string result = encode_json(suite, value, decisions);
    if (result.size() <= max_size) return result;
    if (result.size() - decisions.size() > max_size) return std::string(unchanged.substr(0, max_size));
    result.resize(max_size);
    return result;
}

}  // namespace

std::optional<GuidedInput> guided_decode(std::string_view bytes) {
    const std::size_t name_end = bytes.find('\n');
    if (name_end == std::string_view::npos) return std::nullopt;
    const std::size_t case_end = bytes.find('\n', name_end + 1);
    if (case_end == std::string_view::npos) return std::nullopt;
    const Suite* suite = find_suite(bytes.substr(0, name_end));
    if (!suite) return std::nullopt;
    const std::string_view text = bytes.substr(name_end + 1, case_end - name_end - 1);
    const Json value = Json::parse(text, nullptr, false);
    if (value.is_discarded() || !value.is_object()) return std::nullopt;
    GuidedInput input;
    input.suite = suite;
    input.case_hash = text_hash(text);
    try {
        input.value = suite->from_json(value);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    const std::string_view rest = bytes.substr(case_end + 1);
    input.decisions.assign(rest.begin(), rest.end());
    return input;
}

std::string guided_encode(const Suite& suite, const Case& value, const std::vector<std::uint8_t>& decisions) {
    return encode_json(suite, value.to_json(), decisions);
}

std::uint32_t ByteDecider::answer(std::uint8_t byte, const sim::DecisionPoint& point) {
    if (point.options <= 1) return point.fallback;
    if (!point.costly) return byte % point.options;
    // The share of bytes (of 256) that leave the default: the random strategy's rates.
    const unsigned share = point.kind == sim::DecisionKind::preempt ? 64 : 32;
    if (byte >= share) return point.fallback;
    return (point.fallback + 1 + byte % (point.options - 1)) % point.options;
}

std::uint8_t tail_byte(std::uint64_t seed, std::size_t at) {
    // splitmix64 of the position: the byte of decision `at` whatever the bytes before it.
    std::uint64_t mixed = seed + (static_cast<std::uint64_t>(at) + 1) * 0x9e3779b97f4a7c15ULL;
    mixed = (mixed ^ (mixed >> 30)) * 0xbf58476d1ce4e5b9ULL;
    mixed = (mixed ^ (mixed >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<std::uint8_t>(mixed ^ (mixed >> 31));
}

std::uint32_t ByteDecider::choose(const sim::DecisionPoint& point) {
    const std::size_t at = asked_++;
    return answer(at < bytes_.size() ? bytes_[at] : tail_byte(tail_, at), point);
}

CaseOutcome guided_run(const GuidedInput& input) {
    ByteDecider bytes(input.decisions, input.case_hash);
    RunSettings settings;
    settings.decider = &bytes;
    settings.record_decisions = true;
    return input.value->run(settings);
}

std::string guided_fresh(const Suite& suite, std::mt19937_64& random, Mix mix) {
    return encode_json(suite, donor(suite, random, mix), {});
}

std::string guided_mutate(const Suite& suite, std::string_view bytes, std::size_t max_size, std::mt19937_64& random,
                          const ByteMutator& mutate_bytes, Mix mix) {
    std::optional<GuidedInput> input = guided_decode(bytes);
    if (!input || input->suite != &suite) return guided_fresh(suite, random, mix);
    Json value = input->value->to_json();
    std::vector<std::uint8_t> decisions = std::move(input->decisions);
    for (int attempt = 0; attempt < 16; ++attempt) {
        const Change change = draw_change(random);
        if (change == Change::decisions) {
            const std::size_t head = encode_json(suite, value, {}).size();
            if (head >= max_size) break;
            const std::size_t capacity = std::min(max_size - head, max_decision_bytes);
            std::vector<std::uint8_t> changed = decisions;
            // A short schedule is first written out as the tail would draw it (a byte mutator
            // needs some bytes), so only the mutation changes the run.
            while (changed.size() < 8) changed.push_back(tail_byte(input->case_hash, changed.size()));
            const std::size_t size = std::min(changed.size(), capacity);
            changed.resize(capacity);
            changed.resize(std::min(mutate_bytes(changed.data(), size, capacity), capacity));
            decisions = std::move(changed);
            break;
        }
        Json candidate = value;
        if (change_case(change, candidate, suite, random, mix) && reads(suite, candidate)) {
            value = std::move(candidate);
            break;
        }
    }
    return encode_within(suite, value, decisions, max_size, bytes);
}

std::string guided_cross(const Suite& suite, std::string_view first, std::string_view second, std::size_t max_size,
                         std::mt19937_64& random) {
    std::optional<GuidedInput> one = guided_decode(first);
    std::optional<GuidedInput> two = guided_decode(second);
    if (!one || one->suite != &suite) return std::string(first.substr(0, max_size));
    if (!two || two->suite != &suite) return std::string(first.substr(0, max_size));
    Json value = one->value->to_json();
    Json other = two->value->to_json();
    Json* steps = steps_of(value);
    const Json* given = steps_of(other);
    if (steps && given) {
        Json joined = Json::array();
        const std::size_t cut = below(random, steps->size() + 1);
        const std::size_t from = below(random, given->size() + 1);
        for (std::size_t i = 0; i < cut; ++i) joined.push_back((*steps)[i]);
        for (std::size_t i = from; i < given->size(); ++i) joined.push_back((*given)[i]);
        Json candidate = value;
        candidate["steps"] = std::move(joined);
        if (reads(suite, candidate)) value = std::move(candidate);
    }
    std::vector<std::uint8_t> decisions(
        one->decisions.begin(),
        one->decisions.begin() + static_cast<std::ptrdiff_t>(below(random, one->decisions.size() + 1)));
    const std::size_t from = below(random, two->decisions.size() + 1);
    decisions.insert(decisions.end(), two->decisions.begin() + static_cast<std::ptrdiff_t>(from), two->decisions.end());
    return encode_within(suite, value, decisions, max_size, first);
}

}  // namespace moq::properties
