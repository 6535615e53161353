// A small route and preferences pair for group reads with a recover: the route serves
// one copy of the group at a time and may end with an error, the preferences carry the
// reader's budget. The core's unit tests (core/tests) and the group suite's driver
// (properties) both use it: it lives below both, over the core alone.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <variant>

#include "kio/cell.hpp"
#include "model/group.hpp"
#include "model/recover.hpp"

namespace moq::test {

struct TestRouteState {
    // A route: its state holds a group's consumer, so its lock comes before the group's.
    static constexpr kio::LockLevel lock_level = kio::LockLevel::route;
    std::uint64_t generation = 0;             // moves with every copy served and with the end
    std::optional<model::GroupCell> serving;  // the copy the route serves, if any
    std::optional<model::Error> end;          // the route ended: no copy will come

    // The two changes a route makes, each a new generation.
    void serve(model::GroupCell copy) {
        ++generation;
        serving = std::move(copy);
    }
    void end_with(model::Error error) {
        ++generation;
        end = error;
    }
};

struct TestPreferences {
    std::optional<kio::Duration> budget;
};

class TestRecover final : public model::Recover {
public:
    using Answer = std::variant<model::Replacement, model::Error>;

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

    kio::Poll<Answer> poll(std::size_t, std::optional<model::Error>, const kio::Waiter& waiter) override {
        const TestRouteState route = route_.read_and_watch(waiter, [](const TestRouteState& state) { return state; });
        if (route.end) return Answer(*route.end);
        if (!route.serving || route.generation == generation_) return kio::Poll<Answer>::pending();
        return Answer(model::Replacement{*route.serving, nullptr, route.generation});
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

// A recover that gives only the reader's budget: it never looks past the copy it has.
class BudgetRecover final : public model::Recover {
public:
    using Answer = std::variant<model::Replacement, model::Error>;

    explicit BudgetRecover(kio::Consumer<TestPreferences> preferences) : preferences_(std::move(preferences)) {}

    std::optional<kio::Duration> poll_budget(const kio::Waiter& waiter) override {
        return preferences_.read_and_watch(waiter, [](const TestPreferences& p) { return p.budget; });
    }
    bool wants(std::optional<model::Error>, const kio::Waiter&) override { return false; }
    kio::Poll<Answer> poll(std::size_t, std::optional<model::Error>, const kio::Waiter&) override {
        return kio::Poll<Answer>::pending();
    }
    void adopt(const model::Replacement&) override {}
    [[nodiscard]] std::unique_ptr<model::Recover> clone() const override {
        return std::make_unique<BudgetRecover>(preferences_);
    }

private:
    kio::Consumer<TestPreferences> preferences_;
};

}  // namespace moq::test
