#include "model/subscriber.hpp"

#include "util/mutation.hpp"

namespace moq::model {

kio::Poll<Next<GroupConsumer>> TrackSubscriber::poll_group(const kio::Waiter& waiter, Walk walk) {
    // Checked here too, ahead of the meter: the reader's own check would only come after.
    if (MOQ_SITE("subscriber.gate.check", gate) && reader_.parked(waiter, walk))
        return kio::Poll<Next<GroupConsumer>>::pending();
    Meter meter(stats_);
    auto peek = reader_.poll_peek_group(waiter, walk);
    if (peek.is_pending()) return kio::Poll<Next<GroupConsumer>>::pending();
    if (peek.value().is_end()) return Next<GroupConsumer>(End{});
    if (peek.value().is_error()) return Next<GroupConsumer>(peek.value().error());
    std::optional<GroupConsumer> group = reader_.take();
    meter.count_group();
    return Next<GroupConsumer>(std::move(*group));
}

}  // namespace moq::model
