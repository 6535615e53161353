// The resume reader: one logical track read from several copies (one per route) as the
// route moves between them. The newest copy whose generation matches the route serves;
// older copies are replaced, capped at `until`, and kept for a grace period while a group
// they may still deliver is missing. Each walk order parks through its own idle gate.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "kio/cell.hpp"
#include "kio/clock.hpp"
#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "model/gated_read.hpp"
#include "model/group.hpp"
#include "model/next.hpp"
#include "model/recover.hpp"
#include "model/route.hpp"
#include "model/track.hpp"
#include "model/walk.hpp"
#include "util/mutation.hpp"

namespace moq::model {

struct ResumeOptions {
    // How long a replaced copy is kept while a group it may still deliver is missing.
    kio::Duration grace = std::chrono::seconds(1);
    // How many handed-out sequences an arrival walk remembers to hand out none twice:
    // a sequence it forgets counts as handed out from then on, with all below it (R5).
    // It also bounds the groups held past the range's end (R12) and how far back a
    // replaced copy is looked at for a missing group (R8).
    std::size_t delivered_window = 1024;
};

// A replaced copy, as tests and the oracle see it.
struct CopyView {
    std::uint64_t generation = 0;
    bool replaced = false;
    std::optional<std::uint64_t> until;
    kio::Instant grace_deadline;
    Preferences demand;  // the preferences mirrored into this copy
};

class ResumeReader {
public:
    ResumeReader(kio::Consumer<RouteState> route, kio::Consumer<Preferences> preferences, kio::Clock& clock,
                 ResumeOptions options = {});

    // The next group of `walk` without handing it out.
    // A peek in hand for `walk` came from a Ready walk, which left its gate unarmed, so
    // the gate check alone decides the idle path.
    kio::Poll<Next<const Peek*>> poll_peek_group(const kio::Waiter& waiter, Walk walk) {
        if (peeked_) drop_aborted_peek();
        if (reads_[index(walk)].answer_parked(waiter, OneWalk{}, MOQ_SITE("resume.gate.check", gate)))
            return kio::Poll<Next<const Peek*>>::pending();
        return peek_walk(waiter, walk);
    }
    // Hands out the peeked group, with a recover over this route and preferences.
    std::optional<GroupConsumer> take();
    // Only sequences in [start, end) from now on; a start below the current one keeps the
    // current one (a range never rewinds), the end moves both ways. A disarm point.
    void set_range(std::uint64_t start, std::optional<std::uint64_t> end);
    // A nested route moved the handed-out floor of sequence walks. A disarm point.
    void skip_ordered(std::uint64_t floor);

    // True when a peek of `walk` by this task would answer Pending without walking.
    [[nodiscard]] bool parked(const kio::Waiter& waiter, Walk walk) const {
        return reads_[index(walk)].parked(waiter, OneWalk{});
    }
    [[nodiscard]] const WalkCounter& walk_counter(Walk walk) const { return reads_[index(walk)].counter(); }
    [[nodiscard]] bool gate_armed(Walk walk) const { return reads_[index(walk)].armed(); }
    [[nodiscard]] std::vector<CopyView> copies() const;
    [[nodiscard]] std::optional<std::uint64_t> ordered_floor() const { return floor_; }
    // The route generation of the copy the last take came from.
    [[nodiscard]] std::optional<std::uint64_t> taken_from() const { return taken_from_; }

private:
    struct Copy {
        std::uint64_t generation;
        TrackConsumer track;
        std::array<std::optional<TrackCursor>, 2> cursors;
        std::array<std::optional<std::optional<Error>>, 2> done;  // per walk: end or error
        bool replaced = false;
        std::optional<std::uint64_t> until;
        kio::Instant grace_deadline;
        Preferences demand;
        std::uint64_t start = 0;  // arrival walks of this copy start here (newest handed out)
    };
    struct Peeked {
        Walk walk;
        std::uint64_t generation;
        Peek peek;
        bool held;  // offered from held_, already past its copy's cursor
    };
    struct Held {
        std::uint64_t generation;
        Peek peek;
    };

    static std::size_t index(Walk walk) { return walk == Walk::arrival ? 0 : 1; }
    // Aborted groups are dropped, never handed out (R17): a peek in hand, held groups.
    void drop_aborted_peek();
    void drop_aborted_held();
    // The one peek in hand becomes `peeked`; the one it replaces is dropped (drop_peek).
    void hand(Peeked peeked);
    // Drops the peek in hand without a take. A held group goes back to held_: its copy's
    // cursor is past it, so nothing else would ever offer it again (R12).
    void drop_peek();
    void watch_held(const kio::Waiter& waiter) const;
    kio::Poll<Next<const Peek*>> peek_walk(const kio::Waiter& waiter, Walk walk);
    // One full walk, in named steps: read the route and preferences (following a new
    // route), offer a held group, scan the copies newest first, hand out the best of a
    // sequence walk, then let go, apply the end rules, or arm the grace deadline.
    // What a walk needs of the route, read under its lock without copying the serving
    // copy's consumer, which only a new generation takes (a copy per walk would touch
    // the track's shared count from every reader).
    struct RouteRead {
        std::uint64_t generation = 0;
        bool serving = false;
        std::optional<std::optional<Error>> end;
        bool closed = false;
        std::optional<TrackConsumer> fresh;  // the serving copy, when the generation is new
    };
    struct Scan {
        Copy* best_copy = nullptr;
        const Peek* best = nullptr;
        std::vector<Copy*> looked;  // copies whose peek answered but was not handed out
    };
    kio::Poll<Next<const Peek*>> walk_once(const kio::Waiter& waiter, Walk walk);
    RouteRead sync_inputs(const kio::Waiter& waiter);
    const Peek* offer_held(Walk walk);
    void hold(const Copy& copy, const Peek& peek);
    // Bounded like the delivered set, in sequences: past the window the furthest goes.
    void trim_held();
    // True when an arrival walk peeked a group of `copy` to hand out.
    bool scan_copy(Copy& copy, Walk walk, const kio::Waiter& waiter, Scan& scan);
    bool offer_best(Walk walk, const Scan& scan, kio::Instant now);
    // Whether a group held past the range's end keeps `walk` open: the arrival walk's, which
    // alone hands held groups out (R12).
    [[nodiscard]] bool holds_for(Walk walk) const;
    [[nodiscard]] std::optional<Next<const Peek*>> end_rules(const RouteRead& read, Walk walk) const;
    void arm_grace(Walk walk, kio::Instant now, const kio::Waiter& waiter);
    void follow_route(std::uint64_t generation, std::optional<TrackConsumer> serving);
    TrackCursor& cursor(Copy& copy, Walk walk);
    // A replaced copy supplies nothing past its until (nothing at all without one), not
    // even a group to hold past the range's end.
    [[nodiscard]] static bool within_until(const Copy& copy, std::uint64_t sequence);
    [[nodiscard]] static bool exhausted_for(const Copy& copy, Walk walk);
    [[nodiscard]] bool deliverable(const Copy& copy, std::uint64_t sequence, Walk walk) const;
    // An arrival walk handed it out, or forgot it and everything below it (R5).
    [[nodiscard]] bool handed_out(std::uint64_t sequence) const {
        return sequence < delivered_floor_ || delivered_.contains(sequence);
    }
    // A group at or below `below` that `copy` does not have yet but may still land.
    [[nodiscard]] bool may_land(const Copy& copy, Walk walk, std::optional<std::uint64_t> below) const;
    [[nodiscard]] bool retained(const Copy& copy, Walk walk, kio::Instant now) const;
    void let_go(Walk walk, kio::Instant now);
    [[nodiscard]] bool range_exhausted(Walk walk) const;
    // Sequences below `floor` are offered by no copy's sequence cursor any more.
    void raise_sequence_cursors(std::uint64_t floor);
    void disarm_all();
    // Asserts what every walk, take and change of range or floor keeps (ARCHITECTURE.md).
    void check_reader() const;

    kio::Consumer<RouteState> route_;
    kio::Consumer<Preferences> preferences_;
    kio::Clock* clock_;
    ResumeOptions options_;
    std::uint64_t seen_generation_ = 0;
    std::deque<Copy> copies_;  // oldest first; the newest may serve
    std::optional<Peeked> peeked_;
    // Arrivals past the range's end, for a raised end; one per copy that offered the
    // sequence, so one copy aborting its group leaves the others' (R12, R17).
    std::multimap<std::uint64_t, Held> held_;
    std::optional<std::uint64_t> floor_;       // last sequence a sequence walk handed out
    std::set<std::uint64_t> delivered_;        // what arrival walks handed out, bounded
    std::uint64_t delivered_floor_ = 0;        // one past the highest sequence delivered_ forgot
    std::optional<std::uint64_t> newest_;      // highest sequence handed out by any walk
    std::optional<std::uint64_t> taken_from_;  // generation of the copy of the last take
    std::uint64_t range_start_ = 0;
    std::optional<std::uint64_t> range_end_;
    Preferences mirrored_;
    // One gate per walk order, so the order is no key.
    std::array<GatedRead<OneWalk>, 2> reads_{GatedRead<OneWalk>(1), GatedRead<OneWalk>(1)};
};

// The recover a resumed group carries: its route and the reader's preferences.
class ResumeRecover final : public Recover {
public:
    ResumeRecover(kio::Consumer<RouteState> route, kio::Consumer<Preferences> preferences, std::uint64_t generation,
                  std::uint64_t sequence)
        : route_(std::move(route)),
          preferences_(std::move(preferences)),
          generation_(generation),
          sequence_(sequence) {}

    std::optional<kio::Duration> poll_budget(const kio::Waiter& waiter) override;
    bool wants(std::optional<Error> failed, const kio::Waiter& waiter) override;
    kio::Poll<std::variant<Replacement, Error>> poll(std::size_t index, std::optional<Error> failed,
                                                     const kio::Waiter& waiter) override;
    void adopt(const Replacement& replacement) override {
        // A replacement comes from a newer route generation than the copy it replaces.
        MOQ_ASSERT_GT(replacement.generation, generation_);
        generation_ = replacement.generation;
    }
    [[nodiscard]] std::unique_ptr<Recover> clone() const override {
        return std::make_unique<ResumeRecover>(route_, preferences_, generation_, sequence_);
    }

private:
    kio::Consumer<RouteState> route_;
    kio::Consumer<Preferences> preferences_;
    std::uint64_t generation_;
    std::uint64_t sequence_;
};

}  // namespace moq::model
