#include "model/resume.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "kio/schedule_point.hpp"
#include "model/registering.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::model {

namespace {

std::optional<std::uint64_t> max_of(std::optional<std::uint64_t> a, std::optional<std::uint64_t> b) {
    if (!a) return b;
    if (!b) return a;
    return std::max(*a, *b);
}

}  // namespace

ResumeReader::ResumeReader(kio::Consumer<RouteState> route, kio::Consumer<Preferences> preferences, kio::Clock& clock,
                           ResumeOptions options)
    : route_(std::move(route)), preferences_(std::move(preferences)), clock_(&clock), options_(options) {}

void ResumeReader::drop_aborted_peek() {
    if (peeked_ && peeked_->peek.group.aborted()) peeked_.reset();
}

void ResumeReader::hand(Peeked peeked) {
    drop_peek();
    peeked_.emplace(std::move(peeked));
}

void ResumeReader::drop_peek() {
    if (!peeked_) return;
    Peeked dropped = std::move(*peeked_);
    peeked_.reset();
    if (!dropped.held || dropped.peek.group.aborted()) return;
    // Offered from held_ and not taken (a range that no longer holds it, another walk's
    // peek): held again, to be offered once it is in range (R12).
    MOQ_PROBE("resume.held.dropped_peek_held_again");
    const std::uint64_t sequence = dropped.peek.sequence;
    held_.emplace(sequence, Held{dropped.generation, std::move(dropped.peek)});
    trim_held();
}

void ResumeReader::drop_aborted_held() {
    const std::multimap<std::uint64_t, Held>& all = held_;
    std::erase_if(held_, [&](const auto& held) {
        const bool aborted = held.second.peek.group.aborted();
        // Aborted in one copy while another copy's group of that sequence is held too: the
        // sequence still comes, from the other copy (R12, R17).
        MOQ_SOMETIMES("resume.held.aborted_in_one_copy_of_several", aborted && all.count(held.first) > 1);
        return aborted;
    });
}

void ResumeReader::watch_held(const kio::Waiter& waiter) const {
    // A held group keeps the read from ending (R12); its abort must wake the read.
    for (const auto& held : held_)
        static_cast<void>(held.second.peek.group.cell().poll_closed(
            registering(MOQ_SITE("resume.held.register", register_input), waiter)));
}

kio::Poll<Next<const Peek*>> ResumeReader::peek_walk(const kio::Waiter& waiter, Walk walk) {
    if (peeked_ && peeked_->walk == walk) {
        // The idle path checks no peek: the Ready walk that made it left the gate unarmed.
        MOQ_ASSERT(!reads_[index(walk)].armed());
        return Next<const Peek*>(&peeked_->peek);
    }
    auto answer = reads_[index(walk)].walk(waiter, OneWalk{}, MOQ_SITE("resume.gate.setup", gate),
                                           [&](const kio::Waiter& through) { return walk_once(through, walk); });
    check_reader();
    // A Ready item is the peek in hand, of this walk.
    if (answer.is_ready() && answer.value().is_item())
        MOQ_ASSERT(peeked_ && peeked_->walk == walk && answer.value().item() == &peeked_->peek);
    return answer;
}

void ResumeReader::follow_route(std::uint64_t generation, std::optional<TrackConsumer> serving) {
    // Route generations only grow (every change bumps it, R1).
    MOQ_ASSERT_GT(generation, seen_generation_);
    // The route changed more than once since the last walk: a copy served in between is never read (R3).
    MOQ_SOMETIMES("resume.route.generations_skipped", generation > seen_generation_ + 1);
    seen_generation_ = generation;
    const kio::Instant now = clock_->now();
    for (Copy& copy : copies_) {
        if (copy.replaced) continue;
        // Replaced while a group it handed out may still be read (R6, R14).
        MOQ_SOMETIMES("resume.route.replaced_copy_last_taken_from", taken_from_ == copy.generation);
        // A replaced copy may still supply what it had, or may land, up to here.
        copy.replaced = true;
        copy.until = max_of(newest_, copy.track.latest());
        copy.grace_deadline = now + options_.grace;
    }
    if (!serving) {
        // The route parked: no copy serves, readers wait on the replaced ones (R1, R13).
        MOQ_PROBE("resume.route.parked_no_copy_serves");
        return;
    }
    // Copies stay ordered oldest first: the newest may serve (R3).
    if (!copies_.empty()) MOQ_ASSERT_LT(copies_.back().generation, generation);
    Copy fresh{generation, std::move(*serving), {}, {}, false, std::nullopt, kio::Instant{},
               mirrored_,  newest_.value_or(0)};
    copies_.push_back(std::move(fresh));
    MOQ_ASSERT(!copies_.back().replaced && copies_.back().generation == seen_generation_);
}

TrackCursor& ResumeReader::cursor(Copy& copy, Walk walk) {
    std::optional<TrackCursor>& slot = copy.cursors[index(walk)];
    if (!slot) {
        std::uint64_t floor = std::max(range_start_, copy.start);
        if (walk == Walk::sequence && floor_) floor = std::max(floor, one_past(*floor_));
        slot.emplace(copy.track.cursor(walk, floor));
    }
    return *slot;
}

bool ResumeReader::within_until(const Copy& copy, std::uint64_t sequence) {
    return !copy.replaced || (copy.until && sequence <= *copy.until);
}

bool ResumeReader::deliverable(const Copy& copy, std::uint64_t sequence, Walk walk) const {
    if (sequence < range_start_ || (range_end_ && sequence >= *range_end_)) return false;
    if (!within_until(copy, sequence)) return false;
    if (walk == Walk::sequence) return !floor_ || sequence > *floor_;
    return !handed_out(sequence);
}

bool ResumeReader::may_land(const Copy& copy, Walk walk, std::optional<std::uint64_t> below) const {
    if (!copy.replaced || !copy.until) return false;
    std::uint64_t upper = *copy.until;
    if (range_end_) {
        if (*range_end_ == 0) return false;
        upper = std::min(upper, *range_end_ - 1);
    }
    // Bounded: only the newest window of sequences in range up to `until` is looked at,
    // whatever `below` is, so a sequence walk that waits for a lower group (offer_best)
    // always finds its copy retained too, with its grace deadline armed (R8, R9).
    std::uint64_t lower = upper >= options_.delivered_window ? upper - options_.delivered_window + 1 : 0;
    if (below) {
        if (*below == 0) return false;
        upper = std::min(upper, *below - 1);
    }
    lower = std::max({lower, range_start_, copy.start});
    if (walk == Walk::sequence && floor_) lower = std::max(lower, one_past(*floor_));
    if (lower > upper) return false;
    return copy.track.cell().read([&](const TrackState& state) {
        if (state.abort) return false;
        // Below the first group the copy ever had, nothing is missing: it never had it.
        if (!state.groups.empty()) lower = std::max(lower, state.groups.begin()->first);
        for (std::uint64_t sequence = lower; sequence <= upper; ++sequence) {
            if (walk == Walk::arrival && handed_out(sequence)) continue;
            if (!state.groups.contains(sequence)) return true;
        }
        return false;
    });
}

// Whether a replaced copy has nothing more for this walk (R8). An error settles it, and
// so does an arrival walk's clean end: its cursor went past everything the copy had. A
// sequence walk's cursor also skips what it may not hand out (past `until`), so its
// clean end says nothing of a lower group still landing below a finished copy's end
// (R11): may_land decides that.
bool ResumeReader::exhausted_for(const Copy& copy, Walk walk) {
    const std::optional<std::optional<Error>>& done = copy.done[index(walk)];
    return done && (*done || walk == Walk::arrival);
}

bool ResumeReader::retained(const Copy& copy, Walk walk, kio::Instant now) const {
    return copy.replaced && !exhausted_for(copy, walk) && now < copy.grace_deadline &&
           may_land(copy, walk, std::nullopt);
}

void ResumeReader::let_go(Walk walk, kio::Instant now) {
    const Walk other = walk == Walk::arrival ? Walk::sequence : Walk::arrival;
    const std::size_t before = copies_.size();
    const std::size_t serving =
        std::count_if(copies_.begin(), copies_.end(), [](const Copy& copy) { return !copy.replaced; });
    std::erase_if(copies_, [&](const Copy& copy) {
        if (!copy.replaced) return false;
        // A replaced copy looked at once its grace ran out (R8).
        MOQ_SOMETIMES("resume.grace.expired_at_let_go", now >= copy.grace_deadline);
        if (peeked_ && peeked_->generation == copy.generation) return false;
        const bool other_used = copy.cursors[index(other)].has_value();
        return !retained(copy, walk, now) && !(other_used && retained(copy, other, now));
    });
    // A replaced copy let go for good (R8).
    MOQ_SOMETIMES("resume.let_go.copy_let_go", copies_.size() < before);
    // Only replaced copies go; the one that may serve stays.
    MOQ_ASSERT_LE(copies_.size(), before);
    MOQ_ASSERT_LE(serving, copies_.size());
}

bool ResumeReader::range_exhausted(Walk walk) const {
    if (!range_end_) return false;
    if (range_start_ >= *range_end_) return true;
    if (walk == Walk::sequence) return floor_ && one_past(*floor_) >= *range_end_;
    // Below the delivered floor everything counts as handed out; above it at most the
    // window's sequences were.
    const std::uint64_t from = std::max(range_start_, delivered_floor_);
    if (from >= *range_end_) return true;
    if (*range_end_ - from > options_.delivered_window) return false;
    for (std::uint64_t sequence = from; sequence < *range_end_; ++sequence)
        if (!delivered_.contains(sequence)) return false;
    return true;
}

ResumeReader::RouteRead ResumeReader::sync_inputs(const kio::Waiter& waiter) {
    // The route first, before looking at any copy: a read that parks past a drained
    // serving copy must still hear a new route.
    RouteRead read = route_.read_and_watch_closed(
        registering(MOQ_SITE("resume.route.register", register_input), waiter),
        [&](const RouteState& state, bool closed) {
            RouteRead route{state.generation, state.serving.has_value(), state.end, closed, std::nullopt};
            if (state.generation != seen_generation_) route.fresh = state.serving;
            return route;
        });
    kio::schedule_point("resume.after_route");
    // Preferences are re-read and re-registered on every walk.
    const Preferences preferences =
        preferences_.read_and_watch(registering(MOQ_SITE("resume.preferences.register", register_input), waiter),
                                    [](const Preferences& state) { return state; });
    if (!(preferences == mirrored_)) {
        mirrored_ = preferences;
        for (Copy& copy : copies_)
            if (!copy.replaced) copy.demand = preferences;
    }
    if (read.generation != seen_generation_) follow_route(read.generation, std::move(read.fresh));
    // The walk reads on at the route's generation, whose copy (if any) is the newest.
    MOQ_ASSERT_EQ(seen_generation_, read.generation);
    MOQ_ASSERT(!read.serving || (!copies_.empty() && copies_.back().generation == seen_generation_));
    kio::schedule_point("resume.before_copies");
    return read;
}

const Peek* ResumeReader::offer_held(Walk walk) {
    for (auto held = held_.begin(); held != held_.end();) {
        if (held->first < range_start_ || handed_out(held->first)) {
            held = held_.erase(held);
            continue;
        }
        if (range_end_ && held->first >= *range_end_) break;
        // In range and not handed out: what any walk of this reader may offer.
        MOQ_ASSERT_GE(held->first, range_start_);
        MOQ_ASSERT(!handed_out(held->first));
        // Held past the range's end, now in range: offered whatever became of its copy (R12).
        MOQ_PROBE("resume.held.offered_in_range");
        // Its copy is older than every copy still kept: let go since it held the group.
        MOQ_SOMETIMES("resume.held.offered_from_let_go_copy",
                      copies_.empty() || held->second.generation < copies_.front().generation);
        Peeked offered{walk, held->second.generation, held->second.peek, true};
        // The other copies' alternatives of it stay until the take: dropped before it, the
        // peek comes back to held_ beside them.
        held_.erase(held);
        hand(std::move(offered));
        return &peeked_->peek;
    }
    return nullptr;
}

void ResumeReader::hold(const Copy& copy, const Peek& peek) {
    // Only a group it may still hand out: one handed out before is not held again.
    if (!handed_out(peek.sequence)) held_.emplace(peek.sequence, Held{copy.generation, peek});
    trim_held();
}

void ResumeReader::trim_held() {
    std::size_t sequences = 0;
    for (auto held = held_.begin(); held != held_.end(); held = held_.upper_bound(held->first)) ++sequences;
    // One more than the window at most: each hold, and each held peek dropped, evicts down to it.
    MOQ_ASSERT_LE(sequences, options_.delivered_window + 1);
    // Past the window: the furthest held sequence is dropped, no longer keeping the read open (R12).
    MOQ_SOMETIMES("resume.held.window_drops_furthest", sequences > options_.delivered_window);
    if (sequences > options_.delivered_window) held_.erase(std::prev(held_.end())->first);
}

bool ResumeReader::scan_copy(Copy& copy, Walk walk, const kio::Waiter& waiter, Scan& scan) {
    const std::size_t slot = index(walk);
    TrackCursor& reader = cursor(copy, walk);
    kio::schedule_point("resume.copy");
    for (;;) {
        // Through this walk's waiter: the copy's own gate nests inside this one.
        const kio::Waiter& registered = registering(MOQ_SITE("resume.copy.register", register_input), waiter);
        auto answer = reader.poll_peek(registered);
        if (answer.is_pending()) return false;
        if (!answer.value().is_item()) {
            copy.done[slot] = answer.value().is_end() ? std::optional<Error>() : answer.value().error();
            // Its end answered Ready and registered nothing: watch for a late group.
            if (answer.value().is_end()) scan.looked.push_back(&copy);
            return false;
        }
        const Peek* peek = answer.value().item();
        if (range_end_ && peek->sequence >= *range_end_ && within_until(copy, peek->sequence)) {
            // Past the range's end for now: the end may still be raised. A sequence walk
            // keeps it in its copy (even one that failed since); an arrival walk holds it.
            if (walk == Walk::sequence) {
                MOQ_PROBE("resume.sequence.kept_past_range_end");
                scan.looked.push_back(&copy);
                return false;
            }
            MOQ_PROBE("resume.arrival.held_past_range_end");
            hold(copy, *peek);
            reader.skip();
            continue;
        }
        if (!deliverable(copy, peek->sequence, walk)) {
            // A replaced copy offers a group past its until: it supplies nothing there (R4).
            MOQ_SOMETIMES("resume.scan.replaced_copy_past_until", !within_until(copy, peek->sequence));
            reader.skip();
            continue;
        }
        if (walk == Walk::arrival) {
            MOQ_ASSERT(!handed_out(peek->sequence));
            // A group the serving copy did not hand out yet comes from a replaced copy (R4, R8).
            MOQ_SOMETIMES("resume.arrival.offered_from_replaced_copy", copy.replaced);
            hand(Peeked{walk, copy.generation, *peek, false});
            return true;
        }
        scan.looked.push_back(&copy);
        if (!scan.best || peek->sequence < scan.best->sequence) {
            scan.best = peek;
            scan.best_copy = &copy;
        }
        return false;
    }
}

bool ResumeReader::offer_best(Walk walk, const Scan& scan, kio::Instant now) {
    if (!scan.best) return false;
    // Handing this out moves the floor past anything lower: wait while a replaced copy
    // within its grace may still land one of those.
    const bool waiting = std::any_of(copies_.begin(), copies_.end(), [&](const Copy& copy) {
        return now < copy.grace_deadline && !exhausted_for(copy, walk) && may_land(copy, walk, scan.best->sequence);
    });
    if (waiting) {
        // A retained replaced copy may still land a lower group: the walk waits (R9).
        MOQ_PROBE("resume.sequence.waits_for_lower_group");
        return false;
    }
    // Only a sequence walk picks a best, above its floor (R9).
    MOQ_ASSERT(walk == Walk::sequence && scan.best_copy != nullptr);
    MOQ_ASSERT(!floor_ || scan.best->sequence > *floor_);
    hand(Peeked{walk, scan.best_copy->generation, *scan.best, false});
    return true;
}

bool ResumeReader::holds_for(Walk walk) const {
    // Only the arrival walk holds groups and hands them out (offer_held): a sequence walk
    // of the same reader keeps its own past the range's end in its copy.
    return walk == Walk::arrival && !held_.empty();
}

std::optional<Next<const Peek*>> ResumeReader::end_rules(const RouteRead& read, Walk walk) const {
    const std::size_t slot = index(walk);
    const Copy* serving =
        (read.serving && !copies_.empty() && copies_.back().generation == seen_generation_) ? &copies_.back() : nullptr;
    // No route will come once the route ended or its producer is gone.
    const bool concluded = read.end.has_value() || read.closed;
    if (range_exhausted(walk)) return Next<const Peek*>(End{});
    if (read.end && *read.end) return Next<const Peek*>(**read.end);
    if (serving && serving->done[slot]) {
        // The serving copy ended: the read ends unless it holds a group past the range's
        // end, which a raised end would still hand out.
        const bool holds = holds_for(walk);
        MOQ_SOMETIMES("resume.end.held_group_keeps_read_open", holds);
        if (!holds) {
            if (!*serving->done[slot]) return Next<const Peek*>(End{});
            // The serving copy failed and the route goes on: the read waits for the next route (R13).
            MOQ_SOMETIMES("resume.end.failed_copy_waits_for_route", !concluded);
            if (concluded) return Next<const Peek*>(**serving->done[slot]);
        }
        // Otherwise a serving copy that failed waits for the next route.
    } else if (!serving && concluded) {
        if (read.end) return Next<const Peek*>(End{});
        return Next<const Peek*>(Error::dropped);
    }
    return std::nullopt;
}

void ResumeReader::arm_grace(Walk walk, kio::Instant now, const kio::Waiter& waiter) {
    // Wake when the earliest grace of a copy that may still land something runs out, so
    // its let-go (and any clean end or group it was holding back) is never late.
    std::optional<kio::Instant> earliest;
    for (const Copy& copy : copies_) {
        if (!copy.replaced || exhausted_for(copy, walk) || now >= copy.grace_deadline) continue;
        if (!may_land(copy, walk, std::nullopt)) continue;
        if (!earliest || copy.grace_deadline < *earliest) earliest = copy.grace_deadline;
    }
    // A wake in the past would be at once: only a grace still running is armed.
    MOQ_SOMETIMES("resume.grace.deadline_armed", earliest.has_value());
    if (earliest) MOQ_ASSERT(now < *earliest);
    if (earliest) clock_->wake_at(*earliest, registering(MOQ_SITE("resume.grace.register", register_input), waiter));
}

kio::Poll<Next<const Peek*>> ResumeReader::walk_once(const kio::Waiter& waiter, Walk walk) {
    const RouteRead read = sync_inputs(waiter);
    const std::size_t slot = index(walk);
    drop_aborted_held();
    // An arrival walk first offers what it held back past the range's end, now in range.
    if (walk == Walk::arrival)
        if (const Peek* held = offer_held(walk)) return Next<const Peek*>(held);
    // A clean end is not final while the reader reads on: a group below a finished
    // copy's end may still land there. Only an error is.
    for (Copy& copy : copies_)
        if (copy.done[slot] && !*copy.done[slot]) copy.done[slot].reset();
    Scan scan;
    for (auto copy = copies_.rbegin(); copy != copies_.rend(); ++copy)
        if (!copy->done[slot] && scan_copy(*copy, walk, waiter, scan)) return Next<const Peek*>(&peeked_->peek);
    const kio::Instant now = clock_->now();
    if (offer_best(walk, scan, now)) return Next<const Peek*>(&peeked_->peek);
    // Parking with a peek in hand: a lower group landing in that copy, which its Ready
    // peek registered nothing for, must wake this walk.
    for (Copy* copy : scan.looked)
        cursor(*copy, walk).watch(registering(MOQ_SITE("resume.looked.register", register_input), waiter));
    watch_held(waiter);

    kio::schedule_point("resume.before_end_rules");
    let_go(walk, now);
    const bool any_retained =
        std::any_of(copies_.begin(), copies_.end(), [&](const Copy& copy) { return retained(copy, walk, now); });
    if (!scan.best && !any_retained)
        if (auto end = end_rules(read, walk)) return *end;
    arm_grace(walk, now, waiter);
    return kio::Poll<Next<const Peek*>>::pending();
}

std::optional<GroupConsumer> ResumeReader::take() {
    if (!peeked_) return std::nullopt;
    Peeked taken = std::move(*peeked_);
    peeked_.reset();
    // Handed out from a copy the route replaced: a held group (R12), or one within its
    // until and grace (R4, R8).
    MOQ_SOMETIMES("resume.take.held_from_replaced", taken.held && taken.generation < seen_generation_);
    MOQ_SOMETIMES("resume.take.from_replaced_copy", !taken.held && taken.generation < seen_generation_);
    if (!taken.held) {
        // A peek pins its copy: no let-go removes it before the take.
        const auto from = std::find_if(copies_.begin(), copies_.end(),
                                       [&](const Copy& copy) { return copy.generation == taken.generation; });
        MOQ_ASSERT(from != copies_.end());
        cursor(*from, taken.walk).take();
    }
    const std::uint64_t sequence = taken.peek.sequence;
    MOQ_ASSERT_LE(sequence, last_sequence);
    // A held group's alternatives from other copies go with it: handed out, it is held no more.
    if (taken.held) held_.erase(sequence);
    if (taken.walk == Walk::sequence) {
        // Floors only rise: a sequence walk hands out only above its floor (R9).
        if (floor_) MOQ_ASSERT_GT(sequence, *floor_);
        floor_ = sequence;
        // Every copy's sequence cursor moves past it too, not only the one it came from:
        // an aborted group just above the floor then counts as filled in each, so a
        // finished serving copy can end (R11, R17).
        raise_sequence_cursors(one_past(sequence));
    } else {
        // Once, in order: an arrival walk never hands out a sequence twice (R5).
        MOQ_ASSERT(!handed_out(sequence));
        delivered_.insert(sequence);
        // Bounded: the lowest is forgotten, and with it everything below it counts as
        // handed out, so a copy that still has it never hands it out twice (R5).
        while (delivered_.size() > options_.delivered_window) {
            MOQ_PROBE("resume.take.delivered_window_forgets");
            // The delivered floor only rises: what it forgets lies at or above it.
            MOQ_ASSERT_GE(*delivered_.begin(), delivered_floor_);
            delivered_floor_ = std::max(delivered_floor_, one_past(*delivered_.begin()));
            delivered_.erase(delivered_.begin());
        }
    }
    newest_ = max_of(newest_, sequence);
    taken_from_ = taken.generation;
    MOQ_ASSERT_LE(taken.generation, seen_generation_);
    check_reader();
    GroupConsumer group = std::move(taken.peek.group);
    group.with_recover(std::make_unique<ResumeRecover>(route_, preferences_, taken.generation, sequence));
    if (MOQ_SITE_EXPLAINED("resume.take.disarm", disarm,
                           "take follows a Ready peek of the same walk, which left that walk's gate "
                           "unarmed; the other walk reads its own floor or delivered set, which this "
                           "take does not move."))
        disarm_all();
    return group;
}

void ResumeReader::set_range(std::uint64_t start, std::optional<std::uint64_t> end) {
    // Never rewinds: the cursors skipped what lay below the old start for good.
    const std::uint64_t old_start = range_start_;
    range_start_ = std::max(range_start_, start);
    MOQ_ASSERT_GE(range_start_, old_start);
    start = range_start_;
    // A new end while groups are held past the old one: a raised end offers them (R10, R12).
    MOQ_SOMETIMES("resume.set_range.end_moved_with_groups_held", !held_.empty());
    range_end_ = end;
    if (peeked_ && (peeked_->peek.sequence < start || (end && peeked_->peek.sequence >= *end))) drop_peek();
    for (Copy& copy : copies_)
        for (std::optional<TrackCursor>& reader : copy.cursors)
            if (reader) reader->raise_floor(start);
    check_reader();
    if (MOQ_SITE("resume.set_range.disarm", disarm)) disarm_all();
}

void ResumeReader::skip_ordered(std::uint64_t floor) {
    if (floor_ && floor <= *floor_) return;
    floor_ = floor;
    if (peeked_ && peeked_->walk == Walk::sequence && peeked_->peek.sequence <= floor) peeked_.reset();
    MOQ_ASSERT(!peeked_ || peeked_->walk != Walk::sequence || peeked_->peek.sequence > *floor_);
    // The copies' sequence cursors move too: an aborted group just above the new floor
    // then counts as filled, so a finished copy can end (R11, R17).
    raise_sequence_cursors(one_past(floor));
    check_reader();
    // A raised floor can turn a replaced copy from waiting to done, which no input
    // notifies.
    if (MOQ_SITE("resume.skip_ordered.disarm", disarm)) disarm_all();
}

void ResumeReader::raise_sequence_cursors(std::uint64_t floor) {
    for (Copy& copy : copies_)
        if (std::optional<TrackCursor>& reader = copy.cursors[index(Walk::sequence)]) reader->raise_floor(floor);
}

void ResumeReader::disarm_all() {
    for (GatedRead<OneWalk>& read : reads_) read.disarm();
}

void ResumeReader::check_reader() const {
    // Oldest first, generations rising, none past the route's; all but the newest
    // replaced, and the newest unreplaced only at the route's generation (R3).
    for (std::size_t i = 0; i < copies_.size(); ++i) {
        const Copy& copy = copies_[i];
        MOQ_ASSERT_LE(copy.generation, seen_generation_);
        MOQ_ASSERT(copy.replaced || (i + 1 == copies_.size() && copy.generation == seen_generation_));
        if (i + 1 < copies_.size()) MOQ_ASSERT_LT(copy.generation, copies_[i + 1].generation);
    }
    // The delivered set is bounded, lies at or above its floor, and below the newest (R5).
    MOQ_ASSERT_LE(delivered_.size(), options_.delivered_window);
    if (!delivered_.empty()) {
        MOQ_ASSERT_GE(*delivered_.begin(), delivered_floor_);
        MOQ_ASSERT(newest_ && *delivered_.rbegin() <= *newest_);
    }
    if (!peeked_) return;
    // A peek in hand is in range, still to hand out by its walk, and (unless held) pins
    // the copy it came from.
    const std::uint64_t sequence = peeked_->peek.sequence;
    MOQ_ASSERT_GE(sequence, range_start_);
    if (range_end_) MOQ_ASSERT_LT(sequence, *range_end_);
    if (peeked_->walk == Walk::arrival) MOQ_ASSERT(!handed_out(sequence));
    if (peeked_->walk == Walk::sequence && floor_) MOQ_ASSERT_GT(sequence, *floor_);
    if (!peeked_->held)
        MOQ_ASSERT(std::any_of(copies_.begin(), copies_.end(),
                               [&](const Copy& copy) { return copy.generation == peeked_->generation; }));
}

std::vector<CopyView> ResumeReader::copies() const {
    std::vector<CopyView> views;
    for (const Copy& copy : copies_)
        views.push_back(CopyView{copy.generation, copy.replaced, copy.until, copy.grace_deadline, copy.demand});
    return views;
}

// ---- recover ----

std::optional<kio::Duration> ResumeRecover::poll_budget(const kio::Waiter& waiter) {
    return preferences_.read_and_watch(waiter, [](const Preferences& preferences) { return preferences.max_age; });
}

bool ResumeRecover::wants(std::optional<Error> failed, const kio::Waiter& waiter) {
    // Registered whatever the answer: a stalled read that stays on its copy must hear the
    // route move, or it waits for good on a copy that will never write (R14).
    const kio::Waiter& registered = registering(MOQ_SITE("resume.recover.route.register", register_input), waiter);
    const auto [generation, ended] = route_.read_and_watch(registered, [](const RouteState& state) {
        return std::pair<std::uint64_t, bool>(state.generation, state.end.has_value());
    });
    if (failed && !is_verdict(*failed)) return true;
    // A stall on a route that ended without moving: it looks past its copy for the end (R14).
    MOQ_SOMETIMES("resume.recover.stall_hears_route_end", !failed && ended && generation == generation_);
    // A verdict looks past its copy only once the route moved (R14).
    MOQ_SOMETIMES("resume.recover.verdict_looks_past", failed && generation != generation_);
    // A stall looks past its copy once the route moved on, or once it ended: an end with
    // an error ends the group with it, which a route that never moves again would
    // otherwise leave parked for good. A verdict stands unless the route moved on.
    return generation != generation_ || (!failed && ended);
}

kio::Poll<std::variant<Replacement, Error>> ResumeRecover::poll(std::size_t, std::optional<Error> failed,
                                                                const kio::Waiter& waiter) {
    using Answer = std::variant<Replacement, Error>;
    const RouteState route = route_.read_and_watch(waiter, [](const RouteState& state) { return state; });
    if (route.end && *route.end) {
        // The route ended with an error: the group ends with it (R14).
        MOQ_PROBE("resume.recover.route_error_ends_group");
        return Answer(**route.end);
    }
    // The route's generation only grows past the copy this group came from (R1).
    MOQ_ASSERT_GE(route.generation, generation_);
    if (route.generation == generation_ || !route.serving) {
        // Nothing newer to continue from. A copy that failed gives up once no route can
        // come; a stalled one keeps waiting on its own copy.
        if (failed && (route.end || route_.is_closed())) {
            // A failed group with no route left (R14).
            MOQ_PROBE("resume.recover.unroutable");
            return Answer(Error::unroutable);
        }
        return kio::Poll<Answer>::pending();
    }
    auto group = route.serving->poll_group(sequence_, waiter);
    if (group.is_pending()) return kio::Poll<Answer>::pending();
    if (!group.value().is_item()) {
        // The serving copy will not deliver it: final only for a copy that failed.
        if (failed) {
            // The serving copy refuses the group a failed read needs: its refusal ends it (R14).
            MOQ_PROBE("resume.recover.serving_copy_refuses_group");
            return Answer(group.value().is_error() ? group.value().error() : *failed);
        }
        return kio::Poll<Answer>::pending();
    }
    // The handed-out group continues from the serving copy, at the same frame (R6, R14).
    MOQ_PROBE("resume.recover.continues_on_serving_copy");
    return Answer(Replacement{group.value().item().cell(), nullptr, route.generation});
}

}  // namespace moq::model
