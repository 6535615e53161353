// The shared state of one group: its frames, the one frame in flight, and how it ended.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kio/cell.hpp"
#include "model/error.hpp"

namespace moq::model {

using Bytes = std::shared_ptr<const std::string>;

struct GroupLimits {
    std::size_t max_bytes = std::size_t{32} << 20;
    std::size_t max_frames = 8192;
};

struct GroupState {
    static constexpr kio::LockLevel lock_level = kio::LockLevel::group;  // its cell's, in the lock order
    std::uint64_t sequence = 0;
    GroupLimits limits;
    std::vector<Bytes> frames;             // complete frames, by index
    std::shared_ptr<std::string> partial;  // the frame still arriving, if any
    std::size_t partial_size = 0;          // its declared size
    std::size_t bytes = 0;                 // complete and arriving bytes
    std::optional<std::size_t> fin;        // frame count once finished
    std::optional<Error> abort;
    bool released = false;  // `abort` came from the last producer going, not an abort

    // Aborted by its producer (T6, R17): a group whose producer only went away
    // unfinished is not (G7), though its readers get `dropped`.
    [[nodiscard]] bool aborted() const { return abort.has_value() && !released; }

    // One past the last frame that exists, whole or arriving.
    [[nodiscard]] std::size_t next_index() const { return frames.size() + (partial ? 1 : 0); }
};

using GroupCell = kio::Consumer<GroupState>;

}  // namespace moq::model
