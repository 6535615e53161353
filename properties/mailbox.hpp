// How the driver of a simulated suite asks a reader task to change its own state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kio/cell.hpp"
#include "kio/waiter.hpp"

namespace moq::properties {

// Commands for one reader task. A reader's own handle may only be used by its task, so
// the driver posts and the task applies them at its next poll: a post wakes the task
// directly, never through a gate, as another future of the same task would.
template <class Command>
class Mailbox {
public:
    void post(Command command) {
        commands_.push_back(command);
        count_.modify([](std::uint64_t& count) { ++count; });
        ++delivered_;
    }

    // The commands posted since the last call; registers `waiter` for the next post.
    std::vector<Command> collect(const kio::Waiter& waiter) {
        const std::uint64_t posted = watch_.read_and_watch(waiter, [](const std::uint64_t& count) { return count; });
        std::vector<Command> fresh(commands_.begin() + static_cast<std::ptrdiff_t>(read_),
                                   commands_.begin() + static_cast<std::ptrdiff_t>(posted));
        read_ = posted;
        return fresh;
    }

    [[nodiscard]] std::size_t unread() const { return commands_.size() - read_; }
    [[nodiscard]] std::size_t posted() const { return commands_.size(); }
    // A post is still waking the task: its wake may reach the task any time until then
    // (a wake point may run the task before it).
    [[nodiscard]] bool delivering() const { return delivered_ != commands_.size(); }

private:
    kio::Producer<std::uint64_t> count_{std::uint64_t{0}};
    kio::Consumer<std::uint64_t> watch_ = count_.consume();
    std::vector<Command> commands_;
    std::size_t read_ = 0;
    std::size_t delivered_ = 0;  // posts whose wake returned
};

}  // namespace moq::properties
