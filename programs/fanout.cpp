#include "programs/fanout.hpp"

#include <utility>
#include <variant>

#include "model/walk.hpp"
#include "util/mutation.hpp"

namespace moq::programs {

kio::Poll<kio::Done> Publisher::poll(const kio::Waiter& waiter) {
    bool landed_one = false;
    for (;;) {
        auto pace = pace_.poll(waiter, [&](const Pace& now) -> std::optional<Pace> {
            if (now.groups > landed_ || now.last) return now;
            return std::nullopt;
        });
        if (pace.is_pending()) return kio::Poll<kio::Done>::pending();
        // A closed pace went away with its track: nothing is left to publish to.
        if (pace.is_closed()) return kio::Done{};
        bool more = pace.value().groups > landed_;
        // The fault this point guards against: a publisher that finishes the track as
        // soon as it is told to, with allowed groups still to land.
        if (pace.value().last && !MOQ_SITE("fanout.publisher.land_before_finish", fault)) more = false;
        if (more && landed_one) {
            // Yields: the next group lands in the next poll.
            waiter.waker().wake();
            return kio::Poll<kio::Done>::pending();
        }
        if (!more) break;
        land();
        landed_one = true;
    }
    listener_->finishing();
    const bool accepted = !track_->track().finish();
    listener_->finished(accepted);
    return kio::Done{};
}

void Publisher::land() {
    listener_->landing(landed_);
    auto appended = track_->track().append_group();
    std::optional<std::uint64_t> sequence;
    if (auto* group = std::get_if<model::GroupProducer>(&appended)) {
        sequence = group->sequence();
        group->write_frame(payload_(*sequence));
        group->finish();
    }
    ++landed_;
    listener_->landed(sequence);
}

kio::Poll<kio::Done> Viewer::poll(const kio::Waiter& waiter) {
    take_groups(waiter);
    if (!read_groups(waiter)) return kio::Poll<kio::Done>::pending();
    if (!ended_) return kio::Poll<kio::Done>::pending();
    return kio::Done{};
}

void Viewer::take_groups(const kio::Waiter& waiter) {
    while (!ended_) {
        listener_->polling(index_);
        const std::uint64_t walks_before = subscriber_.reader().walk_counter(model::Walk::arrival).walks;
        auto got = subscriber_.poll_group(waiter, model::Walk::arrival);
        const std::uint64_t walks = subscriber_.reader().walk_counter(model::Walk::arrival).walks;
        listener_->polled(index_, walks != walks_before, walks);
        if (got.is_pending()) {
            listener_->pending(index_, walks != walks_before);
            return;
        }
        if (got.value().is_item()) {
            model::GroupConsumer& group = got.value().item();
            listener_->group(index_, group.sequence(), subscriber_.reader().taken_from());
            taken_.push_back(std::move(group));
            continue;
        }
        ended_ = true;
        listener_->ended(index_, got.value().is_end() ? std::nullopt : std::optional(got.value().error()));
    }
}

bool Viewer::read_groups(const kio::Waiter& waiter) {
    while (!taken_.empty()) {
        model::GroupConsumer& group = taken_.front();
        if (!reading_front_) {
            reading_front_ = true;
            listener_->reading(index_, group.sequence());
        }
        auto frame = group.poll_read_frame(waiter);
        if (frame.is_pending()) return false;
        if (frame.value().is_item()) {
            listener_->frame(index_, group.sequence(), *frame.value().item());
            continue;
        }
        listener_->group_ended(index_, group.sequence(),
                               frame.value().is_end() ? std::nullopt : std::optional(frame.value().error()));
        taken_.pop_front();
        reading_front_ = false;
    }
    return true;
}

}  // namespace moq::programs
