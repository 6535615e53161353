// A small route and preferences pair for group tests: the route serves one copy of
// the group at a time, the preferences carry the reader's budget.
#pragma once

#include <memory>
#include <optional>

#include "kio/cell.hpp"
#include "model/group.hpp"
#include "model/recover.hpp"

namespace moq::test {

struct TestRouteState {
    std::uint64_t generation = 0;
    std::shared_ptr<model::GroupProducer> serving;
};

struct TestPreferences {
    std::optional<kio::Duration> budget;
};

class TestRecover final : public model::Recover {
public:
    TestRecover(kio::Consumer<TestRouteState> route, kio::Consumer<TestPreferences> preferences,
                std::uint64_t generation)
        : route_(std::move(route)), preferences_(std::move(preferences)), generation_(generation) {}

    std::optional<kio::Duration> poll_budget(const kio::Waiter& waiter) override {
        return preferences_.read_and_watch(waiter, [](const TestPreferences& p) { return p.budget; });
    }

    bool wants(std::optional<model::Error> failed, const kio::Waiter& waiter) override {
        const std::uint64_t now =
            route_.read_and_watch(waiter, [](const TestRouteState& state) { return state.generation; });
        if (failed && !model::is_verdict(*failed)) return true;
        return now != generation_;
    }

    kio::Poll<std::variant<model::Replacement, model::Error>> poll(std::size_t, std::optional<model::Error> failed,
                                                                  const kio::Waiter& waiter) override {
        auto [generation, serving] = route_.read_and_watch(waiter, [](const TestRouteState& state) {
            return std::pair(state.generation, state.serving);
        });
        if (!serving || (generation == generation_ && !failed) || generation == generation_)
            return kio::Poll<std::variant<model::Replacement, model::Error>>::pending();
        return std::variant<model::Replacement, model::Error>(
            model::Replacement{serving->consume().cell(), nullptr, generation});
    }

    void adopt(const model::Replacement& replacement) override { generation_ = replacement.generation; }

    [[nodiscard]] std::unique_ptr<model::Recover> clone() const override {
        return std::make_unique<TestRecover>(route_, preferences_, generation_);
    }

private:
    kio::Consumer<TestRouteState> route_;
    kio::Consumer<TestPreferences> preferences_;
    std::uint64_t generation_;
};

}  // namespace moq::test
