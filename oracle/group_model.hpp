// The group's reference model, written as plainly as possible: a list of frames, the
// one in flight, finish and abort; no wakes, no gates. GroupModel is told every write
// and says what the producer must answer; a GroupReaderModel follows one consumer and
// judges each of its reads (safety) and where it is parked once the system is quiet
// (liveness).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kio/time.hpp"
#include "model/error.hpp"

namespace moq::oracle {

class GroupModel {
public:
    // The group's limits (G3): bytes written (arriving ones counted) and frames started.
    GroupModel() = default;
    GroupModel(std::size_t max_bytes, std::size_t max_frames) : max_bytes_(max_bytes), max_frames_(max_frames) {}

    // The producer's writes. Each returns the error the real producer must answer
    // (nullopt: accepted), and applies the write when it is accepted.
    std::optional<model::Error> write_frame(std::string payload);
    std::optional<model::Error> start_frame(std::size_t size);
    std::optional<model::Error> write_chunk(std::string_view chunk);
    std::optional<model::Error> end_frame();
    std::optional<model::Error> finish();
    void abort(model::Error error);
    // The last producer went away: an unfinished, unaborted group ends with `dropped`
    // and loses its frames (G7); a finished or aborted one stays as it is.
    void drop();

    // Frames completed so far, counted even after an abort released them.
    [[nodiscard]] std::size_t committed() const { return committed_; }
    // Frames a reader can still get: none once aborted.
    [[nodiscard]] std::size_t readable() const { return abort_ ? 0 : committed_; }
    // One past the frame in flight (or the last complete one); none once aborted.
    [[nodiscard]] std::size_t next_index() const { return abort_ ? 0 : frames_.size(); }
    [[nodiscard]] std::optional<std::size_t> fin() const { return fin_; }
    [[nodiscard]] std::optional<model::Error> aborted() const { return abort_; }
    // How far the group has come, as a reader's expiry sees it (G10).
    struct Progress {
        std::size_t started = 0;  // frames started, whole or arriving, counted after an abort
        std::optional<std::size_t> fin;
        bool aborted = false;
    };
    [[nodiscard]] Progress progress() const { return {frames_.size(), fin_, abort_.has_value()}; }
    // Whether a reader at `index` has content still to read: a frame at or past it exists,
    // or the end is known and past it; after an abort, unless the end is known and behind it.
    [[nodiscard]] static bool unread_from(const Progress& progress, std::size_t index);
    // The bytes written at `index` so far and its declared size (whole frames: their size).
    [[nodiscard]] const std::string* bytes(std::size_t index) const;
    [[nodiscard]] std::size_t declared(std::size_t index) const;
    [[nodiscard]] bool complete(std::size_t index) const;

private:
    struct Frame {
        std::string bytes;
        std::size_t size = 0;
        bool complete = false;
    };
    // Why a new frame of `size` bytes cannot start; a limit aborts the group (G3).
    [[nodiscard]] std::optional<model::Error> refuse_new_frame(std::size_t size);

    std::vector<Frame> frames_;  // every frame ever started, by index; kept after an abort
    bool open_ = false;          // the last frame is still arriving
    std::size_t committed_ = 0;
    std::size_t bytes_ = 0;  // bytes written, whole frames and arriving chunks
    std::size_t max_bytes_ = SIZE_MAX;
    std::size_t max_frames_ = SIZE_MAX;
    std::optional<std::size_t> fin_;
    std::optional<model::Error> abort_;
};

// The route a recovering reader follows (G11): the copies of the group in the order the
// route served them, and how the route ended. Copy 0 is the one every reader starts on;
// a replica has the state of copy 0 when it is served and gets every write after, so
// copies differ only where one of them failed on its own.
class GroupRouteModel {
public:
    explicit GroupRouteModel(GroupModel first) { copies_.push_back(std::move(first)); }

    // The route serves a new replica; its model, to be told the writes from now on.
    GroupModel& serve() { return copies_.emplace_back(copies_.front()); }
    void end(model::Error error) {
        if (!end_) end_ = error;
    }

    [[nodiscard]] GroupModel& copy(std::size_t index) { return copies_[index]; }
    [[nodiscard]] const GroupModel& copy(std::size_t index) const { return copies_[index]; }
    [[nodiscard]] std::size_t count() const { return copies_.size(); }
    [[nodiscard]] const GroupModel& serving() const { return copies_.back(); }
    [[nodiscard]] std::optional<model::Error> ended() const { return end_; }
    // Whether some copy has ended with `error`, so a reader on it may answer it.
    [[nodiscard]] bool some_copy_aborted_with(model::Error error) const;
    // Whether a copy other than the first failed on its own.
    [[nodiscard]] bool some_replica_failed() const;
    // The most frames started, whole or arriving, on any copy not aborted.
    [[nodiscard]] std::size_t most_started() const;

private:
    std::deque<GroupModel> copies_;  // a deque: readers keep references across serve()
    std::optional<model::Error> end_;
};

// One consumer of the group: its cursor, its cap, the frame it reads in chunks.
class GroupReaderModel {
public:
    // What a parked reader waits in.
    enum class Waiting {
        whole_frame,  // poll_read_frame, poll_read_frames or poll_read_object
        next_frame,   // poll_next_frame
        either,       // a whole-frame read, then poll_next_frame, in one poll
        chunk,        // poll_read_chunk of the frame poll_next_frame handed out
        finished,     // poll_finished
    };

    GroupReaderModel(const GroupModel& group, std::size_t skip, std::optional<std::size_t> end)
        : group_(&group), index_(skip), end_(end) {}

    // The reader's own changes.
    void skip_to(std::size_t index);
    void with_end(std::optional<std::size_t> end) { end_ = end; }
    // with_expiry: the group goes stale for this reader at `start` plus its budget when it
    // has a recover with one, or the policy's budget otherwise (G10).
    void with_expiry(kio::Instant start, kio::Duration policy);
    // The reader's own budget (its preferences) changed; it counts while a recover is
    // attached. A verdict in the poll running when it changed may use either (G10).
    void budget_changed(std::optional<kio::Duration> budget);
    // A recover is attached: the budget counts; with `route`, the reader follows it (G11).
    void with_recover(const GroupRouteModel* route);

    // The history's clock: the virtual time of what the reader is told next.
    void at_time(kio::Instant now) { now_ = now; }
    // A poll begins: an expiry end is legal only if nothing was unread at the cursor when
    // the verdict came, no earlier than this (G10). A batch's verdict may come in the
    // poll that handed out the batch, so that poll's start stays a candidate.
    void poll_began();
    void batch_answered() { batch_in_last_poll_ = true; }

    // What the reader got. Each returns a violation, if any.
    // A whole frame, and the index the read reported with it, if it did.
    std::optional<std::string> read_frame(const std::string& payload, std::optional<std::size_t> reported);
    std::optional<std::string> read_end();
    std::optional<std::string> read_error(model::Error error);
    // poll_next_frame handed out the frame at the cursor; then its chunks.
    std::optional<std::string> frame_opened(std::size_t reported);
    std::optional<std::string> chunk(const std::string& bytes);
    std::optional<std::string> chunk_end();
    std::optional<std::string> chunk_error(model::Error error);
    // poll_finished's answers: the frame count at the clean end, or an error.
    std::optional<std::string> finished_count(std::size_t count);
    std::optional<std::string> finished_error(model::Error error);

    // What a read of this kind could answer now instead of Pending, if anything: a read
    // that parks (or a gate that answers for it) while this holds missed a wake.
    [[nodiscard]] std::optional<std::string> answerable(Waiting waiting) const;
    // With no task runnable and no deadline pending, the reader parked in `waiting`.
    [[nodiscard]] std::optional<std::string> quiescent(Waiting waiting) const;
    // With no task runnable, before the clock moves on: parked where it could answer.
    [[nodiscard]] std::optional<std::string> settled(Waiting waiting) const;

    [[nodiscard]] bool stopped() const { return stopped_; }
    [[nodiscard]] std::size_t index() const { return index_; }

private:
    [[nodiscard]] bool capped() const { return end_ && index_ >= *end_; }
    [[nodiscard]] std::optional<kio::Instant> deadline() const;
    // The reader asks its expiry (G10): it has one, is not capped, and its deadline passed.
    [[nodiscard]] bool stale() const { return deadline() && !capped() && now_ >= *deadline(); }
    // Stale by any budget in force during the poll that answered.
    [[nodiscard]] bool stale_in_poll() const {
        return stale() || (earliest_deadline_ && !capped() && now_ >= *earliest_deadline_);
    }
    // An expiry verdict: `old` needs content unread when it was given, a clean end none
    // when the poll began (writes between the two may be seen or not). A reader following
    // the route may sit on a replica that failed, where everything short of the end is unread.
    [[nodiscard]] bool old_legal() const {
        return stale_in_poll() &&
               (GroupModel::unread_from(group_->progress(), index_) || (route_ && route_->some_replica_failed()));
    }
    // A follower whose copy failed reads on from the copy the route serves (G11), which
    // may still have nothing unread: its verdict is judged on that copy too.
    [[nodiscard]] bool expiry_end_legal() const {
        return stale_in_poll() &&
               (!GroupModel::unread_from(earliest_verdict_, index_) ||
                (earliest_serving_verdict_ && !GroupModel::unread_from(*earliest_serving_verdict_, index_)));
    }
    // An error a reader following the route may answer (G11): the route's end, or a
    // verdict a copy ended with; any other failure of a copy is recovered from.
    [[nodiscard]] std::optional<std::string> following_error(model::Error error, const std::string& what) const;
    // What a parked read could answer, judged on one copy of the group.
    [[nodiscard]] std::optional<std::string> answerable_on(const GroupModel& group, Waiting waiting,
                                                           bool following) const;
    [[nodiscard]] std::optional<std::string> chunk_answerable() const;
    // Frames poll_next_frame may hand out: those started on the reader's copy or, for a
    // follower, on any copy of its route, which it may have moved to within the poll (G11).
    [[nodiscard]] std::size_t openable() const { return route_ ? route_->most_started() : group_->next_index(); }
    [[nodiscard]] std::string at() const { return "at " + cursor(); }
    [[nodiscard]] std::string cursor() const { return "frame " + std::to_string(index_); }

    const GroupModel* group_;
    std::size_t index_;
    std::optional<std::size_t> end_;
    bool stopped_ = false;
    std::optional<kio::Instant> expiry_start_;
    kio::Duration policy_{};
    std::optional<kio::Duration> budget_;
    bool has_recover_ = false;
    const GroupRouteModel* route_ = nullptr;         // the route it follows, if it does
    std::optional<kio::Instant> earliest_deadline_;  // the earliest in force since the poll began
    kio::Instant now_;
    GroupModel::Progress earliest_verdict_;  // the group when the verdict could first have come
    GroupModel::Progress this_poll_;
    // The same of the copy the route served, for a follower.
    std::optional<GroupModel::Progress> earliest_serving_verdict_;
    std::optional<GroupModel::Progress> this_poll_serving_;
    bool batch_in_last_poll_ = false;
    std::optional<std::size_t> open_frame_;  // the frame read in chunks
    std::string open_bytes_;
};

}  // namespace moq::oracle
