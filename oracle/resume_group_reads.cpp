// The resume model's judgement of a handed-out group's read after its take (R6, R14): the
// frames it gives, how it ends, and whether a read parked at quiescence has missed a wake.
// The read may go on in another task, parking, and follow the route through its recover;
// the model knows only the history and the read's answers.
#include <algorithm>

#include "oracle/resume_model.hpp"

namespace moq::oracle {

bool ResumeModel::may_continue_from(const GroupRead& read, int copy) const {
    if (std::find(read.suppliers.begin(), read.suppliers.end(), copy) != read.suppliers.end()) return true;
    // The recover asks the route's serving copy at some point at or after the take.
    for (std::uint64_t generation = generation_at(read.taken_at); generation < generations_.size(); ++generation)
        if (generations_[generation].copy == copy) return true;
    return false;
}

void ResumeModel::group_read_begins(std::uint64_t sequence) {
    if (auto read = group_reads_.find(sequence); read != group_reads_.end()) read->second.polled = true;
}

std::optional<std::string> ResumeModel::group_frame(std::uint64_t sequence, const std::string& frame) {
    const std::string what = "group " + std::to_string(sequence);
    auto found = group_reads_.find(sequence);
    if (found == group_reads_.end()) return "R6: " + what + " gave a frame after its read ended";
    GroupRead& read = found->second;
    if (++read.frames > 1) return "R6: " + what + " read " + std::to_string(read.frames) + " frames, not 1";
    const int copy = frame.empty() ? -1 : frame[0] - 'A';
    if (copy < 0 || copy >= copy_count || frame != payload(copy, sequence))
        return "R6: " + what + " read the frame '" + frame + "', which names another group";
    if (!written(copy, sequence, now_at()))
        return "R6: " + what + " read a frame of copy " + copy_name(copy) + ", which never wrote it";
    if (!may_continue_from(read, copy))
        return "R14: " + what + " continued from copy " + copy_name(copy) +
               ", which neither supplied it nor was served by the route since its take";
    return std::nullopt;
}

std::optional<std::string> ResumeModel::group_ended(std::uint64_t sequence, std::optional<model::Error> error) {
    const std::string what = "group " + std::to_string(sequence);
    // G11: an ending told again (the read polled once more) must be the same.
    if (auto ended = group_endings_.find(sequence); ended != group_endings_.end()) {
        if (ended->second != error)
            return "G11: " + what + "'s read answered " + describe_end(error) + " after " + describe_end(ended->second);
        return std::nullopt;
    }
    auto found = group_reads_.find(sequence);
    if (found == group_reads_.end()) return "R6: " + what + " ended, but was never handed out";
    const GroupRead read = found->second;
    group_reads_.erase(found);
    group_endings_.insert_or_assign(sequence, error);
    const std::size_t at = now_at();
    bool any_aborted = false, any_failed = false, any_finished_before = false;
    for (int copy = 0; copy < copy_count; ++copy) {
        if (!may_continue_from(read, copy)) continue;
        any_aborted = any_aborted || aborted(copy, sequence, at);
        any_failed = any_failed || failed(copy, at);
        const auto& end_sequence = copies_[copy].end_sequence;
        any_finished_before = any_finished_before || (finished(copy, at) && end_sequence && *end_sequence <= sequence);
    }
    const bool route_ended = route_end_ && route_end_at_ <= at;
    if (!error) {
        if (read.frames == 1) return std::nullopt;
        return "R6: " + what + " ended cleanly without its frame";
    }
    // A copy writes each group's frame and end in one step (a group landed open stalls
    // until then): a read fails only when a copy it reads aborts the group, and then gives
    // that abort, the route's end, or what the serving copy answers for it (R14).
    bool allowed = false;
    switch (*error) {
        case model::Error::cancel: allowed = any_aborted; break;
        // A route ended with an error ends a read that stalled, or failed, with it.
        case model::Error::unroutable:
            allowed = route_ended && (any_aborted || (*route_end_ && **route_end_ == model::Error::unroutable));
            break;
        case model::Error::route_failed: allowed = any_aborted && any_failed; break;
        case model::Error::not_found: allowed = any_aborted && any_finished_before; break;
        default: break;
    }
    if (allowed) return std::nullopt;
    return "R14: " + what + "'s read ended with " + describe_end(error) + ", which nothing in the history explains";
}

std::optional<std::string> ResumeModel::group_read_parked(std::uint64_t sequence) const {
    const std::string what = "R14: missed wake: group " + std::to_string(sequence) + "'s read is parked";
    const GroupRead& read = group_reads_.at(sequence);
    const std::size_t at = now_at();
    // A copy writes a group's frame and its end in one step: after the frame, the end.
    if (read.frames > 0) return what + " after its frame, in a group finished with it";
    // Stalled or failed, a read looks past its copy once the route ended: an error ends it.
    if (route_end_ && *route_end_) return what + " after the route ended with an error";
    // Stalled or failed, it continues from the serving copy's group once the route moved,
    // and reads the serving copy's own group directly: either way, that group decides.
    const std::optional<int> serving = generations_.back().copy;
    if (serving && has(*serving, sequence, at)) {
        if (aborted(*serving, sequence, at)) return what + " while serving copy " + copy_name(*serving) + " aborted it";
        if (written(*serving, sequence, at))
            return what + " while serving copy " + copy_name(*serving) + " holds its frame";
        return std::nullopt;  // waiting for that frame
    }
    // No copy serves it: the read stays on the copy it is on, one it may read that has
    // the group; it may wait there unless every such copy would have ended it.
    const bool serving_refuses =
        serving && (failed(*serving, at) || (finished(*serving, at) && copies_[*serving].end_sequence &&
                                             *copies_[*serving].end_sequence <= sequence));
    for (int copy = 0; copy < copy_count; ++copy) {
        if (!may_continue_from(read, copy) || !has(copy, sequence, at)) continue;
        // Failed there, it waits for the serving copy to land the group, unless that copy
        // refuses it (its answer), or for a route to come, unless the route ended
        // (unroutable); stalled there, for its frame.
        const bool may_still_come = serving ? !serving_refuses : !route_end_;
        if (aborted(copy, sequence, at) ? may_still_come : !written(copy, sequence, at)) return std::nullopt;
    }
    if (!serving)
        return what + (route_end_ ? " after the route ended with no copy to serve it" : " on a copy holding its frame");
    return what + " while serving copy " + copy_name(*serving) + " refuses it and no copy it reads waits for it";
}

}  // namespace moq::oracle
