// The track's reference model, written from the T rules of the spec as plainly as
// possible: the groups by sequence, their landing order, which are aborted, the declared
// end and the track's abort; one cursor's floor and arrival position. It learns only what
// the driver did (writes, with whether the track must accept them) and what the reader
// answered, and says what the reader must answer now.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/error.hpp"
#include "model/walk.hpp"

namespace moq::oracle {

// A cursor's answer, or what the model expects it to be.
struct TrackAnswer {
    enum class Kind { group, end, error, pending } kind = Kind::pending;
    std::uint64_t sequence = 0;
    std::size_t arrival_index = 0;  // arrival walks: where the group sits in landing order
    model::Error error = model::Error::cancel;
};

std::string text(const TrackAnswer& answer);

class TrackModel {
public:
    TrackModel(model::Walk walk, std::uint64_t floor) : walk_(walk), floor_(floor) {}

    // The producer's writes (T1-T3). Each says whether the track must accept it and, if
    // so, applies it.
    bool create(std::uint64_t sequence);
    bool finish_at(std::optional<std::uint64_t> final_sequence);
    void abort(model::Error error);
    // The producer went away without an end or an abort (T7).
    void dropped() {
        dropped_ = true;
        if (!abort_) changed();  // an aborted track is closed already
    }
    // One past the newest sequence: where append_group creates (T1).
    [[nodiscard]] std::uint64_t past_newest() const { return groups_.empty() ? 0 : *groups_.rbegin() + 1; }
    // A landed group's own producer aborted it (T6). False if no such group landed.
    bool abort_group(std::uint64_t sequence);

    // The reader's own change (T8).
    void raise_floor(std::uint64_t floor);

    // What the cursor must answer now.
    [[nodiscard]] TrackAnswer expected() const;

    // What the reader got; each returns a violation (starting with its rule id), if any.
    std::optional<std::string> took(std::uint64_t sequence);
    // Skipped after a peek: moves on as a take does (T9).
    std::optional<std::string> skipped(std::uint64_t sequence) { return took(sequence); }
    std::optional<std::string> stopped(const TrackAnswer& got);
    // The reader parks holding a peek of `sequence` (watching the cursor, T10); it
    // takes or drops it at its next poll.
    std::optional<std::string> holding(std::uint64_t sequence);
    void polled() { held_.reset(); }
    // Whether the reader is parked holding a peek of `sequence`, not yet aborted.
    [[nodiscard]] bool watching(std::uint64_t sequence) const { return held_ == sequence && live(sequence); }

    // With no task runnable and no deadline pending: a violation if the reader is owed
    // an answer it was never woken for.
    [[nodiscard]] std::optional<std::string> quiescent() const;
    [[nodiscard]] bool done() const { return stopped_; }
    [[nodiscard]] bool landed(std::uint64_t sequence) const { return groups_.contains(sequence); }

private:
    [[nodiscard]] bool live(std::uint64_t sequence) const { return !aborted_.contains(sequence); }
    [[nodiscard]] bool nothing_can_land_from_floor() const;
    [[nodiscard]] std::optional<std::string> offered(std::uint64_t sequence, const TrackAnswer& next,
                                                     const char* what) const;
    [[nodiscard]] std::string where() const;
    void changed() {
        if (held_) held_changed_ = true;
    }

    model::Walk walk_;
    std::set<std::uint64_t> groups_;
    std::set<std::uint64_t> aborted_;     // landed groups aborted since
    std::vector<std::uint64_t> arrival_;  // sequences in landing order
    std::optional<std::uint64_t> final_;
    std::optional<model::Error> abort_;
    bool dropped_ = false;
    std::uint64_t floor_;
    std::size_t position_ = 0;  // arrival walks: the next landing to look at
    bool stopped_ = false;
    std::optional<std::uint64_t> held_;  // the peek the reader parked holding
    bool held_changed_ = false;          // a change since that its watch must hear
};

}  // namespace moq::oracle
