#include "oracle/resume_model.hpp"

#include <algorithm>

namespace moq::oracle {

namespace {

std::string copy_name(int copy) { return std::string(1, static_cast<char>('A' + copy)); }

std::string describe_end(const std::optional<model::Error>& end) {
    return end ? "error " + std::string(model::error_name(*end)) : std::string("a clean end");
}

}  // namespace

bool ResumeModel::landed(int copy, std::uint64_t sequence, kio::Instant now) {
    last_event_ = now;
    Copy& target = copies_[copy];
    if (target.killed || target.groups.contains(sequence)) return false;
    if (target.final_sequence && sequence >= *target.final_sequence) return false;
    target.groups.insert(sequence);
    widen_window();
    return true;
}

bool ResumeModel::finished(int copy, kio::Instant now) {
    last_event_ = now;
    Copy& target = copies_[copy];
    if (target.killed || target.finished) return false;
    target.finished = true;
    target.final_sequence = target.groups.empty() ? 0 : *target.groups.rbegin() + 1;
    widen_window();
    return true;
}

void ResumeModel::killed(int copy, kio::Instant now) {
    copies_[copy].killed = true;  // a copy that dies after finishing still ends in error
    last_event_ = now;
    widen_window();
}

void ResumeModel::served(int copy, kio::Instant now) {
    copy_of_generation_[++generation_] = copy;
    last_event_ = now;
    widen_window();
}

void ResumeModel::parked(kio::Instant now) {
    copy_of_generation_[++generation_] = std::nullopt;
    last_event_ = now;
    widen_window();
}

void ResumeModel::ended(std::optional<model::Error> error, kio::Instant now) {
    if (!end_) end_ = error;
    last_event_ = now;
    widen_window();
}

void ResumeModel::range_set(std::uint64_t start, std::optional<std::uint64_t> end, kio::Instant now) {
    range_start_ = std::max(range_start_, start);  // a range never rewinds
    range_end_ = end;
    last_event_ = now;
    widen_window();
}

void ResumeModel::skipped(std::uint64_t floor, kio::Instant now) {
    if (walk_ == model::Walk::sequence && (!skipped_ || floor > *skipped_)) skipped_ = floor;
    last_event_ = now;
    widen_window();
}

std::optional<std::uint64_t> ResumeModel::sequence_floor() const {
    if (!newest_) return skipped_;
    if (!skipped_) return newest_;
    return std::max(*newest_, *skipped_);
}

void ResumeModel::poll_started(std::uint64_t route_generation) {
    window_generation_ = route_generation;
    window_ends_.clear();
    widen_window();
}

void ResumeModel::widen_window() {
    for (std::uint64_t generation = std::min(window_generation_, generation_); generation <= generation_; ++generation)
        for (const auto& end : allowed_ends(generation, true))
            if (std::find(window_ends_.begin(), window_ends_.end(), end) == window_ends_.end()) window_ends_.push_back(end);
}

bool ResumeModel::in_range(std::uint64_t sequence) const {
    return sequence >= range_start_ && (!range_end_ || sequence < *range_end_);
}

std::optional<int> ResumeModel::serving(std::uint64_t generation) const {
    auto found = copy_of_generation_.find(generation);
    if (found == copy_of_generation_.end()) return std::nullopt;
    return found->second;
}

void ResumeModel::observed(std::uint64_t route_generation, std::optional<std::uint64_t> newest_before,
                           kio::Instant) {
    while (seen_generation_ < route_generation) {
        ++seen_generation_;
        // The reader adopted this generation during the poll: a new copy is asked from
        // the newest it had handed out by then, and every older copy is capped. The copy's
        // groups as of now bound what it had when capped (it can only have grown).
        newest_at_adoption_[seen_generation_] = newest_before;
        for (auto& [generation, copy] : copy_of_generation_) {
            if (generation >= seen_generation_ || until_bound_.contains(generation) || !copy) continue;
            std::optional<std::uint64_t> bound = newest_;
            const auto& groups = copies_[*copy].groups;
            if (!groups.empty()) bound = std::max(bound.value_or(0), *groups.rbegin());
            until_bound_[generation] = bound;
        }
    }
}

std::optional<std::string> ResumeModel::took(std::uint64_t sequence, std::uint64_t from_generation,
                                             std::uint64_t route_generation, kio::Instant now) {
    const std::string what = "group " + std::to_string(sequence);
    if (stopped_) return what + " handed out after the reader ended";
    if (walk_ == model::Walk::arrival && delivered_.contains(sequence)) return what + " handed out twice";
    if (walk_ == model::Walk::sequence && sequence_floor() && sequence <= *sequence_floor())
        return what + " handed out at or below the floor " + std::to_string(*sequence_floor()) + " of a sequence walk";
    if (!in_range(sequence)) return what + " is outside the range";
    auto source = copy_of_generation_.find(from_generation);
    if (source == copy_of_generation_.end() || !source->second)
        return what + " came from generation " + std::to_string(from_generation) + ", which served no copy";
    const int copy = *source->second;
    if (!copies_[copy].groups.contains(sequence)) return what + " came from copy " + copy_name(copy) + ", which never had it";
    observed(route_generation, newest_, now);
    if (from_generation < route_generation) {
        const auto& bound = until_bound_[from_generation];
        if (!bound || sequence > *bound)
            return what + " came from replaced copy " + copy_name(copy) + " past its until (" +
                   (bound ? std::to_string(*bound) : std::string("none")) + ")";
    }
    handed_out_.push_back(sequence);
    delivered_.insert(sequence);
    newest_ = std::max(newest_.value_or(0), sequence);
    return std::nullopt;
}

std::vector<std::uint64_t> ResumeModel::owed(std::uint64_t generation) const {
    std::vector<std::uint64_t> missing;
    const std::optional<int> copy = serving(generation);
    if (!copy || copies_[*copy].killed) return missing;
    auto adopted = newest_at_adoption_.find(generation);
    const std::optional<std::uint64_t> start = adopted == newest_at_adoption_.end() ? newest_ : adopted->second;
    for (std::uint64_t sequence : copies_[*copy].groups) {
        if (!in_range(sequence)) continue;
        if (walk_ == model::Walk::arrival) {
            // A new copy is read from the newest handed out when it was adopted.
            if (start && sequence < *start) continue;
            if (delivered_.contains(sequence)) continue;
        } else if (sequence_floor() && sequence <= *sequence_floor()) {
            continue;
        }
        missing.push_back(sequence);
    }
    return missing;
}

bool ResumeModel::range_exhausted() const {
    if (!range_end_) return false;
    if (range_start_ >= *range_end_) return true;
    if (walk_ == model::Walk::sequence) return sequence_floor() && *sequence_floor() + 1 >= *range_end_;
    for (std::uint64_t sequence = range_start_; sequence < *range_end_; ++sequence)
        if (!delivered_.contains(sequence)) return false;
    return true;
}

std::vector<std::optional<model::Error>> ResumeModel::allowed_ends(std::uint64_t generation,
                                                                   bool finish_wins) const {
    std::vector<std::optional<model::Error>> allowed;
    if (range_exhausted()) allowed.emplace_back(std::nullopt);
    if (end_ && *end_) allowed.emplace_back(*end_);
    const std::optional<int> copy = serving(generation);
    // A copy that finished did so before any kill (a killed copy refuses to finish).
    bool drained = copy && copies_[*copy].finished && (finish_wins || !copies_[*copy].killed) &&
                   owed(generation).empty();
    if (drained && walk_ == model::Walk::sequence) {
        // Groups below a finished copy's end may still land: a sequence walk is done only
        // once its floor reached that end.
        const std::uint64_t floor = std::max(range_start_, sequence_floor() ? *sequence_floor() + 1 : 0);
        drained = *copies_[*copy].final_sequence <= floor;
    }
    if (drained) allowed.emplace_back(std::nullopt);
    if (end_ && !*end_ && (!copy || drained)) allowed.emplace_back(std::nullopt);
    if (end_ && copy && copies_[*copy].killed) allowed.emplace_back(model::Error::route_failed);
    return allowed;
}

std::optional<std::string> ResumeModel::stopped(std::optional<model::Error> error, std::uint64_t route_generation,
                                                kio::Instant now) {
    stopped_ = true;
    window_generation_ = std::min(window_generation_, route_generation);
    widen_window();
    const bool allowed = std::find(window_ends_.begin(), window_ends_.end(), error) != window_ends_.end();
    if (!allowed) return "the reader ended with " + describe_end(error) + ", which the model does not allow";
    if (now > last_event_ + grace_)
        return "the reader ended " +
               std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now - last_event_).count()) +
               " ms after the last event, later than the grace allows";
    return std::nullopt;
}

std::optional<std::string> ResumeModel::quiescent(kio::Instant) const {
    if (stopped_) return std::nullopt;
    const std::vector<std::uint64_t> missing = owed(generation_);
    if (!missing.empty()) {
        const std::optional<int> copy = serving(generation_);
        return "missed wake: the reader is parked while serving copy " + copy_name(*copy) + " has group " +
               std::to_string(missing.front()) + " for it";
    }
    const auto allowed = allowed_ends(generation_, false);
    if (!allowed.empty()) return "missed wake: the reader is parked but should have ended with " + describe_end(allowed.front());
    return std::nullopt;
}

}  // namespace moq::oracle
