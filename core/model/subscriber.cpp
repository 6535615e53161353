#include "model/subscriber.hpp"

#include "util/assert.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::model {

kio::Poll<Next<GroupConsumer>> TrackSubscriber::group_walk(const kio::Waiter& waiter, Walk walk) {
    Meter meter(stats_);
    auto peek = reader_.poll_peek_group(waiter, walk);
    if (peek.is_pending()) return kio::Poll<Next<GroupConsumer>>::pending();
    if (peek.value().is_end()) return Next<GroupConsumer>(End{});
    if (peek.value().is_error()) {
        // The reader's error is the subscriber's (S3).
        MOQ_PROBE("subscriber.walk.ended_with_error");
        return Next<GroupConsumer>(peek.value().error());
    }
    const std::uint64_t sequence = peek.value().item()->sequence;
    std::optional<GroupConsumer> group = reader_.take();
    // A Ready peek is in hand until taken: the take hands out that very group.
    MOQ_ASSERT(group.has_value());
    MOQ_ASSERT_EQ(group->sequence(), sequence);
    meter.count_group(*group);
    return Next<GroupConsumer>(std::move(*group));
}

}  // namespace moq::model
