#include "model/track.hpp"

#include "kio/schedule_point.hpp"
#include "model/registering.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::model {

namespace {

// What every change of a track keeps, checked under its lock: each group landed once,
// in the landing order too; the newest sequence is the highest group's; the end lies
// past it. Integer compares only (a map's last entry is one step).
void check_track(const TrackState& state) {
    MOQ_ASSERT_EQ(state.groups.size(), state.arrival.size());
    if (state.groups.empty()) {
        MOQ_ASSERT(!state.max_sequence);
    } else {
        MOQ_ASSERT(state.max_sequence.has_value());
        MOQ_ASSERT_EQ(*state.max_sequence, state.groups.rbegin()->first);
        MOQ_ASSERT_EQ(state.groups.count(state.arrival.back()), 1u);
    }
    if (state.final_sequence && state.max_sequence) MOQ_ASSERT_GT(*state.final_sequence, *state.max_sequence);
}

}  // namespace

std::variant<GroupProducer, Error> TrackProducer::create_group(std::uint64_t sequence, GroupLimits limits) {
    return land(sequence, limits);
}

std::variant<GroupProducer, Error> TrackProducer::append_group(GroupLimits limits) {
    return land(std::nullopt, limits);
}

std::variant<GroupProducer, Error> TrackProducer::land(std::optional<std::uint64_t> at, GroupLimits limits) {
    std::optional<GroupProducer> created;
    std::optional<Error> refused;
    // One step: an append reads the newest sequence under the same lock it lands under,
    // so two appends never pick the same sequence.
    const bool open = cell_.modify_quietly([&](TrackState& state) {
        check_track(state);
        if (state.abort) {
            refused = *state.abort;
            return;
        }
        const std::uint64_t sequence = at ? *at : state.max_sequence ? one_past(*state.max_sequence) : 0;
        if (sequence > last_sequence) {
            refused = Error::too_large;
        } else if ((state.final_sequence && sequence >= *state.final_sequence) || state.groups.contains(sequence)) {
            refused = Error::closed;
        } else {
            created.emplace(sequence, limits);
            state.groups.emplace(sequence, created->consume());
            state.arrival.push_back(sequence);
            // A late landing, below the newest: a sequence walk past it never offers it (T5).
            MOQ_SOMETIMES("track.land.below_newest", state.max_sequence && sequence < *state.max_sequence);
            if (!state.max_sequence || sequence > *state.max_sequence) state.max_sequence = sequence;
            // Each group lands once, and once in the landing order cursors index into.
            MOQ_ASSERT_EQ(state.groups.size(), state.arrival.size());
            MOQ_ASSERT_LE(*state.max_sequence, last_sequence);
            check_track(state);
        }
    });
    if (!open) return Error::closed;
    if (refused) return *refused;
    if (MOQ_SITE("track.create_group.notify", notify)) cell_.notify();
    return std::move(*created);
}

std::optional<Error> TrackProducer::finish() { return finish_at(std::nullopt); }

std::optional<Error> TrackProducer::finish_at(std::uint64_t final_sequence) {
    return finish_at(std::optional<std::uint64_t>(final_sequence));
}

std::optional<Error> TrackProducer::finish_at(std::optional<std::uint64_t> final_sequence) {
    std::optional<Error> refused;
    const bool open = cell_.modify_quietly([&](TrackState& state) {
        const std::uint64_t past_newest = state.max_sequence ? one_past(*state.max_sequence) : 0;
        if (state.final_sequence || state.abort || (final_sequence && *final_sequence < past_newest)) {
            refused = Error::closed;
        } else {
            state.final_sequence = final_sequence.value_or(past_newest);
            // Every group that landed lies below the end.
            MOQ_ASSERT_GE(*state.final_sequence, past_newest);
        }
        check_track(state);
    });
    if (!open) return Error::closed;
    if (!refused && MOQ_SITE("track.finish.notify", notify)) cell_.notify();
    return refused;
}

void TrackProducer::abort(Error error) {
    const bool open = cell_.modify_quietly([&](TrackState& state) {
        if (!state.abort) state.abort = error;
        // The first abort stays: a later one changes nothing.
        MOQ_ASSERT(state.abort.has_value());
        check_track(state);
    });
    if (open && MOQ_SITE("track.abort.notify", notify)) cell_.close();
}

TrackConsumer TrackProducer::consume() const { return TrackConsumer(cell_.consume()); }

std::optional<std::uint64_t> TrackProducer::latest() const {
    return cell_.read([](const TrackState& state) { return state.max_sequence; });
}

TrackCursor TrackConsumer::cursor(Walk walk, std::uint64_t floor) const { return TrackCursor(*this, walk, floor); }

std::optional<std::uint64_t> TrackConsumer::latest() const {
    return cell_.read([](const TrackState& state) { return state.max_sequence; });
}

kio::Poll<Next<GroupConsumer>> TrackConsumer::poll_group(std::uint64_t sequence, const kio::Waiter& waiter) const {
    auto answer = cell_.poll(waiter, [&](const TrackState& state) -> std::optional<Next<GroupConsumer>> {
        if (auto found = state.groups.find(sequence); found != state.groups.end())
            return Next<GroupConsumer>(found->second);
        if (state.abort) return Next<GroupConsumer>(*state.abort);
        if (state.final_sequence && sequence >= *state.final_sequence) {
            // The copy finished short of this group: a recover's lookup is refused (R14).
            MOQ_PROBE("track.poll_group.past_end");
            return Next<GroupConsumer>(Error::not_found);
        }
        return std::nullopt;
    });
    if (answer.is_ready()) return std::move(answer.value());
    if (answer.is_closed()) return Next<GroupConsumer>(Error::dropped);
    return kio::Poll<Next<GroupConsumer>>::pending();
}

kio::Poll<Next<const Peek*>> TrackCursor::peek_walk(const kio::Waiter& waiter) {
    if (peeked_ && walk_ == Walk::arrival) {
        if (!peeked_->group.aborted()) return Next<const Peek*>(&*peeked_);
        // Aborted since it was peeked: skipped like any aborted landing.
        MOQ_PROBE("track.peek.held_peek_aborted");
        peeked_.reset();
        ++arrival_index_;
    }
    peeked_.reset();
    // A walk starts with nothing peeked: only a Ready walk leaves a peek behind.
    MOQ_ASSERT(!peeked_);
    return reads_.walk(waiter, walk_, MOQ_SITE("track.gate.setup", gate),
                       [&](const kio::Waiter& through) { return walk_once(through); });
}

kio::Poll<Next<const Peek*>> TrackCursor::walk_once(const kio::Waiter& waiter) {
    const kio::Waiter& registered = registering(MOQ_SITE("track.cursor.register", register_input), waiter);
    auto answer = track_.cell().poll(registered, [&](const TrackState& state) -> std::optional<Next<std::monostate>> {
        return walk_arrival_or_sequence(state);
    });
    if (answer.is_closed()) return Next<const Peek*>(Error::dropped);
    if (answer.is_pending()) return kio::Poll<Next<const Peek*>>::pending();
    if (answer.value().is_item()) return Next<const Peek*>(&*peeked_);
    if (answer.value().is_end()) return Next<const Peek*>(End{});
    return Next<const Peek*>(answer.value().error());
}

// Runs under the track's lock; each group's abort is read under that group's lock, always
// in that order, so the check and the walk's registration on the track are one step.
std::optional<Next<std::monostate>> TrackCursor::walk_arrival_or_sequence(const TrackState& state) {
    seen_ = seen_in(state);
    if (walk_ == Walk::arrival) {
        // The landing order only grows: a cursor's index never runs past it.
        MOQ_ASSERT_LE(arrival_index_, state.arrival.size());
        for (; arrival_index_ < state.arrival.size(); ++arrival_index_) {
            const std::uint64_t sequence = state.arrival[arrival_index_];
            if (sequence < floor_) continue;
            const GroupConsumer& group = state.groups.at(sequence);
            if (group.aborted()) {
                MOQ_PROBE("track.arrival.aborted_group_skipped");
                continue;
            }
            MOQ_ASSERT_GE(sequence, floor_);
            peeked_.emplace(Peek{sequence, group});
            return Next<std::monostate>(std::monostate{});
        }
        // Past every landing: nothing is peeked, and the next walk starts where this ended.
        MOQ_ASSERT_EQ(arrival_index_, state.arrival.size());
        MOQ_ASSERT(!peeked_);
        if (state.abort) return Next<std::monostate>(*state.abort);
        if (state.final_sequence) return Next<std::monostate>(End{});
        return std::nullopt;
    }
    // The lowest live group at or above the floor. Aborted ones are skipped; while they
    // fill every sequence from the floor on, nothing below the end can land any more.
    std::uint64_t covered_to = floor_;
    for (auto next = state.groups.lower_bound(floor_); next != state.groups.end(); ++next) {
        if (!next->second.aborted()) {
            MOQ_ASSERT_GE(next->first, floor_);
            peeked_.emplace(Peek{next->first, next->second});
            return Next<std::monostate>(std::monostate{});
        }
        // Aborted: skipped, with no floor moved (T6).
        MOQ_PROBE("track.sequence.aborted_group_skipped");
        if (next->first == covered_to) ++covered_to;
    }
    MOQ_ASSERT_GE(covered_to, floor_);
    MOQ_ASSERT(!peeked_);
    if (state.abort) return Next<std::monostate>(*state.abort);
    // Only aborted groups fill the sequences from the floor to the end: nothing can land, it ends (T7).
    MOQ_SOMETIMES("track.sequence.ends_past_aborted_groups",
                  covered_to > floor_ && state.final_sequence && *state.final_sequence <= covered_to);
    if (state.final_sequence && *state.final_sequence <= covered_to) return Next<std::monostate>(End{});
    return std::nullopt;
}

void TrackCursor::watch(const kio::Waiter& waiter) const {
    // Registered and compared under one lock: a change after it wakes `waiter`, one
    // before it is seen here.
    bool changed = track_.cell().read_and_watch(waiter, [&](const TrackState& state) {
        // The track's end was declared while this cursor held its peek (T10).
        MOQ_SOMETIMES("track.watch.end_while_peek_held", peeked_ && state.final_sequence && !seen_.ended);
        return seen_in(state) != seen_;
    });
    // A group closes when aborted or when its producer goes unfinished; only an abort
    // changes what the cursor answers next (T6).
    if (peeked_ && MOQ_SITE("track.peek.register", register_input) &&
        peeked_->group.cell().poll_closed(waiter).is_ready())
        changed |= peeked_->group.aborted();
    // Outside every lock. The caller's walk is still running, so the wake also keeps its
    // gate from arming: its next poll walks and sees the change.
    // A change since the peeking walk that no registration of the caller heard: woken at once (T10).
    MOQ_SOMETIMES("track.watch.changed_since_walk", changed);
    if (changed && MOQ_SITE("track.watch.changed_wake", notify)) waiter.waker().wake();
}

std::optional<Peek> TrackCursor::take() {
    if (!peeked_) return std::nullopt;
    std::optional<Peek> taken = std::move(peeked_);
    peeked_.reset();
    if (walk_ == Walk::arrival) {
        // An arrival peek is the landing at the index: the index moves past it alone.
        MOQ_ASSERT_GE(taken->sequence, floor_);
        ++arrival_index_;
    } else {
        // Floors only rise: a sequence peek lies at or above the floor.
        MOQ_ASSERT_GE(taken->sequence, floor_);
        floor_ = one_past(taken->sequence);
        MOQ_ASSERT_GT(floor_, taken->sequence);
    }
    MOQ_ASSERT(!peeked_);
    // No disarm: the peek that found this group answered Ready, which left the gate
    // unarmed, and the next peek walks anyway.
    return taken;
}

void TrackCursor::skip() { take(); }

void TrackCursor::raise_floor(std::uint64_t floor) {
    if (floor <= floor_) return;
    floor_ = floor;
    MOQ_ASSERT_EQ(floor_, floor);
    // A peek below the new floor is dropped (T8).
    MOQ_SOMETIMES("track.raise_floor.drops_peek", peeked_ && peeked_->sequence < floor_);
    if (peeked_ && peeked_->sequence < floor_) peeked_.reset();
    MOQ_ASSERT(!peeked_ || peeked_->sequence >= floor_);
    if (MOQ_SITE("track.raise_floor.disarm", disarm)) disarm();
}

}  // namespace moq::model
