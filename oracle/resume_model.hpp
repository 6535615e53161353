// The resume reader's reference model, written from the R rules of docs/SPEC.md in their
// words: copies that land, finish, fail and abort groups (R2, R17), a route of
// generations (R1), copies the reader adopted and replaced with their `until` (R3, R4),
// what it handed out (R5), what is owed (R7), retained (R8) and held past the range's end
// (R12), and the ends the rules allow (R10..R13). Sets and maps, no wakes, no gates. It
// learns only the history: the driver's operations in order (with virtual time), the
// reader's own changes (range, skip) and its answers (Pending, a group with the frames
// read from it, an end or an error); the reader's configuration (its grace and delivered
// window) it is given as the driver set it. It never reads the reader's internals.
//
// A poll spans a window of driver operations: the reader may have read the route and each
// copy at any point of that window. The model keeps the set of legal reader states (which
// route generation each poll adopted, which replaced copies it still retains, and the
// window of values of each replaced copy's `until`) and narrows it with each answer; an
// answer no legal state allows is a violation, which starts with the rule's id. Where a
// rule leaves the reader a choice the model cannot see (R12's bound on held groups), each
// judgement is made under every reading, named as an argument, never as a mode.
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
    // Inside a poll, a walk's Ready peek of `sequence`, before the take: told only where
    // the reader's task changes its range before that take.
    void peeked(std::uint64_t sequence) { peek_in_hand_ = sequence; }
    // The peek in hand is gone before its take: its group was aborted by the time it
    // answered (R17), or a range change dropped it. The walk that made it adopted a
    // generation of the window so far and let go of nothing (it found a group); the next
    // walk of the poll reads from here on.
    void peek_dropped(kio::Instant now);
    // A peek told by `peeked` that no range change since has dropped: the poll's answer.
    [[nodiscard]] bool peek_in_hand() const { return peek_in_hand_.has_value(); }
    // A range change its task made inside a poll, after the peek (R5): a peek the new
    // range covers is what the poll's take hands out; one it drops was never offered, and
    // the poll walks again from here. Either way the walk that peeked may have held groups
    // past the old end (R12), which stay held.
    void range_set_in_poll(std::uint64_t start, std::optional<std::uint64_t> end, kio::Instant now);

    // The reader's answers. A poll begins; its answer comes once the poll returns.
    void poll_begun();
    // `walked`: the read walked; an idle gate's answer (no walk) changed nothing of the
    // reader's (I1): a wake still under way inside an operation may poll the reader
    // before its gate has fired.
    std::optional<std::string> answered_pending(kio::Instant now, bool walked = true);
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
    // With no task runnable (at the end, or before the clock moves to a pending deadline),
    // the reader parked.
    [[nodiscard]] std::optional<std::string> quiescent(kio::Instant now) const;
    // Whether the legal states outgrew their bound, so the reader's answers are no longer
    // judged against them (the reads of its groups still are).
    [[nodiscard]] bool bounded() const { return bounded_; }

private:
    // R2: a copy as the driver made it; `at` values are operation indexes.
    struct CopyHistory {
        std::map<std::uint64_t, std::size_t> landed;   // sequence -> the operation that landed it
        std::map<std::uint64_t, std::size_t> written;  // sequence -> the operation that wrote its frame
        std::optional<std::size_t> finished_at;
        std::optional<std::uint64_t> end_sequence;  // once finished: one past its newest group
        std::optional<std::size_t> failed_at;
        std::map<std::uint64_t, std::size_t> aborted;  // sequence -> the operation that aborted it (R17)
    };
    // R1: one route generation: the copy it serves (none: parked) and when it began.
    struct Generation {
        std::optional<int> copy;
        std::size_t at = 0;
    };
    // R3, R4: a copy the reader adopted, as one legal state holds it.
    struct AdoptedCopy {
        int copy = 0;
        std::uint64_t start = 0;  // the newest handed out when it was adopted
        bool replaced = false;
        // R4: `until` is the copy's newest at some point of the adopting window, so the
        // model keeps it as the window of values [until_low, until_high].
        std::optional<std::uint64_t> until_low, until_high;
        kio::Instant grace_deadline{};  // R8
        // R8: a walk may have let go of it (some reading did not retain it) or kept it. One
        // state with the copy marked stands for both, so let-go never doubles the states
        // (and a bound on them never drops a legal one): kept where a judgement may keep
        // it (Until::some, a supply), gone where it must be retained (Until::every).
        bool maybe_let_go = false;
        friend auto operator<=>(const AdoptedCopy&, const AdoptedCopy&) = default;
    };
    // One reader state the history so far allows.
    struct LegalState {
        std::uint64_t generation = 0;     // the route generation last adopted (R3)
        std::vector<AdoptedCopy> copies;  // the replaced in one order (add_state); the newest may serve, last
        friend bool operator==(const LegalState&, const LegalState&) = default;
    };
    // R1: the route as read at one point of a window.
    struct RouteView {
        std::uint64_t generation = 0;
        std::optional<std::optional<model::Error>> end;
    };
    // R12: the two readings of the bound on groups held past the range's end: either the
    // bound kept every group that may be held, or it dropped each group that as many lower
    // ones may have been held with. A judgement an answer must meet accepts either
    // reading; a missed wake is one under both.
    enum class HeldBound : std::uint8_t { kept_all, dropped_furthest };
    // R4/R8: which values of a copy's `until` a judgement must hold for: some (may the
    // reader wait?) or every (must it?).
    enum class Until : std::uint8_t { some, every };
    // R8: a walk reads a replaced copy twice: its end when it scans it, at some operation
    // from `scanned_from` on (each copy at a point of its own, after the serving copy),
    // and what it may still land when it judges retention (`judged`), after every scan.
    struct Looked {
        std::size_t scanned_from = 0;
        std::size_t judged = 0;
    };
    // R6, R14: a handed-out group whose read has not ended.
    struct GroupRead {
        std::size_t taken_at = 0;    // the operation index of its take
        std::vector<int> suppliers;  // the copies that may have supplied it
        std::size_t frames = 0;      // frames read so far
        bool polled = true;          // false while handed on and not yet read
    };

    // How many legal states an answer keeps at most, to bound the work of a judgement. A
    // route that changes many times while the reader walks (a swarm case) can pass it:
    // each walk may have adopted any generation its window saw.
    static constexpr std::size_t state_limit = 1024;
    // Adds `state` to `states` unless it is there already. Past `limit` states it is left
    // out, and the model is bounded from then on.
    void add_state(std::vector<LegalState>& states, LegalState state, std::size_t limit = state_limit) const;
    static std::string copy_name(int copy);
    static std::string describe_end(const std::optional<model::Error>& end);

    // ---- the history (R1, R2, R17), at an operation index ----
    [[nodiscard]] std::size_t now_at() const { return operations_; }
    std::size_t next_operation();
    [[nodiscard]] bool has(int copy, std::uint64_t sequence, std::size_t at) const;
    // The copy's group has its frame (a group that landed open does not, yet).
    [[nodiscard]] bool written(int copy, std::uint64_t sequence, std::size_t at) const;
    [[nodiscard]] bool finished(int copy, std::size_t at) const;
    [[nodiscard]] bool aborted(int copy, std::uint64_t sequence, std::size_t at) const;
    [[nodiscard]] bool failed(int copy, std::size_t at) const;
    [[nodiscard]] std::optional<std::uint64_t> newest_group(int copy, std::size_t at) const;
    [[nodiscard]] std::optional<std::uint64_t> first_group(int copy, std::size_t at) const;
    [[nodiscard]] RouteView route_at(std::size_t at) const;
    [[nodiscard]] std::uint64_t generation_at(std::size_t at) const;

    // ---- R3, R4: adoption and the legal states of a poll's window ----
    // The states a poll whose window is [from, to] may leave, from `state`.
    [[nodiscard]] std::vector<LegalState> adopt(const LegalState& state, std::size_t from, std::size_t to,
                                                kio::Instant now) const;
    [[nodiscard]] LegalState adopt_at(const LegalState& state, std::uint64_t generation, std::size_t read_at,
                                      std::size_t to, kio::Instant now) const;
    // The legal states of the poll now answering, having read the route in its window.
    [[nodiscard]] std::vector<LegalState> window_states(kio::Instant now) const;
    void narrow_to(std::vector<LegalState> states);

    // ---- R5: range, once and in order ----
    [[nodiscard]] bool in_range(std::uint64_t sequence) const;
    // An arrival walk handed it out, or forgot it (and so every sequence below it).
    [[nodiscard]] bool counts_as_handed_out(std::uint64_t sequence) const;
    // Not handed out yet: by an arrival walk, at all; by a sequence walk, above its floor.
    [[nodiscard]] bool not_handed_out(std::uint64_t sequence) const;
    // The lowest sequence `copy` may still offer: its start, the range's, above the floor.
    [[nodiscard]] std::uint64_t lowest_offered(const AdoptedCopy& copy) const;
    [[nodiscard]] bool range_used_up() const;  // R10

    // ---- R3..R9: what may be handed out, and what is owed ----
    // R2..R5, R17: why `copy` may not supply `sequence` (by operation `at`), or nothing if
    // it may. An abort by `aborted_by` (default: `at`) refuses it too.
    [[nodiscard]] std::optional<std::string> refuses(const AdoptedCopy& copy, std::uint64_t sequence, std::size_t at,
                                                     std::optional<std::size_t> aborted_by = std::nullopt) const;
    // R3: the newest copy, unless it is replaced.
    [[nodiscard]] const AdoptedCopy* serving_copy(const LegalState& state) const;
    // R7: groups of the serving copy the reader owes at operation `at`.
    [[nodiscard]] std::vector<std::uint64_t> owed(const LegalState& state, std::size_t at, HeldBound bound,
                                                  std::optional<std::size_t> aborted_by = std::nullopt) const;
    // R3/R4/R12: the states in which a copy of `copy` supplied `sequence`, or it was held.
    [[nodiscard]] std::vector<LegalState> suppliers(const LegalState& state, int copy, std::uint64_t sequence,
                                                    std::optional<std::string>& reason) const;
    // R6/R14/R17: the copies that may have supplied `sequence`, read as `frames`.
    [[nodiscard]] std::vector<int> supplier_copies(std::uint64_t sequence, const std::vector<std::string>& frames,
                                                   std::optional<int> landing,
                                                   std::optional<std::string>& reason) const;
    // R3..R10: a take judged with the copies that may have supplied it and the frames read
    // then; the legal states narrowed to those in which one of them did.
    std::optional<std::string> taken(std::uint64_t sequence, const std::vector<int>& copies, std::size_t frames,
                                     kio::Instant now, std::optional<std::string> reason);
    // R5: what a take fixes: remembered (and the lowest forgotten), newest, floor.
    void hand_out(std::uint64_t sequence);
    // R5: why an answer (a group's sequence, or none) is not the peek a range change in
    // its poll kept, if it is not; the poll's answer clears the kept peek.
    std::optional<std::string> kept_peek_answered(std::optional<std::uint64_t> sequence);

    // ---- R8: grace and let-go ----
    // R8 (and R9, with `below`: a lower group than the one a sequence walk found): a
    // group `copy` may still supply is missing, with `until` at its upper bound.
    [[nodiscard]] bool missing_group(const AdoptedCopy& copy, std::size_t at, std::optional<std::uint64_t> below) const;
    // R8, R11, R12: the copy failed, or finished and has nothing more it would offer.
    [[nodiscard]] bool finished_past_all(const AdoptedCopy& copy, std::size_t at, HeldBound bound) const;
    // R8: within its grace, not finished past all and missing a group, for some, or every,
    // `until` the adopting poll allows and scan point.
    [[nodiscard]] bool is_retained(const AdoptedCopy& copy, Looked looked, kio::Instant now,
                                   std::optional<std::uint64_t> below, Until which, HeldBound bound) const;
    [[nodiscard]] bool any_retained(const LegalState& state, Looked looked, kio::Instant now,
                                    std::optional<std::uint64_t> below, Until which, HeldBound bound) const;
    // R8: the states a walk that handed out nothing may leave: each replaced copy kept
    // where some reading retains it, let go where some reading does not.
    [[nodiscard]] std::vector<LegalState> after_let_go(const LegalState& state, kio::Instant now) const;

    // ---- R12: groups held past the range's end ----
    // The groups an arrival walk in one of `states` may hold past the range's end.
    void note_held_past_end(const std::vector<LegalState>& states);
    // A group not aborted (R17) may still be held past the range's end.
    [[nodiscard]] bool holds_past_end() const;
    // Under `bound`, the bound on held groups dropped this one: holding never hands it out.
    [[nodiscard]] bool held_dropped(int copy, std::uint64_t sequence, HeldBound bound) const;

    // ---- R10..R13: ends ----
    // The ends a walk may answer with the route read as `route`, the copies read at `at`
    // and what a replaced copy may still land judged at `retained_at`.
    [[nodiscard]] std::vector<std::optional<model::Error>> legal_ends(const LegalState& state, const RouteView& route,
                                                                      std::size_t at, std::size_t retained_at,
                                                                      kio::Instant now, HeldBound bound) const;
    // R11/R13: why the serving copy does not end the read, or nothing and its end.
    [[nodiscard]] std::optional<std::string> serving_done(const LegalState& state, std::size_t at, HeldBound bound,
                                                          std::optional<model::Error>& error) const;
    // R10..R13: some point of the walk and reading of the held bound (R12) allows `error`.
    [[nodiscard]] bool end_allowed(const LegalState& state, std::size_t read_at, std::optional<model::Error> error,
                                   kio::Instant now) const;
    // R7/R10: the missed wake of a parked reader under one reading of the held bound.
    [[nodiscard]] std::optional<std::string> missed_wake(kio::Instant now, HeldBound bound) const;

    // ---- R6, R14: the reads of handed-out groups (resume_group_reads.cpp) ----
    // R6, R14: whether `copy` may hand frames to `read`: a supplier, or a copy the route
    // served at or after its take (its recover follows the route).
    [[nodiscard]] bool may_continue_from(const GroupRead& read, int copy) const;
    // R14: why a group read parked now has missed a wake, if it has: stalled on a group
    // landed open, or failed, it may wait only where its recover would.
    [[nodiscard]] std::optional<std::string> group_read_parked(std::uint64_t sequence) const;

    // The reader's configuration and the history.
    model::Walk walk_;
    kio::Duration grace_;
    std::uint64_t delivered_window_;
    std::size_t operations_ = 0;
    bool under_way_ = false;  // the last operation told has not returned yet
    std::array<CopyHistory, copy_count> copies_;
    std::vector<Generation> generations_{Generation{}};  // generation 0: nothing served yet
    std::optional<std::optional<model::Error>> route_end_;
    std::size_t route_end_at_ = 0;
    kio::Instant last_event_{};

    // What the answers fixed (R5, R10, R12).
    std::uint64_t range_start_ = 0;
    std::optional<std::uint64_t> range_end_;
    std::set<std::uint64_t> remembered_;  // the newest `delivered_window_` an arrival walk handed out
    std::uint64_t forgotten_below_ = 0;   // below it, all counts as handed out
    std::optional<std::uint64_t> newest_handed_out_;
    std::optional<std::uint64_t> floor_;                     // a sequence walk's: last handed out or skipped to
    std::set<std::pair<int, std::uint64_t>> held_past_end_;  // (copy, sequence) an arrival walk may hold
    std::optional<std::uint64_t> peek_in_hand_;              // the peek in hand in this poll, kept so far (R5)
    bool ended_ = false;
    std::map<std::uint64_t, GroupRead> group_reads_;
    std::map<std::uint64_t, std::optional<model::Error>> group_endings_;  // the reads that ended

    // Every reader state the history allows, and where the poll now answering began.
    std::vector<LegalState> legal_states_{LegalState{}};
    std::size_t window_from_ = 0;
    // More legal states than `state_limit` were found once: the kept ones may miss a legal
    // reader, so an answer none of them allows is no longer a violation (R3..R13). The
    // group reads (R6, R14) are still judged. The probe oracle.resume.state_bound_reached
    // counts the cases.
    mutable bool bounded_ = false;
};

}  // namespace moq::oracle
