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
    std::atomic<std::uint64_t> polls{0};  // meters built: polls that walked
    // Payload bytes of the whole frames read from the groups handed out, counted by each
    // group as it is read (a frame taken by poll_next_frame is read in chunks, uncounted).
    std::shared_ptr<std::atomic<std::uint64_t>> bytes = std::make_shared<std::atomic<std::uint64_t>>(0);
};

// Built for each read that may hand something out; counts into the shared stats.
class Meter {
public:
    explicit Meter(std::shared_ptr<TrackStats> stats) : stats_(std::move(stats)) {
        stats_->polls.fetch_add(1, std::memory_order_relaxed);
    }
    // Counts a group handed out, and meters the bytes read from it.
    void count_group(GroupConsumer& group) {
        stats_->groups.fetch_add(1, std::memory_order_relaxed);
        group.with_meter(stats_->bytes);
    }

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
