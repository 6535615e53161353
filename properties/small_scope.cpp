#include "properties/small_scope.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "properties/scope.hpp"
#include "sim/random.hpp"

namespace moq::properties {

namespace {

// Where one symmetry takes a shape and each of its steps.
struct Image {
    std::size_t shape = 0;
    std::vector<std::uint32_t> steps;
};

struct CompiledShape {
    nlohmann::json settings;  // as the suite's to_json writes them
    std::vector<nlohmann::json> steps;
    std::map<std::string, std::uint32_t> step_at;  // a step's JSON text: its position
    std::vector<Image> images;                     // every symmetry but the identity
};

struct CompiledScope {
    std::vector<CompiledShape> shapes;
    std::map<std::string, std::size_t> shape_at;  // settings without the seed, as text
};

// `value` with every whole number of at least 0 stored unsigned, as parsed JSON has it
// (a scope spells its numbers as plain ints, which a suite's reader would refuse).
nlohmann::json unsigned_numbers(nlohmann::json value) {
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0) return value.get<std::uint64_t>();
    if (value.is_structured())
        for (nlohmann::json& element : value) element = unsigned_numbers(std::move(element));
    return value;
}

// A case's settings and steps as the suite itself writes them, so that a scope's JSON
// and a stored case compare equal whatever optional fields either spells out.
nlohmann::json normal_case(const Suite& suite, nlohmann::json settings, nlohmann::json steps) {
    settings["steps"] = std::move(steps);
    return suite.from_json(unsigned_numbers(std::move(settings)))->to_json();
}

std::string settings_key(nlohmann::json settings) {
    settings.erase("steps");
    settings.erase("seed");
    return settings.dump();
}

std::vector<std::vector<std::size_t>> permutations(std::size_t names) {
    std::vector<std::size_t> order(names);
    std::iota(order.begin(), order.end(), 0);
    std::vector<std::vector<std::size_t>> all;
    do all.push_back(order);
    while (std::next_permutation(order.begin(), order.end()));
    return all;
}

// Every choice of one permutation per renaming for a shape's names, the identity first.
std::vector<std::vector<std::vector<std::size_t>>> renaming_choices(const SmallScope& scope,
                                                                    const nlohmann::json& settings) {
    std::vector<std::vector<std::vector<std::size_t>>> choices{{}};
    for (const Renaming& renaming : scope.renamings) {
        std::vector<std::vector<std::vector<std::size_t>>> longer;
        for (const auto& choice : choices)
            for (const auto& permutation : permutations(renaming.names(settings))) {
                longer.push_back(choice);
                longer.back().push_back(permutation);
            }
        choices = std::move(longer);
    }
    return choices;
}

Image image_of(const Suite& suite, const SmallScope& scope, const CompiledScope& compiled, std::size_t shape,
               const std::vector<std::vector<std::size_t>>& choice) {
    const CompiledShape& from = compiled.shapes[shape];
    nlohmann::json value = from.settings;
    value["steps"] = from.steps;
    for (std::size_t i = 0; i < scope.renamings.size(); ++i) scope.renamings[i].apply(value, choice[i]);
    const std::string problem =
        "the small scope of " + std::string(suite.name()) + " is not closed under its renamings: ";
    const auto target = compiled.shape_at.find(settings_key(normal_case(suite, value, nlohmann::json::array())));
    if (target == compiled.shape_at.end()) throw std::logic_error(problem + value.dump());
    Image image{target->second, {}};
    const CompiledShape& to = compiled.shapes[image.shape];
    for (const nlohmann::json& step : value["steps"]) {
        const auto found =
            to.step_at.find(normal_case(suite, to.settings, nlohmann::json::array({step}))["steps"][0].dump());
        if (found == to.step_at.end()) throw std::logic_error(problem + "step " + step.dump());
        image.steps.push_back(found->second);
    }
    return image;
}

CompiledScope compile(const Suite& suite, const SmallScope& scope) {
    CompiledScope compiled;
    for (const ScopeShape& shape : scope.shapes) {
        CompiledShape made;
        made.settings = normal_case(suite, shape.settings, nlohmann::json::array());
        made.settings.erase("steps");
        for (const nlohmann::json& step : shape.steps) {
            nlohmann::json normal = normal_case(suite, made.settings, nlohmann::json::array({step}))["steps"][0];
            if (!made.step_at.emplace(normal.dump(), made.steps.size()).second)
                throw std::logic_error(std::string(suite.name()) + "'s small scope lists step " + normal.dump() +
                                       " twice");
            made.steps.push_back(std::move(normal));
        }
        if (!compiled.shape_at.emplace(settings_key(made.settings), compiled.shapes.size()).second)
            throw std::logic_error(std::string(suite.name()) +
                                   "'s small scope lists a shape twice: " + made.settings.dump());
        compiled.shapes.push_back(std::move(made));
    }
    for (std::size_t shape = 0; shape < compiled.shapes.size(); ++shape) {
        const auto choices = renaming_choices(scope, compiled.shapes[shape].settings);
        for (std::size_t i = 1; i < choices.size(); ++i)
            compiled.shapes[shape].images.push_back(image_of(suite, scope, compiled, shape, choices[i]));
    }
    return compiled;
}

// The suite's scope, compiled once.
const CompiledScope& scope_of(const Suite& suite) {
    static std::mutex guard;
    static std::map<const Suite*, std::unique_ptr<const CompiledScope>> compiled;
    const std::lock_guard<std::mutex> lock(guard);
    auto found = compiled.find(&suite);
    if (found != compiled.end()) return *found->second;
    const std::optional<SmallScope> scope = suite.small_scope();
    if (!scope) throw std::invalid_argument("suite " + std::string(suite.name()) + " declares no small scope");
    auto made = std::make_unique<const CompiledScope>(compile(suite, *scope));
    return *compiled.emplace(&suite, std::move(made)).first->second;
}

void check_ops(int max_ops) {
    if (max_ops < 1 || max_ops > max_small_ops)
        throw std::invalid_argument("a small case has 1 to " + std::to_string(max_small_ops) + " operations, not " +
                                    std::to_string(max_ops));
}

std::uint64_t power(std::uint64_t base, int exponent) {
    std::uint64_t result = 1;
    for (int i = 0; i < exponent; ++i) result *= base;
    return result;
}

// How many cases of `operations` operations a shape has, and all shapes together.
std::uint64_t cases_of(const CompiledShape& shape, int operations) { return power(shape.steps.size(), operations); }
std::uint64_t cases_of(const CompiledScope& scope, int operations) {
    std::uint64_t total = 0;
    for (const CompiledShape& shape : scope.shapes) total += cases_of(shape, operations);
    return total;
}

// The case is the least of its symmetry class: no symmetry takes it to an earlier one.
bool is_least(const CompiledScope& scope, std::size_t shape, const std::vector<std::uint32_t>& steps) {
    for (const Image& image : scope.shapes[shape].images) {
        if (image.shape != shape) {
            if (image.shape < shape) return false;
            continue;
        }
        for (const std::uint32_t step : steps) {
            const std::uint32_t renamed = image.steps[step];
            if (renamed < step) return false;
            if (renamed > step) break;
        }
    }
    return true;
}

// Every case in order: `visit(shape, steps, index, least)`, until it returns false.
template <class Visit>
SmallScopeTotals walk(const CompiledScope& scope, int max_ops, Visit&& visit) {
    SmallScopeTotals totals;
    std::uint64_t index = 0;
    for (int operations = 1; operations <= max_ops; ++operations) {
        for (std::size_t shape = 0; shape < scope.shapes.size(); ++shape) {
            const std::uint32_t kinds = static_cast<std::uint32_t>(scope.shapes[shape].steps.size());
            if (kinds == 0) continue;
            std::vector<std::uint32_t> steps(static_cast<std::size_t>(operations), 0);
            for (;;) {
                ++totals.enumerated;
                const bool least = is_least(scope, shape, steps);
                if (!least) ++totals.symmetric;
                if (least) ++totals.visited;
                if (!visit(shape, steps, index++, least)) return totals;
                std::size_t turning = steps.size();
                while (turning > 0 && ++steps[turning - 1] == kinds) steps[--turning] = 0;
                if (turning == 0) break;
            }
        }
    }
    return totals;
}

std::unique_ptr<Case> build(const Suite& suite, const CompiledShape& shape, const std::vector<std::uint32_t>& steps) {
    nlohmann::json value = shape.settings;
    value["steps"] = nlohmann::json::array();
    for (const std::uint32_t step : steps) value["steps"].push_back(shape.steps[step]);
    return suite.from_json(value);
}

// The index of a case: the lengths before it, the shapes before it, its odometer reading.
std::uint64_t index_of(const CompiledScope& scope, std::size_t shape, const std::vector<std::uint32_t>& steps) {
    const int operations = static_cast<int>(steps.size());
    std::uint64_t index = 0;
    for (int shorter = 1; shorter < operations; ++shorter) index += cases_of(scope, shorter);
    for (std::size_t earlier = 0; earlier < shape; ++earlier) index += cases_of(scope.shapes[earlier], operations);
    std::uint64_t reading = 0;
    for (const std::uint32_t step : steps) reading = reading * scope.shapes[shape].steps.size() + step;
    return index + reading;
}

}  // namespace

SmallScopeTotals for_each_small_case(const Suite& suite, int max_ops,
                                     const std::function<bool(const Case&, std::uint64_t index)>& visit) {
    check_ops(max_ops);
    const CompiledScope& scope = scope_of(suite);
    return walk(scope, max_ops,
                [&](std::size_t shape, const std::vector<std::uint32_t>& steps, std::uint64_t index, bool least) {
                    return !least || visit(*build(suite, scope.shapes[shape], steps), index);
                });
}

SmallScopeTotals count_small_cases(const Suite& suite, int max_ops) {
    check_ops(max_ops);
    return walk(scope_of(suite), max_ops,
                [](std::size_t, const std::vector<std::uint32_t>&, std::uint64_t, bool) { return true; });
}

std::unique_ptr<Case> small_case(const Suite& suite, int max_ops, std::uint64_t index) {
    check_ops(max_ops);
    const CompiledScope& scope = scope_of(suite);
    std::uint64_t rest = index;
    for (int operations = 1; operations <= max_ops; ++operations) {
        for (const CompiledShape& shape : scope.shapes) {
            const std::uint64_t count = cases_of(shape, operations);
            if (rest >= count) {
                rest -= count;
                continue;
            }
            std::vector<std::uint32_t> steps(static_cast<std::size_t>(operations));
            for (std::size_t i = steps.size(); i-- > 0;) {
                steps[i] = static_cast<std::uint32_t>(rest % shape.steps.size());
                rest /= shape.steps.size();
            }
            return build(suite, shape, steps);
        }
    }
    throw std::invalid_argument(std::string(suite.name()) + " has no small case " + std::to_string(index) +
                                " of at most " + std::to_string(max_ops) + " operations");
}

std::optional<SmallCasePlace> find_small_case(const Suite& suite, const nlohmann::json& value) {
    const CompiledScope& scope = scope_of(suite);
    const nlohmann::json normal = suite.from_json(value)->to_json();
    const auto shape = scope.shape_at.find(settings_key(normal));
    if (shape == scope.shape_at.end() || !normal.contains("steps")) return std::nullopt;
    const nlohmann::json& listed = normal["steps"];
    if (listed.empty() || listed.size() > static_cast<std::size_t>(max_small_ops)) return std::nullopt;
    const CompiledShape& found = scope.shapes[shape->second];
    std::vector<std::uint32_t> steps;
    for (const nlohmann::json& step : listed) {
        const auto at = found.step_at.find(step.dump());
        if (at == found.step_at.end()) return std::nullopt;
        steps.push_back(at->second);
    }
    SmallCasePlace place{index_of(scope, shape->second, steps), 0, static_cast<int>(steps.size())};
    place.visited_as = place.index;
    for (const Image& image : found.images) {
        std::vector<std::uint32_t> renamed;
        for (const std::uint32_t step : steps) renamed.push_back(image.steps[step]);
        place.visited_as = std::min(place.visited_as, index_of(scope, image.shape, renamed));
    }
    return place;
}

std::unique_ptr<Case> with_seed(const Suite& suite, const Case& value, std::uint64_t index, std::uint64_t seed) {
    nlohmann::json json = value.to_json();
    // Below 2^53, as every case's seed: a JSON number a reader of doubles keeps exactly.
    if (json.is_object() && json.contains("seed"))
        json["seed"] = sim::splitmix64_mix(seed * sim::splitmix64_gamma ^ index) >> 11;
    return suite.from_json(json);
}

}  // namespace moq::properties
