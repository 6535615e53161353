// The resume model's R8: when a replaced copy is retained (within its grace, not finished
// past everything it had, a group it may still supply missing), and the legal states a
// walk that handed out nothing leaves once it let go of the copies it did not retain.
#include <algorithm>

#include "oracle/resume_model.hpp"

namespace moq::oracle {

bool ResumeModel::missing_group(const AdoptedCopy& copy, std::size_t at, std::optional<std::uint64_t> below) const {
    // The caller fixes `until` (is_retained): its upper bound is the value judged.
    if (!copy.replaced || !copy.until_high || failed(copy.copy, at)) return false;
    // The sequences looked at: the newest `delivered_window` in range up to `until`...
    std::uint64_t newest_looked = *copy.until_high;
    if (range_end_) {
        if (*range_end_ == 0) return false;
        newest_looked = std::min(newest_looked, *range_end_ - 1);
    }
    const std::uint64_t oldest_looked = newest_looked >= delivered_window_ ? newest_looked - delivered_window_ + 1 : 0;
    // ...below the group a sequence walk found, at or above what the copy may still offer,
    // and not below the first group it had (it never had those).
    std::uint64_t last = newest_looked;
    if (below) {
        if (*below == 0) return false;
        last = std::min(last, *below - 1);
    }
    const std::uint64_t first = std::max({oldest_looked, lowest_offered(copy), first_group(copy.copy, at).value_or(0)});
    for (std::uint64_t sequence = first; sequence <= last; ++sequence) {
        const bool wanted = walk_ == model::Walk::sequence || !counts_as_handed_out(sequence);
        if (wanted && !has(copy.copy, sequence, at)) return true;
        if (sequence == last) break;
    }
    return false;
}

bool ResumeModel::finished_past_all(const AdoptedCopy& copy, std::size_t at, HeldBound bound) const {
    if (failed(copy.copy, at)) return true;
    if (!finished(copy.copy, at)) return false;
    for (const auto& [sequence, landed_at] : copies_[copy.copy].landed) {
        if (landed_at > at || sequence < lowest_offered(copy)) continue;
        // It would offer this first, unless the bound on held groups dropped it (R12).
        if (!refuses(copy, sequence, at) && !held_dropped(copy.copy, sequence, bound)) return false;
        // A sequence walk stops at a group past the range's end that it may still supply.
        if (walk_ == model::Walk::sequence && copy.until_high && sequence <= *copy.until_high &&
            not_handed_out(sequence))
            return false;
    }
    return true;
}

bool ResumeModel::is_retained(const AdoptedCopy& copy, Looked looked, kio::Instant now,
                              std::optional<std::uint64_t> below, Until which, HeldBound bound) const {
    if (!copy.replaced || now >= copy.grace_deadline) return false;
    // A copy a walk may have let go is retained for no `until` in the reading that let it go.
    if (copy.maybe_let_go && which == Until::every) return false;
    // The sequences looked at move with `until`, so a higher `until` may miss nothing
    // where a lower one misses a group: each value the adopting poll allows is tried, with
    // each point at which the walk may have scanned the copy.
    std::vector<std::optional<std::uint64_t>> values;
    if (!copy.until_low) values.emplace_back(std::nullopt);  // the copy had nothing then
    if (copy.until_high)
        for (std::uint64_t until = copy.until_low.value_or(0); until <= *copy.until_high; ++until)
            values.emplace_back(until);
    for (const std::optional<std::uint64_t>& until : values) {
        AdoptedCopy fixed = copy;
        fixed.until_low = fixed.until_high = until;
        const bool missing = missing_group(fixed, looked.judged, below);
        for (std::size_t scanned = looked.scanned_from; scanned <= looked.judged; ++scanned) {
            const bool retained = missing && !finished_past_all(fixed, scanned, bound);
            if (retained && which == Until::some) return true;
            if (!retained && which == Until::every) return false;
        }
    }
    return which == Until::every;
}

bool ResumeModel::any_retained(const LegalState& state, Looked looked, kio::Instant now,
                               std::optional<std::uint64_t> below, Until which, HeldBound bound) const {
    return std::any_of(state.copies.begin(), state.copies.end(),
                       [&](const AdoptedCopy& copy) { return is_retained(copy, looked, now, below, which, bound); });
}

std::vector<ResumeModel::LegalState> ResumeModel::after_let_go(const LegalState& state, kio::Instant now) const {
    // A walk that hands nothing out lets go of every replaced copy it found not retained,
    // at whatever points of the window it looked: the copy's end at its scan, what it may
    // still land at the let-go, no earlier. A copy is kept where some `until` and reading
    // of the held bound retain it, and let go where some do not; where both, it is kept
    // marked as maybe let go (one state for both readings, never a split that a bound on
    // the states could drop).
    std::vector<LegalState> out{LegalState{state.generation, {}}};
    for (const AdoptedCopy& copy : state.copies) {
        bool may_keep = !copy.replaced, may_let_go = false;
        for (std::size_t judged = window_from_; copy.replaced && judged <= now_at(); ++judged) {
            const Looked looked{window_from_, judged};
            may_keep = may_keep || is_retained(copy, looked, now, std::nullopt, Until::some, HeldBound::kept_all);
            may_let_go =
                may_let_go || !is_retained(copy, looked, now, std::nullopt, Until::every, HeldBound::dropped_furthest);
        }
        if (!may_keep) continue;
        out.front().copies.push_back(copy);
        if (may_let_go) out.front().copies.back().maybe_let_go = true;
    }
    return out;
}

}  // namespace moq::oracle
