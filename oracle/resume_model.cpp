#include "oracle/resume_model.hpp"

#include <algorithm>

namespace moq::oracle {

namespace {

std::string copy_name(int copy) { return std::string(1, static_cast<char>('A' + copy)); }

std::string describe_end(const std::optional<model::Error>& end) {
    return end ? "error " + std::string(model::error_name(*end)) : std::string("a clean end");
}

std::optional<std::uint64_t> max_of(std::optional<std::uint64_t> a, std::optional<std::uint64_t> b) {
    if (!a) return b;
    if (!b) return a;
    return std::max(*a, *b);
}

constexpr std::size_t belief_limit = 256;

}  // namespace

ResumeModel::ResumeModel(model::Walk walk, kio::Duration grace, std::uint64_t delivered_window)
    : walk_(walk), grace_(grace), delivered_window_(delivered_window) {}

std::string ResumeModel::payload(int copy, std::uint64_t sequence) {
    return copy_name(copy) + ":" + std::to_string(sequence);
}

// ---- the history ----

bool ResumeModel::land(int copy, std::uint64_t sequence, kio::Instant now) {
    last_event_ = now;
    Track& track = tracks_[copy];
    if (track.killed_at) return false;
    if (track.landed.contains(sequence)) {
        // A group landed open gets its frame now; one that has it is refused.
        if (track.written.contains(sequence)) return false;
        track.written[sequence] = next_operation();
        return true;
    }
    if (!open(copy, sequence, now)) return false;
    track.written[sequence] = operations_;
    return true;
}

bool ResumeModel::open(int copy, std::uint64_t sequence, kio::Instant now) {
    last_event_ = now;
    Track& track = tracks_[copy];
    if (track.killed_at || track.landed.contains(sequence)) return false;
    if (track.final_sequence && sequence >= *track.final_sequence) return false;
    track.landed[sequence] = next_operation();
    return true;
}

bool ResumeModel::finish(int copy, kio::Instant now) {
    last_event_ = now;
    Track& track = tracks_[copy];
    if (track.killed_at || track.finished_at) return false;
    track.finished_at = next_operation();
    track.final_sequence = track.landed.empty() ? 0 : track.landed.rbegin()->first + 1;
    return true;
}

void ResumeModel::kill(int copy, kio::Instant now) {
    last_event_ = now;
    if (!tracks_[copy].killed_at) tracks_[copy].killed_at = next_operation();
}

bool ResumeModel::abort_group(int copy, std::uint64_t sequence, kio::Instant now) {
    last_event_ = now;
    Track& track = tracks_[copy];
    if (!track.landed.contains(sequence)) return false;
    if (!track.aborted.contains(sequence)) track.aborted[sequence] = next_operation();
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
    if (!end_) {
        end_ = error;
        end_at_ = operations_;
    }
}

void ResumeModel::touch(kio::Instant now) { last_event_ = now; }

void ResumeModel::range_set(std::uint64_t start, std::optional<std::uint64_t> end) {
    range_start_ = std::max(range_start_, start);  // R5: a range never rewinds
    range_end_ = end;
}

void ResumeModel::skipped(std::uint64_t floor) {
    if (walk_ == model::Walk::sequence && (!floor_ || floor > *floor_)) floor_ = floor;
}

// ---- the history at an operation index ----

bool ResumeModel::has(int copy, std::uint64_t sequence, std::size_t at) const {
    auto found = tracks_[copy].landed.find(sequence);
    return found != tracks_[copy].landed.end() && found->second <= at;
}

bool ResumeModel::written(int copy, std::uint64_t sequence, std::size_t at) const {
    auto found = tracks_[copy].written.find(sequence);
    return found != tracks_[copy].written.end() && found->second <= at;
}

bool ResumeModel::aborted(int copy, std::uint64_t sequence, std::size_t at) const {
    auto found = tracks_[copy].aborted.find(sequence);
    return found != tracks_[copy].aborted.end() && found->second <= at;
}

bool ResumeModel::finished(int copy, std::size_t at) const {
    return tracks_[copy].finished_at && *tracks_[copy].finished_at <= at;
}

bool ResumeModel::killed(int copy, std::size_t at) const {
    return tracks_[copy].killed_at && *tracks_[copy].killed_at <= at;
}

std::optional<std::uint64_t> ResumeModel::latest(int copy, std::size_t at) const {
    std::optional<std::uint64_t> newest;
    for (const auto& [sequence, landed_at] : tracks_[copy].landed)
        if (landed_at <= at) newest = sequence;
    return newest;
}

std::uint64_t ResumeModel::generation_at(std::size_t at) const {
    std::uint64_t generation = 0;
    for (std::uint64_t candidate = 1; candidate < generations_.size(); ++candidate)
        if (generations_[candidate].at <= at) generation = candidate;
    return generation;
}

ResumeModel::RouteView ResumeModel::route_at(std::size_t at) const {
    RouteView view{generation_at(at), std::nullopt};
    if (end_ && end_at_ <= at) view.end = end_;
    return view;
}

// ---- R3/R4: adopting a route generation ----

ResumeModel::Belief ResumeModel::adopt_at(const Belief& belief, std::uint64_t generation, std::size_t read_at,
                                          std::size_t to, kio::Instant now) const {
    Belief adopted = belief;
    adopted.generation = generation;
    for (HeldCopy& copy : adopted.copies) {
        if (copy.replaced) continue;
        // R4: capped at the newest handed out or the copy's latest when the walk followed
        // the route, somewhere between the route read and the end of the poll.
        copy.replaced = true;
        copy.until_low = max_of(newest_, latest(copy.copy, read_at));
        copy.until_high = max_of(newest_, latest(copy.copy, to));
        copy.grace_deadline = now + grace_;
    }
    if (const auto served = generations_[generation].copy)
        adopted.copies.push_back(HeldCopy{*served, generation, newest_.value_or(0), false, {}, {}, {}});
    return adopted;
}

std::vector<ResumeModel::Belief> ResumeModel::adopt(const Belief& belief, std::size_t from, std::size_t to,
                                                    kio::Instant now) const {
    std::vector<Belief> out;
    for (std::size_t read_at = from; read_at <= to; ++read_at) {
        const std::uint64_t generation = generation_at(read_at);
        Belief next = generation == belief.generation ? belief : adopt_at(belief, generation, read_at, to, now);
        if (std::find(out.begin(), out.end(), next) == out.end()) out.push_back(std::move(next));
    }
    return out;
}

std::vector<ResumeModel::Belief> ResumeModel::window_beliefs(kio::Instant now) const {
    std::vector<Belief> out;
    for (const Belief& belief : beliefs_)
        for (Belief& next : adopt(belief, window_from_, now_at(), now))
            if (out.size() < belief_limit && std::find(out.begin(), out.end(), next) == out.end())
                out.push_back(std::move(next));
    return out;
}

void ResumeModel::keep(std::vector<Belief> beliefs) { beliefs_ = std::move(beliefs); }

// ---- R5..R9: what may be handed out ----

bool ResumeModel::fresh(std::uint64_t sequence) const {
    if (walk_ == model::Walk::sequence) return !floor_ || sequence > *floor_;
    return !handed_out(sequence);
}

bool ResumeModel::in_range(std::uint64_t sequence) const {
    return sequence >= range_start_ && (!range_end_ || sequence < *range_end_);
}

std::uint64_t ResumeModel::cursor_floor(const HeldCopy& copy) const {
    std::uint64_t floor = std::max(range_start_, copy.start);
    if (walk_ == model::Walk::sequence && floor_) floor = std::max(floor, *floor_ + 1);
    return floor;
}

std::optional<std::string> ResumeModel::refuses(const HeldCopy& copy, std::uint64_t sequence, std::size_t at,
                                                std::optional<std::size_t> aborted_by) const {
    const std::string what = "group " + std::to_string(sequence) + " from copy " + copy_name(copy.copy);
    if (!has(copy.copy, sequence, at)) return "R2: " + what + ", which never had it";
    if (aborted(copy.copy, sequence, aborted_by.value_or(at))) return "R17: " + what + " was aborted before the walk";
    if (!in_range(sequence)) return "R5: " + what + " is outside the range";
    if (!fresh(sequence))
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

const ResumeModel::HeldCopy* ResumeModel::serving(const Belief& belief) const {
    if (belief.copies.empty() || belief.copies.back().replaced) return nullptr;
    return &belief.copies.back();
}

std::vector<std::uint64_t> ResumeModel::owed(const Belief& belief, std::size_t at,
                                             std::optional<std::size_t> aborted_by) const {
    std::vector<std::uint64_t> missing;
    const HeldCopy* copy = serving(belief);
    if (!copy) return missing;
    for (const auto& [sequence, landed_at] : tracks_[copy->copy].landed)
        if (landed_at <= at && !refuses(*copy, sequence, at, aborted_by) && !may_be_dropped(copy->copy, sequence))
            missing.push_back(sequence);
    return missing;
}

bool ResumeModel::may_land(const HeldCopy& copy, std::size_t at, std::optional<std::uint64_t> below) const {
    // The caller fixes `until` (see copy_retained): the highest value it allows.
    if (!copy.replaced || !copy.until_high || killed(copy.copy, at)) return false;
    std::uint64_t upper = *copy.until_high;
    if (range_end_) {
        if (*range_end_ == 0) return false;
        upper = std::min(upper, *range_end_ - 1);
    }
    // R8: only the newest window of sequences in range up to `until` is looked at.
    std::uint64_t lower = upper >= delivered_window_ ? upper - delivered_window_ + 1 : 0;
    if (below) {
        if (*below == 0) return false;
        upper = std::min(upper, *below - 1);
    }
    lower = std::max(lower, cursor_floor(copy));
    // Below the first group the copy had, nothing is missing: it never had those.
    for (const auto& [sequence, landed_at] : tracks_[copy.copy].landed)
        if (landed_at <= at) {
            lower = std::max(lower, sequence);
            break;
        }
    for (std::uint64_t sequence = lower; sequence <= upper; ++sequence) {
        if (walk_ == model::Walk::arrival && handed_out(sequence)) continue;
        if (!has(copy.copy, sequence, at)) return true;
    }
    return false;
}

bool ResumeModel::replaced_done(const HeldCopy& copy, std::size_t at) const {
    if (killed(copy.copy, at)) return true;
    if (!finished(copy.copy, at)) return false;
    for (const auto& [sequence, landed_at] : tracks_[copy.copy].landed) {
        if (landed_at > at || sequence < cursor_floor(copy)) continue;
        // It would hand this out first, unless its cursor went past it holding it (R12).
        if (!refuses(copy, sequence, at) && !may_be_dropped(copy.copy, sequence)) return false;
        // A sequence walk stops at a group past the range's end that it may still supply.
        if (walk_ == model::Walk::sequence && copy.until_high && sequence <= *copy.until_high && fresh(sequence))
            return false;
    }
    return true;
}

bool ResumeModel::retained(const Belief& belief, Looked looked, kio::Instant now, std::optional<std::uint64_t> below,
                           Until which) const {
    return std::any_of(belief.copies.begin(), belief.copies.end(),
                       [&](const HeldCopy& copy) { return copy_retained(copy, looked, now, below, which); });
}

bool ResumeModel::range_exhausted() const {
    if (!range_end_) return false;
    if (range_start_ >= *range_end_) return true;
    if (walk_ == model::Walk::sequence) return floor_ && *floor_ + 1 >= *range_end_;
    for (std::uint64_t sequence = range_start_; sequence < *range_end_; ++sequence)
        if (!handed_out(sequence)) return false;
    return true;
}

// ---- R10..R13: ends ----

std::optional<std::string> ResumeModel::serving_done(const Belief& belief, std::size_t at,
                                                     std::optional<model::Error>& error) const {
    const HeldCopy* copy = serving(belief);
    if (!copy) return "no copy serves";
    if (!owed(belief, at).empty()) return "the serving copy still has a group";
    // R12: a group past the range's end keeps the read open: the end may still be raised.
    for (const auto& [sequence, landed_at] : tracks_[copy->copy].landed)
        if (landed_at <= at && range_end_ && sequence >= *range_end_ && sequence >= cursor_floor(*copy) &&
            fresh(sequence) && !aborted(copy->copy, sequence, at) && !may_be_dropped(copy->copy, sequence))
            return "the serving copy has a group past the range's end";
    if (killed(copy->copy, at)) {
        error = model::Error::route_failed;
        return std::nullopt;
    }
    if (!finished(copy->copy, at)) return "the serving copy is not finished";
    // A sequence walk ends only once its floor reached the copy's end: a group below it
    // may still land (R11).
    // Aborted groups from the floor on fill their sequences: nothing lands there (R17).
    std::uint64_t covered = cursor_floor(*copy);
    while (aborted(copy->copy, covered, at)) ++covered;
    if (walk_ == model::Walk::sequence && *tracks_[copy->copy].final_sequence > covered)
        return "a group below the serving copy's end may still land";
    error.reset();
    return std::nullopt;
}

std::vector<std::optional<model::Error>> ResumeModel::ends(const Belief& belief, const RouteView& route, std::size_t at,
                                                           std::size_t retained_at, kio::Instant now) const {
    std::vector<std::optional<model::Error>> allowed;
    if (range_exhausted()) allowed.emplace_back(std::nullopt);  // R10
    if (!owed(belief, at).empty()) return allowed;
    // R8: a replaced copy holds the end back if it is retained whatever its `until`.
    if (retained(belief, Looked{at, retained_at}, now, std::nullopt, Until::every)) return allowed;
    if (route.end && *route.end) allowed.emplace_back(**route.end);  // R13
    const bool concluded = route.end.has_value();
    std::optional<model::Error> error;
    if (serving(belief)) {
        if (!serving_done(belief, at, error)) {
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

// ---- answers ----

void ResumeModel::poll_begun() {
    // A poll that begins inside an operation (a wake it sent ran the reader) may read an
    // input whose wake has not reached it yet as it was before that operation (I1).
    window_from_ = under_way_ ? now_at() - 1 : now_at();
}

std::size_t ResumeModel::next_operation() {
    under_way_ = true;
    return ++operations_;
}

bool ResumeModel::copy_retained(const HeldCopy& copy, Looked looked, kio::Instant now,
                                std::optional<std::uint64_t> below, Until which) const {
    if (!copy.replaced || now >= copy.grace_deadline) return false;
    // The sequences looked at move with `until`, so a higher `until` may miss nothing
    // where a lower one misses a group: each value the adopting poll allows is tried, with
    // each point at which the walk may have scanned the copy.
    std::vector<std::optional<std::uint64_t>> values;
    if (!copy.until_low) values.emplace_back(std::nullopt);  // the copy had nothing then
    if (copy.until_high)
        for (std::uint64_t until = copy.until_low.value_or(0); until <= *copy.until_high; ++until)
            values.emplace_back(until);
    for (const std::optional<std::uint64_t>& until : values) {
        HeldCopy fixed = copy;
        fixed.until_low = fixed.until_high = until;
        const bool missing = may_land(fixed, looked.judged, below);
        for (std::size_t scanned = looked.scanned_from; scanned <= looked.judged; ++scanned) {
            const bool retained = missing && !replaced_done(fixed, scanned);
            if (retained && which == Until::some) return true;
            if (!retained && which == Until::every) return false;
        }
    }
    return which == Until::every;
}

std::vector<ResumeModel::Belief> ResumeModel::let_go(const Belief& belief, kio::Instant now) const {
    // R8: a walk that hands nothing out lets go of every replaced copy it found no longer
    // retained, at whatever points of the window it looked: the copy's end at its scan,
    // what it may still land at the let-go, no earlier.
    std::vector<Belief> out{Belief{belief.generation, {}}};
    for (const HeldCopy& copy : belief.copies) {
        bool may_keep = !copy.replaced, may_drop = false;
        for (std::size_t judged = window_from_; copy.replaced && judged <= now_at(); ++judged) {
            const Looked looked{window_from_, judged};
            may_keep = may_keep || copy_retained(copy, looked, now, std::nullopt, Until::some);
            const Dropped dropped(*this, true);
            may_drop = may_drop || !copy_retained(copy, looked, now, std::nullopt, Until::every);
        }
        const std::size_t count = out.size();
        for (std::size_t index = 0; index < count; ++index) {
            if (may_keep && may_drop && out.size() < belief_limit) {
                out.push_back(out[index]);
                out.back().copies.push_back(copy);
            } else if (may_keep) {
                out[index].copies.push_back(copy);
            }
        }
    }
    return out;
}

void ResumeModel::note_held(const std::vector<Belief>& beliefs) {
    if (walk_ != model::Walk::arrival || !range_end_) return;
    for (const Belief& belief : beliefs)
        for (const HeldCopy& copy : belief.copies)
            for (const auto& [sequence, landed_at] : tracks_[copy.copy].landed)
                if (landed_at <= now_at() && sequence >= *range_end_ && sequence >= cursor_floor(copy) &&
                    (!copy.replaced || (copy.until_high && sequence <= *copy.until_high)))
                    maybe_held_.insert({copy.copy, sequence});
}

bool ResumeModel::may_be_dropped(int copy, std::uint64_t sequence) const {
    if (!dropped_reading_ || walk_ != model::Walk::arrival || !maybe_held_.contains({copy, sequence})) return false;
    std::set<std::uint64_t> lower;
    for (const auto& held : maybe_held_)
        if (held.second < sequence) lower.insert(held.second);
    return lower.size() >= delivered_window_;
}

bool ResumeModel::may_hold() const {
    return std::any_of(maybe_held_.begin(), maybe_held_.end(), [&](const auto& held) {
        const std::uint64_t sequence = held.second;
        if (aborted(held.first, sequence, now_at())) return false;  // R17: dropped
        return sequence >= range_start_ && range_end_ && sequence >= *range_end_ && fresh(sequence);
    });
}

void ResumeModel::answered_pending(kio::Instant now, bool walked) {
    if (!walked) return;
    note_held(window_beliefs(now));
    std::vector<Belief> kept;
    for (const Belief& belief : window_beliefs(now))
        for (Belief& next : let_go(belief, now))
            if (kept.size() < belief_limit && std::find(kept.begin(), kept.end(), next) == kept.end())
                kept.push_back(std::move(next));
    keep(std::move(kept));
}

// R3/R4/R12: the states in which one of the reader's copies of `copy` supplied `sequence`
// (narrowing that copy's until), or it was held past the range's end.
std::vector<ResumeModel::Belief> ResumeModel::suppliers(const Belief& belief, int copy, std::uint64_t sequence,
                                                        std::optional<std::string>& reason) const {
    std::vector<Belief> out;
    std::optional<std::string> refused = "R3: group " + std::to_string(sequence) + " came from copy " +
                                         copy_name(copy) + ", which the reader never adopted";
    for (std::size_t index = 0; index < belief.copies.size(); ++index) {
        const HeldCopy& held = belief.copies[index];
        if (held.copy != copy) continue;
        refused = refuses(held, sequence, now_at(), window_from_);
        if (refused) continue;
        out.push_back(belief);
        if (held.replaced) out.back().copies[index].until_low = max_of(held.until_low, sequence);
    }
    // R12: a group held past the range's end is handed out once the range covers it,
    // whatever became of its copy since. Held from another copy of the same track, it
    // says nothing of the `until` of a replaced copy that could also have supplied it:
    // that reading stays beside the narrowed ones.
    if (maybe_held_.contains({copy, sequence}) && in_range(sequence) && fresh(sequence) &&
        !aborted(copy, sequence, window_from_))
        out.push_back(belief);
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
    if (stopped_) return "R10: " + what + " handed out after the reader ended";
    std::vector<Belief> kept;
    for (const Belief& belief : window_beliefs(now)) {
        // R9: a sequence walk hands out the lowest group the serving copy had when it looked.
        if (walk_ == model::Walk::sequence)
            // A group aborted during the poll may have been skipped (R17).
            if (const auto lower = owed(belief, window_from_, now_at()); !lower.empty() && lower.front() < sequence) {
                if (!reason)
                    reason =
                        "R9: " + what + " handed out while the serving copy had group " + std::to_string(lower.front());
                continue;
            }
        for (const int copy : copies)
            for (Belief& next : suppliers(belief, copy, sequence, reason))
                if (kept.size() < belief_limit && std::find(kept.begin(), kept.end(), next) == kept.end())
                    kept.push_back(std::move(next));
    }
    if (kept.empty()) return reason;
    note_held(kept);
    keep(std::move(kept));
    group_reads_.insert_or_assign(sequence, GroupRead{now_at(), copies, frames});
    if (walk_ == model::Walk::arrival) {
        // R5: the lowest remembered is forgotten, and with it everything below it.
        delivered_.insert(sequence);
        while (delivered_.size() > delivered_window_) {
            delivered_floor_ = std::max(delivered_floor_, *delivered_.begin() + 1);
            delivered_.erase(delivered_.begin());
        }
    }
    newest_ = max_of(newest_, sequence);
    if (walk_ == model::Walk::sequence) floor_ = max_of(floor_, sequence);
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

std::optional<std::string> ResumeModel::answered_end(std::optional<model::Error> error, kio::Instant now) {
    stopped_ = true;
    std::vector<Belief> kept;
    for (const Belief& belief : beliefs_)
        for (std::size_t read_at = window_from_; read_at <= now_at(); ++read_at) {
            const RouteView route = route_at(read_at);
            const Belief adopted = route.generation == belief.generation
                                       ? belief
                                       : adopt_at(belief, route.generation, read_at, now_at(), now);
            // The walk reads each copy, and later judges retention (what a replaced copy
            // may still land), at points of its own.
            bool allowed_here = false;
            // Under either reading of the held bound (R12).
            for (std::size_t at = read_at; at <= now_at() && !allowed_here; ++at)
                for (std::size_t retained_at = at; retained_at <= now_at() && !allowed_here; ++retained_at)
                    for (const bool dropped : {false, true}) {
                        const Dropped reading(*this, dropped);
                        const auto allowed = ends(adopted, route, at, retained_at, now);
                        allowed_here =
                            allowed_here || std::find(allowed.begin(), allowed.end(), error) != allowed.end();
                    }
            if (allowed_here && std::find(kept.begin(), kept.end(), adopted) == kept.end()) kept.push_back(adopted);
        }
    if (kept.empty()) return "R10: the reader ended with " + describe_end(error) + ", which no end rule allows";
    keep(std::move(kept));
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
    // A missed wake only if both readings of the held bound (R12) say so.
    std::optional<std::string> reason = quiescent_reading(now, false);
    if (reason && !quiescent_reading(now, true)) return std::nullopt;
    return reason;
}

std::optional<std::string> ResumeModel::quiescent_reading(kio::Instant now, bool dropped) const {
    if (stopped_) return std::nullopt;
    const Dropped reading(*this, dropped);
    std::optional<std::string> reason;
    for (const Belief& belief : beliefs_) {
        // A walk now would follow the current route (R3) and find what the rules say.
        const RouteView route = route_at(now_at());
        const Belief current = route.generation == belief.generation
                                   ? belief
                                   : adopt_at(belief, route.generation, now_at(), now_at(), now);
        const std::vector<std::uint64_t> missing = owed(current, now_at());
        if (!missing.empty()) {
            // R9: a sequence walk may wait while a replaced copy may land a lower group.
            if (walk_ == model::Walk::sequence && retained(current, Looked{now_at(), now_at()}, now, missing.front()))
                return std::nullopt;
            if (!reason)
                reason = "R7: missed wake: the reader is parked while serving copy " +
                         copy_name(serving(current)->copy) + " has group " + std::to_string(missing.front()) +
                         " for it";
            continue;
        }
        if (retained(current, Looked{now_at(), now_at()}, now, std::nullopt)) return std::nullopt;
        if (may_hold()) return std::nullopt;  // R12
        const auto allowed = ends(current, route, now_at(), now_at(), now);
        if (allowed.empty()) return std::nullopt;
        if (!reason)
            reason =
                "R10: missed wake: the reader is parked but should have ended with " + describe_end(allowed.front());
    }
    return reason;
}

}  // namespace moq::oracle
