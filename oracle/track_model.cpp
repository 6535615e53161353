#include "oracle/track_model.hpp"

#include <algorithm>

namespace moq::oracle {

std::string text(const TrackAnswer& answer) {
    switch (answer.kind) {
        case TrackAnswer::Kind::group: return "group " + std::to_string(answer.sequence);
        case TrackAnswer::Kind::end: return "a clean end";
        case TrackAnswer::Kind::error: return "error " + std::string(model::error_name(answer.error));
        case TrackAnswer::Kind::pending: return "nothing yet";
    }
    return "?";
}

// T1: refused once aborted, at or past the declared end, or when the sequence landed
// before (aborted or not).
bool TrackModel::create(std::uint64_t sequence) {
    if (abort_ || (final_ && sequence >= *final_) || groups_.contains(sequence)) return false;
    groups_.insert(sequence);
    arrival_.push_back(sequence);
    changed();
    return true;
}

// T2: once, not after an abort, and never below one past the newest group.
bool TrackModel::finish_at(std::optional<std::uint64_t> final_sequence) {
    if (final_ || abort_ || (final_sequence && *final_sequence < past_newest())) return false;
    final_ = final_sequence.value_or(past_newest());
    changed();
    return true;
}

// T3: the first error stands.
void TrackModel::abort(model::Error error) {
    if (abort_) return;
    abort_ = error;
    changed();
}

bool TrackModel::abort_group(std::uint64_t sequence) {
    if (!groups_.contains(sequence)) return false;
    if (aborted_.insert(sequence).second && held_ == sequence) held_changed_ = true;
    return true;
}

// T8: a floor never goes down.
void TrackModel::raise_floor(std::uint64_t floor) { floor_ = std::max(floor_, floor); }

// T7: every sequence from the floor to the declared end landed and was aborted, so none
// can land any more (T1 refuses a sequence that landed before).
bool TrackModel::nothing_can_land_from_floor() const {
    if (!final_) return false;
    for (std::uint64_t sequence = floor_; sequence < *final_; ++sequence)
        if (!groups_.contains(sequence)) return false;
    return true;
}

TrackAnswer TrackModel::expected() const {
    TrackAnswer next;
    if (walk_ == model::Walk::arrival) {
        // T4, T6: the next landing at or above the floor that is not aborted.
        for (std::size_t i = position_; i < arrival_.size(); ++i) {
            if (arrival_[i] < floor_ || !live(arrival_[i])) continue;
            next.kind = TrackAnswer::Kind::group;
            next.sequence = arrival_[i];
            next.arrival_index = i;
            return next;
        }
    } else {
        // T5, T6: the lowest live group at or above the floor.
        for (auto found = groups_.lower_bound(floor_); found != groups_.end(); ++found) {
            if (!live(*found)) continue;
            next.kind = TrackAnswer::Kind::group;
            next.sequence = *found;
            return next;
        }
    }
    // T7: the ends, once nothing live is left to offer.
    if (abort_) {
        next.kind = TrackAnswer::Kind::error;
        next.error = *abort_;
    } else if (final_ && (walk_ == model::Walk::arrival || *final_ <= floor_ || nothing_can_land_from_floor())) {
        next.kind = TrackAnswer::Kind::end;
    } else if (dropped_) {
        next.kind = TrackAnswer::Kind::error;
        next.error = model::Error::dropped;
    }
    return next;
}

std::optional<std::string> TrackModel::offered(std::uint64_t sequence, const TrackAnswer& next,
                                               const char* what) const {
    const std::string rule = aborted_.contains(sequence) ? "T6" : walk_ == model::Walk::arrival ? "T4" : "T5";
    if (stopped_) return "T7: group " + std::to_string(sequence) + " " + what + " after the walk ended";
    if (next.kind != TrackAnswer::Kind::group || next.sequence != sequence)
        return rule + ": the cursor " + what + " group " + std::to_string(sequence) + ", the model expected " +
               text(next) + where();
    return std::nullopt;
}

std::optional<std::string> TrackModel::took(std::uint64_t sequence) {
    const TrackAnswer next = expected();
    if (auto wrong = offered(sequence, next, "handed out")) return wrong;
    if (walk_ == model::Walk::arrival) {
        position_ = next.arrival_index + 1;
    } else {
        floor_ = sequence + 1;  // T5: never back
    }
    return std::nullopt;
}

std::optional<std::string> TrackModel::holding(std::uint64_t sequence) {
    if (auto wrong = offered(sequence, expected(), "peeked")) return wrong;
    held_ = sequence;
    held_changed_ = false;
    return std::nullopt;
}

std::optional<std::string> TrackModel::stopped(const TrackAnswer& got) {
    const TrackAnswer next = expected();
    const bool was_stopped = stopped_;
    stopped_ = true;
    if (was_stopped) return "T7: the cursor answered " + text(got) + " after the walk ended";
    if (next.kind != got.kind || (got.kind == TrackAnswer::Kind::error && next.error != got.error))
        return "T7: the cursor answered " + text(got) + ", the model expected " + text(next) + where();
    return std::nullopt;
}

std::optional<std::string> TrackModel::quiescent() const {
    if (stopped_) return std::nullopt;
    if (held_) {
        if (!held_changed_) return std::nullopt;
        return "T10: missed wake: the reader parked holding a peek of group " + std::to_string(*held_) +
               " and watching the cursor, and was not woken for a change since" + where();
    }
    const TrackAnswer next = expected();
    if (next.kind == TrackAnswer::Kind::pending) return std::nullopt;
    return "T10: missed wake: the reader is parked while the model has " + text(next) + " for it" + where();
}

std::string TrackModel::where() const {
    std::string aborted;
    for (const std::uint64_t sequence : aborted_) aborted += (aborted.empty() ? "" : ",") + std::to_string(sequence);
    return " (floor " + std::to_string(floor_) +
           (walk_ == model::Walk::arrival ? ", arrival position " + std::to_string(position_) : std::string()) +
           (aborted.empty() ? std::string() : ", aborted groups " + aborted) + ")";
}

}  // namespace moq::oracle
