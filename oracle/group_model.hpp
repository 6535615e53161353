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
    [[nodiscard]] std::string at() const { return "at " + cursor(); }
    [[nodiscard]] std::string cursor() const { return "frame " + std::to_string(index_); }

    const GroupModel* group_;
    std::size_t index_;
    std::optional<std::size_t> end_;
    bool stopped_ = false;
    std::optional<std::size_t> open_frame_;  // the frame read in chunks
    std::string open_bytes_;
};

}  // namespace moq::oracle
