// The track subscriber an export polls: groups from a resume reader, counted by a stats
// meter. The gate is checked before the meter is built, so an idle poll costs neither.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "model/group.hpp"
#include "model/next.hpp"
#include "model/resume.hpp"
#include "model/walk.hpp"
#include "util/mutation.hpp"

namespace moq::model {

// What a subscriber handed out, shared by every meter built from it.
struct TrackStats {
    std::atomic<std::uint64_t> groups{0};
    std::atomic<std::uint64_t> polls{0};
};

// Built for each read that may hand something out; counts into the shared stats.
class Meter {
public:
    explicit Meter(std::shared_ptr<TrackStats> stats) : stats_(std::move(stats)) {
        stats_->polls.fetch_add(1, std::memory_order_relaxed);
    }
    void count_group() { stats_->groups.fetch_add(1, std::memory_order_relaxed); }

private:
    std::shared_ptr<TrackStats> stats_;
};

class TrackSubscriber {
public:
    explicit TrackSubscriber(ResumeReader reader) : reader_(std::move(reader)) {}

    // Checks the reader's gate inline, ahead of the meter and of any call.
    kio::Poll<Next<GroupConsumer>> poll_group(const kio::Waiter& waiter, Walk walk) {
        if (MOQ_SITE("subscriber.gate.check", gate) && reader_.parked(waiter, walk))
            return kio::Poll<Next<GroupConsumer>>::pending();
        return group_walk(waiter, walk);
    }

    [[nodiscard]] ResumeReader& reader() { return reader_; }
    [[nodiscard]] const TrackStats& stats() const { return *stats_; }

private:
    kio::Poll<Next<GroupConsumer>> group_walk(const kio::Waiter& waiter, Walk walk);

    ResumeReader reader_;
    std::shared_ptr<TrackStats> stats_ = std::make_shared<TrackStats>();
};

}  // namespace moq::model
