// The group's reference model, written as plainly as possible: a list of frames, the
// one in flight, finish and abort; no wakes, no gates. GroupModel is told every write
// and says what the producer must answer; a GroupReaderModel follows one consumer and
// judges each of its reads (safety) and where it is parked once the system is quiet
// (liveness).
#pragma once

#include <cstddef>
#include <cstdint>
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
    // with_expiry: the group goes stale for this reader at `deadline` (its start plus its
    // budget, or the policy's when the reader has none).
    void with_expiry(kio::Instant deadline) { deadline_ = deadline; }

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

    [[nodiscard]] bool stopped() const { return stopped_; }
    [[nodiscard]] std::size_t index() const { return index_; }

private:
    [[nodiscard]] bool capped() const { return end_ && index_ >= *end_; }
    // The reader asks its expiry (G10): it has one, is not capped, and its deadline passed.
    [[nodiscard]] bool stale() const { return deadline_ && !capped() && now_ >= *deadline_; }
    // An expiry verdict: `old` needs content unread when it was given, a clean end none
    // when the poll began (writes between the two may be seen or not).
    [[nodiscard]] bool old_legal() const {
        return stale() && GroupModel::unread_from(group_->progress(), index_);
    }
    [[nodiscard]] bool expiry_end_legal() const {
        return stale() && !GroupModel::unread_from(earliest_verdict_, index_);
    }
    [[nodiscard]] std::string at() const { return "at " + cursor(); }
    [[nodiscard]] std::string cursor() const { return "frame " + std::to_string(index_); }

    const GroupModel* group_;
    std::size_t index_;
    std::optional<std::size_t> end_;
    bool stopped_ = false;
    std::optional<kio::Instant> deadline_;
    kio::Instant now_;
    GroupModel::Progress earliest_verdict_;  // the group when the verdict could first have come
    GroupModel::Progress this_poll_;
    bool batch_in_last_poll_ = false;
    std::optional<std::size_t> open_frame_;  // the frame read in chunks
    std::string open_bytes_;
};

}  // namespace moq::oracle
