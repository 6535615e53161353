// The resume reader's reference model, written as plainly as possible: sets and maps,
// no wakes, no gates. It is told the history of operations (groups landing in copies,
// the route moving, copies finishing or dying, ranges, time) and what the reader did, and
// answers what the reader may hand out (safety, after every take) and what it must have
// done once the system is quiet (liveness).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kio/clock.hpp"
#include "model/error.hpp"
#include "model/walk.hpp"

namespace moq::oracle {

class ResumeModel {
public:
    static constexpr int copy_count = 3;

    ResumeModel(model::Walk walk, kio::Duration grace) : walk_(walk), grace_(grace) {}

    // The history, as the driver applies it. `landed` and `finished` answer whether the
    // track accepts the write, which the driver compares with what the real track said.
    bool landed(int copy, std::uint64_t sequence, kio::Instant now);
    bool finished(int copy, kio::Instant now);
    void killed(int copy, kio::Instant now);
    void served(int copy, kio::Instant now);
    void parked(kio::Instant now);
    void ended(std::optional<model::Error> error, kio::Instant now);
    void range_set(std::uint64_t start, std::optional<std::uint64_t> end, kio::Instant now);
    // A nested route moved the handed-out floor of a sequence walk (skip_ordered).
    void skipped(std::uint64_t floor, kio::Instant now);
    void touched(kio::Instant now) { last_event_ = now; }  // any other input that may matter

    // What the reader did. Each returns a violation, if any.
    // A poll begins, its walks following `route_generation` or a later one. An end the
    // poll reports is judged against every state the system passed through since (the
    // walk may have read the copies before a later write landed).
    void poll_started(std::uint64_t route_generation);
    // After every poll: the route generation its walks have followed, and the highest
    // sequence it had handed out before that poll.
    void observed(std::uint64_t route_generation, std::optional<std::uint64_t> newest_before, kio::Instant now);
    std::optional<std::string> took(std::uint64_t sequence, std::uint64_t from_generation,
                                    std::uint64_t route_generation, kio::Instant now);
    // The reader ended. Its last walk followed `route_generation`: the end must be one the
    // model allows under that generation or a later one (the walk read the route first).
    std::optional<std::string> stopped(std::optional<model::Error> error, std::uint64_t route_generation,
                                       kio::Instant now);
    // With no task runnable and no deadline pending.
    [[nodiscard]] std::optional<std::string> quiescent(kio::Instant now) const;

    [[nodiscard]] std::optional<std::uint64_t> newest() const { return newest_; }
    [[nodiscard]] const std::vector<std::uint64_t>& handed_out() const { return handed_out_; }

private:
    struct Copy {
        std::set<std::uint64_t> groups;
        std::optional<std::uint64_t> final_sequence;  // set when finished
        bool finished = false;
        bool killed = false;
    };

    [[nodiscard]] bool in_range(std::uint64_t sequence) const;
    // The last sequence a sequence walk handed out or skipped past.
    [[nodiscard]] std::optional<std::uint64_t> sequence_floor() const;
    [[nodiscard]] std::optional<int> serving(std::uint64_t generation) const;
    // Groups of the copy serving `generation` the reader must still hand out before it may park.
    [[nodiscard]] std::vector<std::uint64_t> owed(std::uint64_t generation) const;
    [[nodiscard]] bool range_exhausted() const;
    // The ends (nullopt: clean) the reader may report under `generation`. A copy killed
    // after it finished may still end a walk cleanly that saw it before the kill
    // (`finish_wins`), but not one that reads it now.
    [[nodiscard]] std::vector<std::optional<model::Error>> allowed_ends(std::uint64_t generation,
                                                                      bool finish_wins) const;

    model::Walk walk_;
    kio::Duration grace_;
    std::array<Copy, copy_count> copies_;
    std::uint64_t generation_ = 0;
    std::map<std::uint64_t, std::optional<int>> copy_of_generation_;  // none: parked
    std::optional<std::optional<model::Error>> end_;
    std::uint64_t range_start_ = 0;
    std::optional<std::uint64_t> range_end_;
    kio::Instant last_event_{};

    std::uint64_t seen_generation_ = 0;
    std::map<std::uint64_t, std::optional<std::uint64_t>> newest_at_adoption_;  // per generation
    std::map<std::uint64_t, std::optional<std::uint64_t>> until_bound_;        // per replaced generation
    std::vector<std::uint64_t> handed_out_;
    std::set<std::uint64_t> delivered_;
    std::optional<std::uint64_t> newest_;
    std::optional<std::uint64_t> skipped_;
    bool stopped_ = false;
    std::uint64_t window_generation_ = 0;
    std::vector<std::optional<model::Error>> window_ends_;  // ends allowed since the poll began
    void widen_window();
};

}  // namespace moq::oracle
