#include "oracle/resume_model.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace moq::oracle {

namespace {

// R10, T1: one past a sequence saturates at the largest u64, never wraps back to 0.
std::uint64_t one_past(std::uint64_t sequence) {
    return sequence == std::numeric_limits<std::uint64_t>::max() ? sequence : sequence + 1;
}

std::optional<std::uint64_t> max_of(std::optional<std::uint64_t> a, std::optional<std::uint64_t> b) {
    if (!a) return b;
    if (!b) return a;
    return std::max(*a, *b);
}

}  // namespace

ResumeModel::ResumeModel(model::Walk walk, kio::Duration grace, std::uint64_t delivered_window)
    : walk_(walk), grace_(grace), delivered_window_(delivered_window) {}

void ResumeModel::add_state(std::vector<LegalState>& states, LegalState state, std::size_t limit) const {
    // The replaced copies are a set to every rule (only the serving copy's place, last,
    // tells anything): one order for them lets equal states meet.
    auto replaced_end = state.copies.end();
    if (!state.copies.empty() && !state.copies.back().replaced) --replaced_end;
    std::sort(state.copies.begin(), replaced_end);
    if (std::find(states.begin(), states.end(), state) != states.end()) return;
    if (states.size() < limit) {
        states.push_back(std::move(state));
        return;
    }
    // A legal state left out could make an allowed answer look like a violation: from here
    // on the model judges nothing that rests on the legal states.
    bounded_ = true;
}

std::string ResumeModel::copy_name(int copy) { return std::string(1, static_cast<char>('A' + copy)); }

std::string ResumeModel::describe_end(const std::optional<model::Error>& end) {
    return end ? "error " + std::string(model::error_name(*end)) : std::string("a clean end");
}

std::string ResumeModel::payload(int copy, std::uint64_t sequence) {
    return copy_name(copy) + ":" + std::to_string(sequence);
}

// ---- the history: R1 (the route), R2 (copies), R17 (aborts) ----

std::size_t ResumeModel::next_operation() {
    under_way_ = true;
    return ++operations_;
}

bool ResumeModel::land(int copy, std::uint64_t sequence, kio::Instant now) {
    last_event_ = now;
    CopyHistory& history = copies_[copy];
    if (history.failed_at) return false;
    if (history.landed.contains(sequence)) {
        // A group landed open gets its frame now; one that has it is refused.
        if (history.written.contains(sequence)) return false;
        history.written[sequence] = next_operation();
        return true;
    }
    if (!open(copy, sequence, now)) return false;
    history.written[sequence] = operations_;
    return true;
}

bool ResumeModel::open(int copy, std::uint64_t sequence, kio::Instant now) {
    last_event_ = now;
    CopyHistory& history = copies_[copy];
    if (history.failed_at || history.landed.contains(sequence)) return false;
    if (history.end_sequence && sequence >= *history.end_sequence) return false;
    history.landed[sequence] = next_operation();
    return true;
}

bool ResumeModel::finish(int copy, kio::Instant now) {
    last_event_ = now;
    CopyHistory& history = copies_[copy];
    if (history.failed_at || history.finished_at) return false;
    history.finished_at = next_operation();
    history.end_sequence = history.landed.empty() ? 0 : one_past(history.landed.rbegin()->first);
    return true;
}

void ResumeModel::kill(int copy, kio::Instant now) {
    last_event_ = now;
    if (!copies_[copy].failed_at) copies_[copy].failed_at = next_operation();
}

bool ResumeModel::abort_group(int copy, std::uint64_t sequence, kio::Instant now) {
    last_event_ = now;
    CopyHistory& history = copies_[copy];
    if (!history.landed.contains(sequence)) return false;
    if (!history.aborted.contains(sequence)) history.aborted[sequence] = next_operation();
    return true;
}

void ResumeModel::serve(int copy, kio::Instant now) {
    last_event_ = now;
    generations_.push_back(Generation{copy, next_operation()});
}

void ResumeModel::park(kio::Instant now) {
    last_event_ = now;
    generations_.push_back(Generation{std::nullopt, next_operation()});
}

void ResumeModel::end(std::optional<model::Error> error, kio::Instant now) {
    last_event_ = now;
    next_operation();
    if (!route_end_) {  // R1: the first end wins
        route_end_ = error;
        route_end_at_ = operations_;
    }
}

void ResumeModel::touch(kio::Instant now) { last_event_ = now; }

bool ResumeModel::has(int copy, std::uint64_t sequence, std::size_t at) const {
    auto found = copies_[copy].landed.find(sequence);
    return found != copies_[copy].landed.end() && found->second <= at;
}

bool ResumeModel::written(int copy, std::uint64_t sequence, std::size_t at) const {
    auto found = copies_[copy].written.find(sequence);
    return found != copies_[copy].written.end() && found->second <= at;
}

bool ResumeModel::aborted(int copy, std::uint64_t sequence, std::size_t at) const {
    auto found = copies_[copy].aborted.find(sequence);
    return found != copies_[copy].aborted.end() && found->second <= at;
}

bool ResumeModel::finished(int copy, std::size_t at) const {
    return copies_[copy].finished_at && *copies_[copy].finished_at <= at;
}

bool ResumeModel::failed(int copy, std::size_t at) const {
    return copies_[copy].failed_at && *copies_[copy].failed_at <= at;
}

std::optional<std::uint64_t> ResumeModel::newest_group(int copy, std::size_t at) const {
    std::optional<std::uint64_t> newest;
    for (const auto& [sequence, landed_at] : copies_[copy].landed)
        if (landed_at <= at) newest = sequence;
    return newest;
}

std::optional<std::uint64_t> ResumeModel::first_group(int copy, std::size_t at) const {
    for (const auto& [sequence, landed_at] : copies_[copy].landed)
        if (landed_at <= at) return sequence;
    return std::nullopt;
}

std::uint64_t ResumeModel::generation_at(std::size_t at) const {
    std::uint64_t generation = 0;
    for (std::uint64_t candidate = 1; candidate < generations_.size(); ++candidate)
        if (generations_[candidate].at <= at) generation = candidate;
    return generation;
}

ResumeModel::RouteView ResumeModel::route_at(std::size_t at) const {
    RouteView view{generation_at(at), std::nullopt};
    if (route_end_ && route_end_at_ <= at) view.end = route_end_;
    return view;
}

// ---- R3, R4: adopting a route generation ----

ResumeModel::LegalState ResumeModel::adopt_at(const LegalState& state, std::uint64_t generation, std::size_t read_at,
                                              std::size_t to, kio::Instant now) const {
    LegalState adopted = state;
    adopted.generation = generation;
    for (AdoptedCopy& copy : adopted.copies) {
        if (copy.replaced) continue;
        // R4: `until` is the newest handed out or the copy's newest group when the walk
        // followed the route, somewhere between the route read and the end of the poll.
        copy.replaced = true;
        copy.until_low = max_of(newest_handed_out_, newest_group(copy.copy, read_at));
        copy.until_high = max_of(newest_handed_out_, newest_group(copy.copy, to));
        copy.grace_deadline = now + grace_;
    }
    if (const auto served = generations_[generation].copy)
        adopted.copies.push_back(AdoptedCopy{*served, newest_handed_out_.value_or(0), false, {}, {}, {}, false});
    return adopted;
}

std::vector<ResumeModel::LegalState> ResumeModel::adopt(const LegalState& state, std::size_t from, std::size_t to,
                                                        kio::Instant now) const {
    std::vector<LegalState> out;
    for (std::size_t read_at = from; read_at <= to; ++read_at) {
        const std::uint64_t generation = generation_at(read_at);
        add_state(out, generation == state.generation ? state : adopt_at(state, generation, read_at, to, now),
                  to - from + 1);
    }
    return out;
}

std::vector<ResumeModel::LegalState> ResumeModel::window_states(kio::Instant now) const {
    std::vector<LegalState> out;
    for (const LegalState& state : legal_states_)
        for (LegalState& next : adopt(state, window_from_, now_at(), now)) add_state(out, std::move(next));
    return out;
}

void ResumeModel::narrow_to(std::vector<LegalState> states) { legal_states_ = std::move(states); }

// ---- R5: range, once and in order ----

void ResumeModel::range_set(std::uint64_t start, std::optional<std::uint64_t> end) {
    range_start_ = std::max(range_start_, start);  // a range never rewinds
    range_end_ = end;
}

void ResumeModel::range_set_in_poll(std::uint64_t start, std::optional<std::uint64_t> end, kio::Instant now) {
    if (!peek_in_hand_) {
        // An earlier change dropped the peek: nothing walked since.
        range_set(start, end);
        return;
    }
    note_held_past_end(window_states(now));
    range_set(start, end);
    if (!in_range(*peek_in_hand_)) peek_dropped(now);
}

void ResumeModel::peek_dropped(kio::Instant now) {
    peek_in_hand_.reset();
    narrow_to(window_states(now));
    poll_begun();
}

std::optional<std::string> ResumeModel::kept_peek_answered(std::optional<std::uint64_t> sequence) {
    const std::optional<std::uint64_t> kept = std::exchange(peek_in_hand_, std::nullopt);
    if (!kept || sequence == kept) return std::nullopt;
    return "R5: the poll answered " + (sequence ? "group " + std::to_string(*sequence) : std::string("no group")) +
           " after a range change kept its peek of group " + std::to_string(*kept);
}

void ResumeModel::skipped(std::uint64_t floor) {
    if (walk_ == model::Walk::sequence && (!floor_ || floor > *floor_)) floor_ = floor;
}

bool ResumeModel::in_range(std::uint64_t sequence) const {
    return sequence >= range_start_ && (!range_end_ || sequence < *range_end_);
}

bool ResumeModel::counts_as_handed_out(std::uint64_t sequence) const {
    return sequence < forgotten_below_ || remembered_.contains(sequence);
}

bool ResumeModel::not_handed_out(std::uint64_t sequence) const {
    if (walk_ == model::Walk::sequence) return !floor_ || sequence > *floor_;
    return !counts_as_handed_out(sequence);
}

std::uint64_t ResumeModel::lowest_offered(const AdoptedCopy& copy) const {
    std::uint64_t lowest = std::max(range_start_, copy.start);
    if (walk_ == model::Walk::sequence && floor_) lowest = std::max(lowest, one_past(*floor_));
    return lowest;
}

// R10: the range is used up once its start reached its end, a sequence walk's floor is
// one below the end or higher, or an arrival walk handed out every sequence of it.
bool ResumeModel::range_used_up() const {
    if (!range_end_) return false;
    if (range_start_ >= *range_end_) return true;
    if (walk_ == model::Walk::sequence) return floor_ && one_past(*floor_) >= *range_end_;
    for (std::uint64_t sequence = range_start_; sequence < *range_end_; ++sequence)
        if (!counts_as_handed_out(sequence)) return false;
    return true;
}

void ResumeModel::hand_out(std::uint64_t sequence) {
    if (walk_ == model::Walk::arrival) {
        // R5: the lowest remembered is forgotten, and with it everything below it.
        remembered_.insert(sequence);
        while (remembered_.size() > delivered_window_) {
            forgotten_below_ = std::max(forgotten_below_, one_past(*remembered_.begin()));
            remembered_.erase(remembered_.begin());
        }
    }
    newest_handed_out_ = max_of(newest_handed_out_, sequence);
    if (walk_ == model::Walk::sequence) floor_ = max_of(floor_, sequence);
}

// ---- R3..R9: what may be handed out, and what is owed ----

std::optional<std::string> ResumeModel::refuses(const AdoptedCopy& copy, std::uint64_t sequence, std::size_t at,
                                                std::optional<std::size_t> aborted_by) const {
    const std::string what = "group " + std::to_string(sequence) + " from copy " + copy_name(copy.copy);
    if (!has(copy.copy, sequence, at)) return "R2: " + what + ", which never had it";
    if (aborted(copy.copy, sequence, aborted_by.value_or(at))) return "R17: " + what + " was aborted before the walk";
    if (!in_range(sequence)) return "R5: " + what + " is outside the range";
    if (!not_handed_out(sequence))
        return walk_ == model::Walk::sequence ? "R5: " + what + " is at or below the sequence floor"
                                              : "R5: " + what + " was handed out before";
    if (sequence < copy.start)
        return "R3: " + what + " lies below " + std::to_string(copy.start) +
               ", the newest handed out when that copy was adopted";
    if (copy.replaced && (!copy.until_high || sequence > *copy.until_high))
        return "R4: " + what + " came from a replaced copy past its until (" +
               (copy.until_high ? std::to_string(*copy.until_high) : std::string("none")) + ")";
    return std::nullopt;
}

const ResumeModel::AdoptedCopy* ResumeModel::serving_copy(const LegalState& state) const {
    if (state.copies.empty() || state.copies.back().replaced) return nullptr;
    return &state.copies.back();
}

std::vector<std::uint64_t> ResumeModel::owed(const LegalState& state, std::size_t at, HeldBound bound,
                                             std::optional<std::size_t> aborted_by) const {
    std::vector<std::uint64_t> missing;
    const AdoptedCopy* copy = serving_copy(state);
    if (!copy) return missing;
    for (const auto& [sequence, landed_at] : copies_[copy->copy].landed)
        if (landed_at <= at && !refuses(*copy, sequence, at, aborted_by) && !held_dropped(copy->copy, sequence, bound))
            missing.push_back(sequence);
    return missing;
}

// ---- R12: groups held past the range's end ----

void ResumeModel::note_held_past_end(const std::vector<LegalState>& states) {
    if (walk_ != model::Walk::arrival || !range_end_) return;
    for (const LegalState& state : states)
        for (const AdoptedCopy& copy : state.copies)
            for (const auto& [sequence, landed_at] : copies_[copy.copy].landed)
                if (landed_at <= now_at() && sequence >= *range_end_ && sequence >= lowest_offered(copy) &&
                    (!copy.replaced || (copy.until_high && sequence <= *copy.until_high)))
                    held_past_end_.insert({copy.copy, sequence});
}

bool ResumeModel::held_dropped(int copy, std::uint64_t sequence, HeldBound bound) const {
    if (bound == HeldBound::kept_all || walk_ != model::Walk::arrival || !held_past_end_.contains({copy, sequence}))
        return false;
    std::set<std::uint64_t> lower;
    for (const auto& held : held_past_end_)
        if (held.second < sequence) lower.insert(held.second);
    return lower.size() >= delivered_window_;
}

bool ResumeModel::holds_past_end() const {
    return std::any_of(held_past_end_.begin(), held_past_end_.end(), [&](const auto& held) {
        const std::uint64_t sequence = held.second;
        if (aborted(held.first, sequence, now_at())) return false;  // R17: dropped
        return sequence >= range_start_ && range_end_ && sequence >= *range_end_ && not_handed_out(sequence);
    });
}

// ---- R10..R13: ends ----

std::optional<std::string> ResumeModel::serving_done(const LegalState& state, std::size_t at, HeldBound bound,
                                                     std::optional<model::Error>& error) const {
    const AdoptedCopy* copy = serving_copy(state);
    if (!copy) return "no copy serves";
    if (!owed(state, at, bound).empty()) return "the serving copy still has a group";
    // R12: a group past the range's end keeps the read open: the end may still be raised.
    for (const auto& [sequence, landed_at] : copies_[copy->copy].landed)
        if (landed_at <= at && range_end_ && sequence >= *range_end_ && sequence >= lowest_offered(*copy) &&
            not_handed_out(sequence) && !aborted(copy->copy, sequence, at) &&
            !held_dropped(copy->copy, sequence, bound))
            return "the serving copy has a group past the range's end";
    if (failed(copy->copy, at)) {
        error = model::Error::route_failed;
        return std::nullopt;
    }
    if (!finished(copy->copy, at)) return "the serving copy is not finished";
    // R11: a sequence walk ends only once its floor reached the copy's end: a group below
    // it may still land. Aborted groups from the floor on fill their sequences (R17).
    std::uint64_t covered = lowest_offered(*copy);
    while (aborted(copy->copy, covered, at)) ++covered;
    if (walk_ == model::Walk::sequence && *copies_[copy->copy].end_sequence > covered)
        return "a group below the serving copy's end may still land";
    error.reset();
    return std::nullopt;
}

std::vector<std::optional<model::Error>> ResumeModel::legal_ends(const LegalState& state, const RouteView& route,
                                                                 std::size_t at, std::size_t retained_at,
                                                                 kio::Instant now, HeldBound bound) const {
    std::vector<std::optional<model::Error>> allowed;
    if (range_used_up()) allowed.emplace_back(std::nullopt);  // R10
    if (!owed(state, at, bound).empty()) return allowed;
    // R8: a replaced copy holds the end back if it is retained whatever its `until`.
    if (any_retained(state, Looked{at, retained_at}, now, std::nullopt, Until::every, bound)) return allowed;
    if (route.end && *route.end) allowed.emplace_back(**route.end);  // R13
    const bool concluded = route.end.has_value();
    std::optional<model::Error> error;
    if (serving_copy(state)) {
        if (!serving_done(state, at, bound, error)) {
            if (!error)
                allowed.emplace_back(std::nullopt);  // R11
            else if (concluded)
                allowed.emplace_back(error);  // R13
        }
    } else if (concluded && !*route.end) {
        allowed.emplace_back(std::nullopt);  // R13: no copy serves and the route ended
    }
    return allowed;
}

// ---- the answers ----

void ResumeModel::poll_begun() {
    // A poll that begins inside an operation (a wake it sent ran the reader) may read an
    // input whose wake has not reached it yet as it was before that operation (I1).
    window_from_ = under_way_ ? now_at() - 1 : now_at();
}

std::optional<std::string> ResumeModel::answered_pending(kio::Instant now, bool walked) {
    auto kept_peek = kept_peek_answered(std::nullopt);
    if (!walked) return kept_peek;
    note_held_past_end(window_states(now));
    std::vector<LegalState> kept;
    for (const LegalState& state : window_states(now))
        for (LegalState& next : after_let_go(state, now)) add_state(kept, std::move(next));
    narrow_to(std::move(kept));
    return kept_peek;
}

// R3/R4/R12: the states in which one of the reader's copies of `copy` supplied `sequence`
// (narrowing that copy's until), or it was held past the range's end.
std::vector<ResumeModel::LegalState> ResumeModel::suppliers(const LegalState& state, int copy, std::uint64_t sequence,
                                                            std::optional<std::string>& reason) const {
    std::vector<LegalState> out;
    std::optional<std::string> refused = "R3: group " + std::to_string(sequence) + " came from copy " +
                                         copy_name(copy) + ", which the reader never adopted";
    for (std::size_t index = 0; index < state.copies.size(); ++index) {
        const AdoptedCopy& adopted = state.copies[index];
        if (adopted.copy != copy) continue;
        refused = refuses(adopted, sequence, now_at(), window_from_);
        if (refused) continue;
        out.push_back(state);
        if (adopted.replaced) out.back().copies[index].until_low = max_of(adopted.until_low, sequence);
        out.back().copies[index].maybe_let_go = false;  // R8: it supplied, so it was kept
    }
    // R12: a group held past the range's end is handed out once the range covers it,
    // whatever became of its copy since. Held from another copy of the same track, it
    // says nothing of the `until` of a replaced copy that could also have supplied it:
    // that reading stays beside the narrowed ones.
    if (held_past_end_.contains({copy, sequence}) && in_range(sequence) && not_handed_out(sequence) &&
        !aborted(copy, sequence, window_from_))
        out.push_back(state);
    if (out.empty() && !reason) reason = refused;
    return out;
}

std::optional<std::string> ResumeModel::answered_group(std::uint64_t sequence, const std::vector<std::string>& frames,
                                                       kio::Instant now, std::optional<int> landing) {
    std::optional<std::string> reason;
    const std::vector<int> copies = supplier_copies(sequence, frames, landing, reason);
    if (copies.empty()) return reason;
    return taken(sequence, copies, frames.size(), now, std::move(reason));
}

std::optional<std::string> ResumeModel::answered_unread_group(std::uint64_t sequence, kio::Instant now,
                                                              std::optional<int> landing) {
    // Its frames come later (group_frame): any copy that has it, or is landing it, may be
    // the one it came from.
    std::vector<int> copies;
    for (int copy = 0; copy < copy_count; ++copy)
        if (has(copy, sequence, now_at()) || landing == copy) copies.push_back(copy);
    if (copies.empty()) return "R2: group " + std::to_string(sequence) + " handed out, but no copy ever had it";
    auto judged = taken(sequence, copies, 0, now, std::nullopt);
    if (auto read = group_reads_.find(sequence); read != group_reads_.end()) read->second.polled = false;
    return judged;
}

std::optional<std::string> ResumeModel::taken(std::uint64_t sequence, const std::vector<int>& copies,
                                              std::size_t frames, kio::Instant now, std::optional<std::string> reason) {
    const std::string what = "group " + std::to_string(sequence);
    if (ended_) return "R10: " + what + " handed out after the reader ended";
    if (auto not_kept = kept_peek_answered(sequence)) return not_kept;
    std::vector<LegalState> kept;
    for (const LegalState& state : window_states(now)) {
        // R9: a sequence walk hands out the lowest group the serving copy had when the
        // poll began (a group aborted during the poll may have been skipped, R17).
        if (walk_ == model::Walk::sequence)
            if (const auto lower = owed(state, window_from_, HeldBound::kept_all, now_at());
                !lower.empty() && lower.front() < sequence) {
                if (!reason)
                    reason =
                        "R9: " + what + " handed out while the serving copy had group " + std::to_string(lower.front());
                continue;
            }
        for (const int copy : copies)
            for (LegalState& next : suppliers(state, copy, sequence, reason)) add_state(kept, std::move(next));
    }
    if (kept.empty() && !bounded_) return reason;
    if (!kept.empty()) {
        note_held_past_end(kept);
        narrow_to(std::move(kept));
    }
    group_reads_.insert_or_assign(sequence, GroupRead{now_at(), copies, frames});
    hand_out(sequence);
    return std::nullopt;
}

std::vector<int> ResumeModel::supplier_copies(std::uint64_t sequence, const std::vector<std::string>& frames,
                                              std::optional<int> landing, std::optional<std::string>& reason) const {
    const std::string what = "group " + std::to_string(sequence);
    std::vector<int> copies;
    if (frames.size() > 1) {
        reason = "R6: " + what + " read " + std::to_string(frames.size()) + " frames, not 1";
        return copies;
    }
    // A group aborted after it was handed out ends its read early, or continues from the
    // serving copy's group through its recover (R14): any copy that aborted it may be the
    // one that supplied it.
    int named = -1;
    if (!frames.empty()) {
        const std::string& frame = frames.front();
        named = frame.empty() ? -1 : frame[0] - 'A';
        if (named < 0 || named >= copy_count || frame != payload(named, sequence)) {
            reason = "R6: " + what + " read the frame '" + frame + "', which names another group";
            return copies;
        }
        if (!written(named, sequence, now_at())) {
            reason = "R6: " + what + " read the frame of copy " + copy_name(named) + " before that copy wrote it";
            return copies;
        }
        copies.push_back(named);
    }
    // So may a group taken while its copy was still landing it, or had landed it open:
    // its read stalled before the frame was written (R2, R6).
    for (int copy = 0; copy < copy_count; ++copy) {
        const bool open = has(copy, sequence, now_at()) && !written(copy, sequence, window_from_);
        if (copy != named && (aborted(copy, sequence, now_at()) || landing == copy || open)) copies.push_back(copy);
    }
    if (copies.empty()) reason = "R6: " + what + " read no frame, and no copy aborted it or held it open";
    return copies;
}

bool ResumeModel::end_allowed(const LegalState& state, std::size_t read_at, std::optional<model::Error> error,
                              kio::Instant now) const {
    // The walk reads each copy, and later judges retention (what a replaced copy may still
    // land), at points of its own; under either reading of the held bound (R12).
    const RouteView route = route_at(read_at);
    for (std::size_t at = read_at; at <= now_at(); ++at)
        for (std::size_t retained_at = at; retained_at <= now_at(); ++retained_at)
            for (const HeldBound bound : {HeldBound::kept_all, HeldBound::dropped_furthest}) {
                const auto allowed = legal_ends(state, route, at, retained_at, now, bound);
                if (std::find(allowed.begin(), allowed.end(), error) != allowed.end()) return true;
            }
    return false;
}

std::optional<std::string> ResumeModel::answered_end(std::optional<model::Error> error, kio::Instant now) {
    ended_ = true;
    if (auto not_kept = kept_peek_answered(std::nullopt)) return not_kept;
    std::vector<LegalState> kept;
    for (const LegalState& state : legal_states_)
        for (std::size_t read_at = window_from_; read_at <= now_at(); ++read_at) {
            const std::uint64_t generation = generation_at(read_at);
            const LegalState adopted =
                generation == state.generation ? state : adopt_at(state, generation, read_at, now_at(), now);
            if (end_allowed(adopted, read_at, error, now))
                add_state(kept, adopted, std::numeric_limits<std::size_t>::max());
        }
    if (kept.empty() && !bounded_)
        return "R10: the reader ended with " + describe_end(error) + ", which no end rule allows";
    if (!kept.empty()) narrow_to(std::move(kept));
    if (now > last_event_ + grace_)
        return "R8: the reader ended " +
               std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now - last_event_).count()) +
               " ms after the last event, later than the grace allows";
    return std::nullopt;
}

std::optional<std::string> ResumeModel::quiescent(kio::Instant now) const {
    // The reads of handed-out groups go on after the reader ended.
    for (const auto& [sequence, read] : group_reads_)
        if (read.polled)
            if (auto missed = group_read_parked(sequence)) return missed;
    // R12: a missed wake only if both readings of the held bound say so.
    std::optional<std::string> reason = missed_wake(now, HeldBound::kept_all);
    if (reason && !missed_wake(now, HeldBound::dropped_furthest)) return std::nullopt;
    return reason;
}

std::optional<std::string> ResumeModel::missed_wake(kio::Instant now, HeldBound bound) const {
    if (ended_ || bounded_) return std::nullopt;
    std::optional<std::string> reason;
    const RouteView route = route_at(now_at());
    const Looked looked_now{now_at(), now_at()};
    for (const LegalState& state : legal_states_) {
        // A walk now would follow the current route (R3) and find what the rules say.
        const LegalState current =
            route.generation == state.generation ? state : adopt_at(state, route.generation, now_at(), now_at(), now);
        const std::vector<std::uint64_t> missing = owed(current, now_at(), bound);
        if (!missing.empty()) {
            // R9: a sequence walk may wait while a replaced copy may land a lower group.
            if (walk_ == model::Walk::sequence &&
                any_retained(current, looked_now, now, missing.front(), Until::some, bound))
                return std::nullopt;
            if (!reason)
                reason = "R7: missed wake: the reader is parked while serving copy " +
                         copy_name(serving_copy(current)->copy) + " has group " + std::to_string(missing.front()) +
                         " for it";
            continue;
        }
        if (any_retained(current, looked_now, now, std::nullopt, Until::some, bound)) return std::nullopt;
        if (holds_past_end()) return std::nullopt;  // R12
        const auto allowed = legal_ends(current, route, now_at(), now_at(), now, bound);
        if (allowed.empty()) return std::nullopt;
        if (!reason)
            reason =
                "R10: missed wake: the reader is parked but should have ended with " + describe_end(allowed.front());
    }
    return reason;
}

}  // namespace moq::oracle
