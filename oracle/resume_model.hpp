// The resume reader's reference model, written from the R rules of docs/SPEC.md as
// plainly as possible: sets and maps, no wakes, no gates. It learns only the history: the
// driver's operations in order (with virtual time), the reader's own changes (range,
// skip), and the reader's answers (Pending, a group with the frames read from it, an end
// or an error). It never reads the reader's internals; the reader's configuration (its
// grace and delivered window) it is given as the driver set it.
//
// A poll spans a window of driver operations: the reader may have read the route and each
// copy at any point of that window. The model keeps every reader state the rules allow
// (which route generation each poll adopted, and the bounds on each replaced copy's
// `until`) and narrows them with each answer. Every violation starts with its rule id.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kio/time.hpp"
#include "model/error.hpp"
#include "model/walk.hpp"

namespace moq::oracle {

class ResumeModel {
public:
    static constexpr int copy_count = 3;

    // The reader's configuration as the driver set it: its grace (R8) and how many
    // handed-out sequences an arrival walk remembers (R5, R8, R12).
    ResumeModel(model::Walk walk, kio::Duration grace, std::uint64_t delivered_window = 1024);

    // The payload the driver writes into the one frame of every group it lands: the copy's
    // letter and the sequence ("B:3").
    static std::string payload(int copy, std::uint64_t sequence);

    // The driver's operations, each told right before the real one (a wake inside it may
    // run the reader at once). `land` and `finish` answer whether a track must accept the
    // write.
    // `land` writes the group's one frame and finishes it: a new group, or one that
    // `open` landed before its frame (R2).
    bool land(int copy, std::uint64_t sequence, kio::Instant now);
    bool open(int copy, std::uint64_t sequence, kio::Instant now);
    bool finish(int copy, kio::Instant now);
    void kill(int copy, kio::Instant now);
    // One landed group of a copy aborted (R17); answers whether the copy had it.
    bool abort_group(int copy, std::uint64_t sequence, kio::Instant now);
    void serve(int copy, kio::Instant now);
    void park(kio::Instant now);
    void end(std::optional<model::Error> error, kio::Instant now);
    void touch(kio::Instant now);  // time moved or the preferences changed
    // The real operation told last has returned: every wake it sent has been delivered.
    void operation_done() { under_way_ = false; }

    // The reader's own changes, made by its task before a poll.
    void range_set(std::uint64_t start, std::optional<std::uint64_t> end);
    void skipped(std::uint64_t floor);

    // The reader's answers. A poll begins; its answer comes once the poll returns.
    void poll_begun();
    // `walked`: the read walked; an idle gate's answer (no walk) changed nothing of the
    // reader's (I1): a wake still under way inside an operation may poll the reader
    // before its gate has fired.
    void answered_pending(kio::Instant now, bool walked = true);
    // `landing`: the copy whose land of this group was under way when the reader took it
    // (its read may have stalled and continued from the serving copy, R6, R14).
    std::optional<std::string> answered_group(std::uint64_t sequence, const std::vector<std::string>& frames,
                                              kio::Instant now, std::optional<int> landing = std::nullopt);
    // A group handed out and handed on unread: its frames come through `group_frame`.
    std::optional<std::string> answered_unread_group(std::uint64_t sequence, kio::Instant now,
                                                     std::optional<int> landing = std::nullopt);
    std::optional<std::string> answered_end(std::optional<model::Error> error, kio::Instant now);
    // R6/R14: the rest of a handed-out group's read, after `answered_group` told its take
    // and the frames read then; it may go on in another task, parking, through the group's
    // recover. Each further frame, then its ending (a clean end or an error).
    // The read is polled from now on (until then a read at quiescence is not judged).
    void group_read_begins(std::uint64_t sequence);
    std::optional<std::string> group_frame(std::uint64_t sequence, const std::string& frame);
    std::optional<std::string> group_ended(std::uint64_t sequence, std::optional<model::Error> error);
    // With no task runnable and no deadline pending, the reader parked.
    [[nodiscard]] std::optional<std::string> quiescent(kio::Instant now) const;

    [[nodiscard]] std::size_t belief_count() const { return beliefs_.size(); }
    [[nodiscard]] std::size_t open_group_reads() const { return group_reads_.size(); }

private:
    // A copy of the track as the driver made it; `at` values are operation indexes.
    struct Track {
        std::map<std::uint64_t, std::size_t> landed;   // sequence -> the operation that landed it
        std::map<std::uint64_t, std::size_t> written;  // sequence -> the operation that wrote its frame
        std::optional<std::size_t> finished_at;
        std::optional<std::uint64_t> final_sequence;
        std::optional<std::size_t> killed_at;
        std::map<std::uint64_t, std::size_t> aborted;  // sequence -> the operation that aborted it
    };
    // One route generation: the copy it serves (none: parked) and when it began.
    struct Generation {
        std::optional<int> copy;
        std::size_t at = 0;
    };
    // A copy as one possible reader state holds it (R3, R4).
    struct HeldCopy {
        int copy = 0;
        std::uint64_t generation = 0;
        std::uint64_t start = 0;  // the newest handed out when it was adopted
        bool replaced = false;
        // The bounds on `until` (R4): the copy's latest at some point of the adopting window.
        std::optional<std::uint64_t> until_low, until_high;
        kio::Instant grace_deadline{};
        friend bool operator==(const HeldCopy&, const HeldCopy&) = default;
    };
    // One reader state the history allows.
    struct Belief {
        std::uint64_t generation = 0;  // the route generation last adopted
        std::vector<HeldCopy> copies;  // oldest first
        friend bool operator==(const Belief&, const Belief&) = default;
    };
    // The route as read at one point of a window.
    struct RouteView {
        std::uint64_t generation = 0;
        std::optional<std::optional<model::Error>> end;
    };

    [[nodiscard]] std::size_t now_at() const { return operations_; }
    std::size_t next_operation();
    [[nodiscard]] bool has(int copy, std::uint64_t sequence, std::size_t at) const;
    // The copy's group has its frame (a group that landed open does not, yet).
    [[nodiscard]] bool written(int copy, std::uint64_t sequence, std::size_t at) const;
    [[nodiscard]] bool finished(int copy, std::size_t at) const;
    // R17: the copy's group was aborted by operation `at`.
    [[nodiscard]] bool aborted(int copy, std::uint64_t sequence, std::size_t at) const;
    [[nodiscard]] bool killed(int copy, std::size_t at) const;
    [[nodiscard]] std::optional<std::uint64_t> latest(int copy, std::size_t at) const;
    [[nodiscard]] RouteView route_at(std::size_t at) const;
    [[nodiscard]] std::uint64_t generation_at(std::size_t at) const;

    // R3/R4: the states a poll whose window is [from, to] may leave, from `belief`.
    [[nodiscard]] std::vector<Belief> adopt(const Belief& belief, std::size_t from, std::size_t to,
                                            kio::Instant now) const;
    [[nodiscard]] Belief adopt_at(const Belief& belief, std::uint64_t generation, std::size_t read_at, std::size_t to,
                                  kio::Instant now) const;
    // The adopted states of the poll now answering.
    [[nodiscard]] std::vector<Belief> window_beliefs(kio::Instant now) const;
    void keep(std::vector<Belief> beliefs);

    // R5: handed out at most once / above the floor; within the range.
    [[nodiscard]] bool fresh(std::uint64_t sequence) const;
    // R5: an arrival walk handed it out, or forgot it and everything below it.
    [[nodiscard]] bool handed_out(std::uint64_t sequence) const {
        return sequence < delivered_floor_ || delivered_.contains(sequence);
    }
    [[nodiscard]] bool in_range(std::uint64_t sequence) const;
    [[nodiscard]] std::uint64_t cursor_floor(const HeldCopy& copy) const;
    // Why `copy` may not supply `sequence` (by operation `at`), or nothing if it may.
    // An abort by `aborted_by` (default: `at`) refuses it too (R17).
    [[nodiscard]] std::optional<std::string> refuses(const HeldCopy& copy, std::uint64_t sequence, std::size_t at,
                                                     std::optional<std::size_t> aborted_by = std::nullopt) const;
    [[nodiscard]] std::vector<Belief> suppliers(const Belief& belief, int copy, std::uint64_t sequence,
                                                std::optional<std::string>& reason) const;
    // R6/R14/R17: the copies that may have supplied `sequence`, read as `frames`.
    [[nodiscard]] std::vector<int> supplier_copies(std::uint64_t sequence, const std::vector<std::string>& frames,
                                                   std::optional<int> landing,
                                                   std::optional<std::string>& reason) const;
    [[nodiscard]] const HeldCopy* serving(const Belief& belief) const;
    // R7: groups of the serving copy the reader owes at operation `at`.
    [[nodiscard]] std::vector<std::uint64_t> owed(const Belief& belief, std::size_t at,
                                                  std::optional<std::size_t> aborted_by = std::nullopt) const;
    // Which values of a copy's `until` (between the bounds the adopting poll allows) a
    // judgement must hold for: some (may the reader wait?) or every (must it?).
    enum class Until : std::uint8_t { some, every };
    // R8: a replaced copy within its grace may still land a group the read needs.
    // `copy`'s `until` fixed at its upper bound.
    [[nodiscard]] bool may_land(const HeldCopy& copy, std::size_t at, std::optional<std::uint64_t> below) const;
    // R8: a replaced copy whose track finished, once its cursor went past all it had, or failed.
    [[nodiscard]] bool replaced_done(const HeldCopy& copy, std::size_t at) const;
    // When a walk read a replaced copy for R8: its end at the copy's scan, at some
    // operation from `scanned_from` on (each copy is scanned at a point of its own, after
    // the serving copy), and what it may still land at the let-go after every scan.
    struct Looked {
        std::size_t scanned_from = 0;
        std::size_t judged = 0;
    };
    // R8: retained for some, or every, `until` the adopting poll allows and scan point.
    [[nodiscard]] bool copy_retained(const HeldCopy& copy, Looked looked, kio::Instant now,
                                     std::optional<std::uint64_t> below, Until which) const;
    [[nodiscard]] std::vector<Belief> let_go(const Belief& belief, kio::Instant now) const;
    [[nodiscard]] bool retained(const Belief& belief, Looked looked, kio::Instant now,
                                std::optional<std::uint64_t> below, Until which = Until::some) const;
    [[nodiscard]] bool range_exhausted() const;
    // R12: groups an arrival walk may hold past the range's end, and whether one still counts.
    void note_held(const std::vector<Belief>& beliefs);
    [[nodiscard]] bool may_hold() const;
    // R12: a group the bound on held groups may have dropped (as many lower ones may have
    // been held at once); it is then never handed out by holding. Only under the reading
    // that takes such groups as dropped (`Dropped`); the other reading keeps them.
    [[nodiscard]] bool may_be_dropped(int copy, std::uint64_t sequence) const;
    // Sets the reading of the held bound for as long as it lives: a judgement an answer
    // must meet accepts either reading (R12).
    class Dropped {
    public:
        Dropped(const ResumeModel& model, bool dropped) : model_(model), previous_(model.dropped_reading_) {
            model_.dropped_reading_ = dropped;
        }
        ~Dropped() { model_.dropped_reading_ = previous_; }
        Dropped(const Dropped&) = delete;
        Dropped& operator=(const Dropped&) = delete;

    private:
        const ResumeModel& model_;
        bool previous_;
    };
    // R10-R13: the ends a walk may answer with the route read as `route` and copies at `at`.
    // The copies read at `at`, what a replaced copy may still land judged at `retained_at`.
    [[nodiscard]] std::vector<std::optional<model::Error>> ends(const Belief& belief, const RouteView& route,
                                                                std::size_t at, std::size_t retained_at,
                                                                kio::Instant now) const;
    [[nodiscard]] std::optional<std::string> serving_done(const Belief& belief, std::size_t at,
                                                          std::optional<model::Error>& error) const;
    // quiescent under one reading of the held bound (R12).
    [[nodiscard]] std::optional<std::string> quiescent_reading(kio::Instant now, bool dropped) const;

    // A take judged with the copies that may have supplied it and the frames read then.
    std::optional<std::string> taken(std::uint64_t sequence, const std::vector<int>& copies, std::size_t frames,
                                     kio::Instant now, std::optional<std::string> reason);
    // A handed-out group whose read has not ended (R6, R14).
    struct GroupRead {
        std::size_t taken_at = 0;    // the operation index of its take
        std::vector<int> suppliers;  // the copies that may have supplied it
        std::size_t frames = 0;      // frames read so far
        bool polled = true;          // false while handed on and not yet read
    };
    // Whether `copy` may hand frames to the read of `read`: a supplier, or a copy the
    // route served at or after its take (its recover follows the route).
    [[nodiscard]] bool may_continue_from(const GroupRead& read, int copy) const;
    // Why a group read parked now has missed a wake, if it has (R14): stalled on a group
    // landed open, or failed, it may wait only where its recover would.
    [[nodiscard]] std::optional<std::string> group_read_parked(std::uint64_t sequence) const;

    model::Walk walk_;
    kio::Duration grace_;
    std::uint64_t delivered_window_;
    std::size_t operations_ = 0;
    bool under_way_ = false;  // the last operation told has not returned yet
    std::array<Track, copy_count> tracks_;
    std::vector<Generation> generations_{Generation{}};  // generation 0: nothing served yet
    std::optional<std::optional<model::Error>> end_;
    std::size_t end_at_ = 0;
    kio::Instant last_event_{};

    std::uint64_t range_start_ = 0;
    std::optional<std::uint64_t> range_end_;
    std::optional<std::uint64_t> skipped_;
    std::set<std::uint64_t> delivered_;  // the newest `delivered_window_` handed out
    std::uint64_t delivered_floor_ = 0;  // below: forgotten, counts as handed out
    std::optional<std::uint64_t> newest_;
    std::optional<std::uint64_t> floor_;                  // sequence walks: last handed out or skipped to
    std::set<std::pair<int, std::uint64_t>> maybe_held_;  // (copy, sequence)
    mutable bool dropped_reading_ = false;                // see Dropped
    bool stopped_ = false;
    std::map<std::uint64_t, GroupRead> group_reads_;
    std::map<std::uint64_t, std::optional<model::Error>> group_endings_;  // the reads that ended

    std::vector<Belief> beliefs_{Belief{}};
    std::size_t window_from_ = 0;
};

}  // namespace moq::oracle
