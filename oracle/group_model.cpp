#include "oracle/group_model.hpp"

#include <algorithm>

namespace moq::oracle {

namespace {

std::string quoted(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out.push_back('\'');
    out.append(text);
    out.push_back('\'');
    return out;
}
std::string error_text(model::Error error) { return std::string(model::error_name(error)); }

}  // namespace

// ---- the group ----

std::optional<model::Error> GroupModel::refuse_new_frame(std::size_t size) {
    if (abort_ || fin_) return model::Error::closed;
    if (open_) return model::Error::frame_open;
    if (bytes_ + size > max_bytes_ || frames_.size() + 1 > max_frames_) {
        abort(model::Error::too_large);
        return model::Error::too_large;
    }
    return std::nullopt;
}

std::optional<model::Error> GroupModel::write_frame(std::string payload) {
    const std::size_t size = payload.size();
    if (auto refused = refuse_new_frame(size)) return refused;
    bytes_ += size;
    frames_.push_back(Frame{std::move(payload), size, true});
    ++committed_;
    return std::nullopt;
}

std::optional<model::Error> GroupModel::start_frame(std::size_t size) {
    if (auto refused = refuse_new_frame(size)) return refused;
    frames_.push_back(Frame{std::string(), size, false});
    open_ = true;
    return std::nullopt;
}

std::optional<model::Error> GroupModel::write_chunk(std::string_view chunk) {
    if (abort_ || !open_) return model::Error::closed;
    Frame& frame = frames_.back();
    if (frame.bytes.size() + chunk.size() > frame.size) return model::Error::wrong_size;
    frame.bytes.append(chunk);
    bytes_ += chunk.size();
    return std::nullopt;
}

std::optional<model::Error> GroupModel::end_frame() {
    if (abort_ || !open_) return model::Error::closed;
    Frame& frame = frames_.back();
    if (frame.bytes.size() != frame.size) return model::Error::wrong_size;
    frame.complete = true;
    open_ = false;
    ++committed_;
    return std::nullopt;
}

std::optional<model::Error> GroupModel::finish() {
    if (abort_ || fin_) return model::Error::closed;
    if (open_) return model::Error::frame_open;
    fin_ = committed_;
    return std::nullopt;
}

void GroupModel::abort(model::Error error) {
    if (!abort_) abort_ = error;
    open_ = false;  // the frame in flight is lost with the rest
}

void GroupModel::drop() {
    if (fin_ || abort_) return;
    abort(model::Error::dropped);
}

const std::string* GroupModel::bytes(std::size_t index) const {
    return index < frames_.size() ? &frames_[index].bytes : nullptr;
}

std::size_t GroupModel::declared(std::size_t index) const { return index < frames_.size() ? frames_[index].size : 0; }

bool GroupModel::unread_from(const Progress& progress, std::size_t index) {
    const bool end_ahead = progress.fin && index < *progress.fin;
    if (progress.aborted) return !progress.fin || end_ahead;
    return index < progress.started || end_ahead;
}

bool GroupModel::complete(std::size_t index) const { return index < frames_.size() && frames_[index].complete; }

// ---- the route ----

bool GroupRouteModel::some_copy_aborted_with(model::Error error) const {
    for (const GroupModel& copy : copies_)
        if (copy.aborted() == error) return true;
    return false;
}

bool GroupRouteModel::some_replica_failed() const {
    // A replica gets every write copy 0 gets, so an abort of every copy leaves them alike;
    // one that failed on its own first differs from copy 0 in its end (the error, or a
    // finish copy 0 took and it refused), even where copy 0 was aborted later.
    const GroupModel& first = copies_.front();
    for (std::size_t i = 1; i < copies_.size(); ++i) {
        const GroupModel& replica = copies_[i];
        if (replica.aborted() && (replica.aborted() != first.aborted() || replica.fin() != first.fin())) return true;
    }
    return false;
}

std::size_t GroupRouteModel::most_started() const {
    std::size_t most = 0;
    for (const GroupModel& copy : copies_) most = std::max(most, copy.next_index());
    return most;
}

// ---- one reader ----

void GroupReaderModel::poll_began() {
    const GroupModel::Progress now = group_->progress();
    earliest_verdict_ = batch_in_last_poll_ ? this_poll_ : now;
    this_poll_ = now;
    const std::optional<GroupModel::Progress> serving =
        route_ ? std::optional<GroupModel::Progress>(route_->serving().progress()) : std::nullopt;
    earliest_serving_verdict_ = batch_in_last_poll_ ? this_poll_serving_ : serving;
    this_poll_serving_ = serving;
    batch_in_last_poll_ = false;
    earliest_deadline_ = deadline();
}

std::optional<kio::Instant> GroupReaderModel::deadline() const {
    if (!expiry_start_) return std::nullopt;
    return *expiry_start_ + (has_recover_ && budget_ ? *budget_ : policy_);
}

namespace {
void keep_earliest(std::optional<kio::Instant>& earliest, std::optional<kio::Instant> deadline) {
    if (deadline && (!earliest || *deadline < *earliest)) earliest = deadline;
}
}  // namespace

void GroupReaderModel::with_expiry(kio::Instant start, kio::Duration policy) {
    expiry_start_ = start;
    policy_ = policy;
    keep_earliest(earliest_deadline_, deadline());
}

void GroupReaderModel::budget_changed(std::optional<kio::Duration> budget) {
    budget_ = budget;
    keep_earliest(earliest_deadline_, deadline());
}

void GroupReaderModel::with_recover(const GroupRouteModel* route) {
    has_recover_ = true;
    if (route) route_ = route;
    keep_earliest(earliest_deadline_, deadline());
}

std::optional<std::string> GroupReaderModel::following_error(model::Error error, const std::string& what) const {
    if (route_->ended() == error) return std::nullopt;
    // `cancel` is a verdict of the copy, not a failure of the route: it is answered.
    if (error == model::Error::cancel && route_->some_copy_aborted_with(error)) return std::nullopt;
    const auto ended = route_->ended();
    return "G11: " + what + ", but a reader following the route recovers from a failed copy" +
           (ended ? " (the route ended with " + error_text(*ended) + ")" : "");
}

void GroupReaderModel::skip_to(std::size_t index) {
    if (index > index_) index_ = index;
}

std::optional<std::string> GroupReaderModel::read_frame(const std::string& payload,
                                                        std::optional<std::size_t> reported) {
    const std::string what = "frame " + std::to_string(index_);
    if (stopped_) return "G5: " + what + " handed out after the reader ended";
    if (capped()) return "G8: " + what + " handed out past the cap " + std::to_string(*end_);
    if (index_ >= group_->committed())
        return "G1: " + what + " handed out whole, but the group has " + std::to_string(group_->committed()) +
               " whole frames";
    if (payload != *group_->bytes(index_))
        return "G1: " + what + " reads " + quoted(payload) + ", the group wrote " + quoted(*group_->bytes(index_));
    if (reported && *reported != index_) return "G9: " + what + " handed out as index " + std::to_string(*reported);
    ++index_;
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::read_end() {
    if (stopped_) return "G5: a second end";
    stopped_ = true;
    if (capped() || expiry_end_legal()) return std::nullopt;
    const auto fin = group_->fin();
    if (fin && index_ >= *fin) return std::nullopt;
    if (fin) return "G5: a clean end " + at() + " of a group finished with " + std::to_string(*fin) + " frames";
    if (const auto error = group_->aborted())
        return "G5: a clean end " + at() + " of an unfinished group aborted with " + error_text(*error);
    return "G5: a clean end " + at() + " of a group still open";
}

std::optional<std::string> GroupReaderModel::read_error(model::Error error) {
    if (stopped_) return "G5: error " + error_text(error) + " after the reader ended";
    stopped_ = true;
    const std::string what = "error " + error_text(error) + " " + at();
    if (capped()) return "G8: " + what + ", at the cap " + std::to_string(*end_) + " where a read ends cleanly";
    if (error == model::Error::old && old_legal()) return std::nullopt;
    if (route_) return following_error(error, what);
    const auto aborted = group_->aborted();
    if (!aborted) return "G5: " + what + ", but the group was not aborted";
    if (error != *aborted) return "G5: " + what + ", but the group was aborted with " + error_text(*aborted);
    if (const auto fin = group_->fin(); fin && index_ >= *fin)
        return "G5: " + what + " after draining a group finished with " + std::to_string(*fin) + " frames";
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::frame_opened(std::size_t reported) {
    const std::string what = "poll_next_frame handed out frame " + std::to_string(index_);
    if (stopped_) return "G4: " + what + " after the reader ended";
    if (open_frame_) return "G4: " + what + " while frame " + std::to_string(*open_frame_) + " was still read";
    if (capped()) return "G8: " + what + " past the cap " + std::to_string(*end_);
    if (index_ >= openable())
        return "G4: " + what + ", but the group has " + std::to_string(openable()) + " frames" +
               (group_->aborted() ? " (aborted)" : "");
    if (reported != index_) return "G4: " + what + " as index " + std::to_string(reported);
    open_frame_ = index_++;
    open_bytes_.clear();
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::chunk(const std::string& bytes) {
    if (!open_frame_) return "G4: a chunk with no frame open";
    const std::string what = "frame " + std::to_string(*open_frame_);
    if (bytes.empty()) return "G4: " + what + ": an empty chunk";
    open_bytes_ += bytes;
    const std::string& written = *group_->bytes(*open_frame_);
    if (open_bytes_.size() > written.size() || written.compare(0, open_bytes_.size(), open_bytes_) != 0)
        return "G4: " + what + " read in chunks as " + quoted(open_bytes_) + ", the group wrote " + quoted(written);
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::chunk_end() {
    if (!open_frame_) return "G4: a chunk end with no frame open";
    const std::size_t frame = *open_frame_;
    open_frame_.reset();
    if (open_bytes_.size() != group_->declared(frame))
        return "G4: frame " + std::to_string(frame) + " ended after " + std::to_string(open_bytes_.size()) +
               " of its " + std::to_string(group_->declared(frame)) + " bytes";
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::chunk_error(model::Error error) {
    if (!open_frame_) return "G4: a chunk error with no frame open";
    const std::string what =
        "chunk read of frame " + std::to_string(*open_frame_) + " failed with " + error_text(error);
    open_frame_.reset();
    // A frame read in chunks stays on the copy it came from, which the history does not name.
    if (route_) {
        if (route_->some_copy_aborted_with(error)) return std::nullopt;
        return "G5: " + what + ", but no copy was aborted with it";
    }
    const auto aborted = group_->aborted();
    if (!aborted) return "G5: " + what + ", but the group was not aborted";
    if (error != *aborted) return "G5: " + what + ", but the group was aborted with " + error_text(*aborted);
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::finished_count(std::size_t count) {
    const std::string what = "poll_finished answered " + std::to_string(count) + " frames " + at();
    if (stopped_) return "G6: " + what + " after the reader ended";
    stopped_ = true;
    if (count == index_ && expiry_end_legal()) return std::nullopt;
    const auto fin = group_->fin();
    if (!fin) return "G6: " + what + ", but the group is not finished";
    if (count != *fin) return "G6: " + what + ", but the group finished with " + std::to_string(*fin);
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::finished_error(model::Error error) {
    const std::string what = "poll_finished answered error " + error_text(error) + " " + at();
    if (stopped_) return "G6: " + what + " after the reader ended";
    stopped_ = true;
    if (error == model::Error::old && old_legal()) return std::nullopt;
    if (route_) return following_error(error, what);
    const auto aborted = group_->aborted();
    if (!aborted) return "G6: " + what + ", but the group was not aborted";
    if (error != *aborted) return "G6: " + what + ", but the group was aborted with " + error_text(*aborted);
    if (const auto fin = group_->fin())
        return "G6: " + what + ", but the group finished with " + std::to_string(*fin) +
               " frames before it was aborted: the count stands";
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::answerable(Waiting waiting) const {
    if (stopped_) return std::nullopt;
    if (waiting != Waiting::chunk && stale()) return cursor() + ", its expiry deadline passed";
    if (waiting == Waiting::chunk) return chunk_answerable();
    if (route_) {
        if (const auto ended = route_->ended())
            return cursor() + ", the route it follows ended with " + error_text(*ended);
        return answerable_on(route_->serving(), waiting, true);
    }
    return answerable_on(*group_, waiting, false);
}

std::optional<std::string> GroupReaderModel::chunk_answerable() const {
    if (!open_frame_) return std::nullopt;
    const std::size_t frame = *open_frame_;
    const std::string what = "frame " + std::to_string(frame);
    if (const auto aborted = group_->aborted()) return what + " of a group aborted with " + error_text(*aborted);
    const std::string& written = *group_->bytes(frame);
    if (written.size() > open_bytes_.size())
        return what + " with bytes " + std::to_string(open_bytes_.size()) + ".." + std::to_string(written.size()) +
               " written";
    if (open_bytes_.size() == group_->declared(frame)) return what + " with all its bytes read";
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::answerable_on(const GroupModel& group, Waiting waiting,
                                                           bool following) const {
    const auto fin = group.fin();
    const auto aborted = group.aborted();
    if (waiting != Waiting::finished && capped()) return cursor() + ", its cap " + std::to_string(*end_);
    // A reader following the route waits out a failed copy for a replacement (G11),
    // unless the copy ended with a verdict or finished before it failed: then the cursor
    // that drained it ends, and poll_finished has its count (G6).
    const bool counted = fin && (waiting == Waiting::finished || index_ >= *fin);
    if (following && aborted && *aborted != model::Error::cancel && !counted) return std::nullopt;
    const std::string copy = following ? " of the copy the route serves" : "";
    if (waiting == Waiting::finished) {
        // The count does not depend on the cursor's cap: only on the end of the group.
        if (aborted) return cursor() + copy + " of a group aborted with " + error_text(*aborted);
        if (fin) return cursor() + copy + " of a group finished with " + std::to_string(*fin) + " frames";
        return std::nullopt;
    }
    if (aborted) return cursor() + copy + " of a group aborted with " + error_text(*aborted);
    if (fin) return cursor() + copy + " of a group finished with " + std::to_string(*fin) + " frames";
    const std::size_t available = waiting == Waiting::whole_frame ? group.readable() : group.next_index();
    if (index_ < available)
        return cursor() + copy + ", that frame " + (group.complete(index_) ? "written" : "arriving");
    return std::nullopt;
}

std::optional<std::string> GroupReaderModel::quiescent(Waiting waiting) const {
    // Its deadline is a wake to come: the system cannot be quiet while the reader waits for it.
    if (!stopped_ && waiting != Waiting::chunk && deadline() && !capped())
        return "G10: missed wake: the reader is parked at " + cursor() + " with an expiry, its deadline " +
               std::to_string(deadline()->since_start.count() / 1000000) + "ms, now " +
               std::to_string(now_.since_start.count() / 1000000) + "ms";
    return settled(waiting);
}

std::optional<std::string> GroupReaderModel::settled(Waiting waiting) const {
    const auto answer = answerable(waiting);
    if (!answer) return std::nullopt;
    const char* in = waiting == Waiting::whole_frame  ? "a whole-frame read"
                     : waiting == Waiting::next_frame ? "poll_next_frame"
                     : waiting == Waiting::either     ? "a whole-frame read and poll_next_frame"
                     : waiting == Waiting::chunk      ? "a chunk read"
                                                      : "poll_finished";
    return std::string(stale() && waiting != Waiting::chunk ? "G10" : "G13") +
           ": missed wake: the reader is parked in " + in + " at " + *answer;
}

}  // namespace moq::oracle
