// Swarm testing (Groce et al., ISSTA 2012): instead of one fixed mix of operations for
// every case, each case draws from its seed which operation kinds it uses at all; a case
// without some kinds goes deeper into the others (many writes and no aborts, say).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidcheck.h>

namespace moq::properties {

enum class Mix : std::uint8_t {
    fixed,  // every case draws every operation kind with the suite's weights
    swarm,  // each case keeps each kind with probability 1/2 (at least one), same weights
};

// What `moqsim sweep` draws with unless told (--mix); replay always names its mix.
constexpr Mix sweep_default_mix = Mix::fixed;

constexpr std::string_view mix_name(Mix mix) { return mix == Mix::fixed ? "fixed" : "swarm"; }
inline std::optional<Mix> parse_mix(std::string_view name) {
    if (name == "fixed") return Mix::fixed;
    if (name == "swarm") return Mix::swarm;
    return std::nullopt;
}

template <class T>
using Weights = std::vector<std::pair<std::size_t, T>>;

// One element by weight (zero weights never drawn), shrinking toward the first.
template <class T>
rc::Gen<T> weighted_of(Weights<T> weights) {
    std::size_t total = 0;
    for (const auto& [weight, value] : weights) total += weight;
    return rc::gen::map(rc::gen::inRange<std::size_t>(0, total), [weights = std::move(weights)](std::size_t drawn) {
        for (const auto& [weight, value] : weights) {
            if (drawn < weight) return value;
            drawn -= weight;
        }
        return weights.back().second;
    });
}

// The kinds a swarm case keeps: `kept[i]` for the i-th weight, and every kind `always`
// names (`always[i]`, where given); none kept keeps them all.
template <class T>
Weights<T> kept_weights(const Weights<T>& weights, const std::vector<bool>& kept,
                        const std::vector<bool>& always = {}) {
    Weights<T> chosen;
    for (std::size_t i = 0; i < weights.size(); ++i)
        if (kept[i] || (i < always.size() && always[i])) chosen.push_back(weights[i]);
    return chosen.empty() ? weights : chosen;
}

// A case generator built by `build` from the generator of one operation kind. With the
// fixed mix this is exactly `build(weightedElement(weights))`, so fixed cases are the
// same as ever; with the swarm the kinds are drawn once for the whole case, and never
// shrunk (shrinking them would change every step at once). A kind `always` names is in
// every swarm case.
template <class T, class Build>
auto swarmed(std::initializer_list<std::pair<std::size_t, T>> list, Mix mix, Build build, std::vector<bool> always = {})
    -> decltype(build(rc::gen::weightedElement<T>(list))) {
    if (mix == Mix::fixed) return build(rc::gen::weightedElement<T>(list));
    Weights<T> weights(list);
    const std::size_t kinds = weights.size();
    return rc::gen::mapcat(
        rc::gen::noShrink(rc::gen::container<std::vector<bool>>(kinds, rc::gen::arbitrary<bool>())),
        [weights = std::move(weights), always = std::move(always), build](const std::vector<bool>& kept) {
            return build(weighted_of<T>(kept_weights(weights, kept, always)));
        });
}

}  // namespace moq::properties
