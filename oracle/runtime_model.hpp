// The runtime's reference model, written from the E rules of the spec: a few tasks of
// the runtime, each with an inbox of messages. It learns what the driver did (spawned a
// task, posted a message, shut the runtime down) and what the tasks' polls reported (a
// poll began, the messages it had read, a wake of itself, its answer), and says when
// two polls of one task overlap (E2), when a task is polled after its end (E3), when a
// task at rest was owed a poll (E1: a lost wake), and whether shutdown ended every task
// and each was dropped and freed exactly once (E4, E5). Told, too, what the simulator's
// happens-before says of each poll (no history shows a memory order), it says when a poll
// is not ordered after what it must see (E6).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moq::oracle {

class RuntimeModel {
public:
    explicit RuntimeModel(std::size_t tasks) : tasks_(tasks) {}

    // The driver.
    void spawned(std::size_t task) { tasks_.at(task).spawned = true; }
    // A message put into the task's inbox, before its wake (by the driver or a task).
    void posted(std::size_t task) {
        ++tasks_.at(task).posted;
        tasks_.at(task).delivered.push_back(false);
    }
    // The wake that followed the task's message `index` (from 0) returned to its poster.
    void delivered(std::size_t task, std::uint64_t index) { tasks_.at(task).delivered.at(index) = true; }

    // A task's poll: it began; it has read `read` messages in all; it woke itself (the
    // runtime owes it another poll); it answered Ready or Pending.
    std::optional<std::string> poll_began(std::size_t task);
    std::optional<std::string> read(std::size_t task, std::uint64_t read);
    void woke_itself(std::size_t task) { tasks_.at(task).owes_self = true; }
    // It asked the clock for a wake at `at` (ns of the clock); a poll that begins at or
    // after `at` is the one it is owed.
    void timer_set(std::size_t task, std::int64_t at) { tasks_.at(task).timers.push_back(at); }
    // The poll under way began at `now`.
    void polled_at(std::size_t task, std::int64_t now);
    void answered(std::size_t task, bool ready);
    // Whether the poll under way happens after the task's previous poll ended, and after
    // the post of its message `index`, as the simulator's happens-before says (E6).
    [[nodiscard]] std::optional<std::string> after_previous_poll(std::size_t task, bool happened) const;
    [[nodiscard]] std::optional<std::string> after_post(std::size_t task, std::uint64_t index, bool happened) const;
    // Whether the driver, whose join handle of the task just answered finished, happens
    // after the end of the task's poll that answered Ready (E6).
    [[nodiscard]] std::optional<std::string> after_end(std::size_t task, bool happened) const;
    // Its poll function was destroyed (at its end or when the runtime dropped it).
    std::optional<std::string> body_dropped(std::size_t task);

    // No worker is running and none is called: every task the runtime has must be at rest.
    [[nodiscard]] std::optional<std::string> at_rest() const;
    // The latest timer a task that can still be polled is owed, if any.
    [[nodiscard]] std::optional<std::int64_t> latest_timer() const;
    // At `now`, with no worker running and the timer thread waiting: every timer at or
    // before `now` of a task that can still be polled was followed by a poll (E1).
    [[nodiscard]] std::optional<std::string> timers_at_rest(std::int64_t now) const;
    // After the runtime is destroyed: every spawned task's poll function was dropped once.
    [[nodiscard]] std::optional<std::string> shut_down() const;
    // Then, for a task whose join handle is kept: its join answered `finished` (it is
    // done), and `ready` (true: it answered Ready; false: it was dropped unfinished).
    [[nodiscard]] std::optional<std::string> joined(std::size_t task, bool finished, bool ready) const;
    // After every handle is gone: tasks made and never freed, and references taken or
    // dropped on a task already at zero, as the simulated build's accounting counts them
    // (a leak checker's count: the model cannot see a free).
    [[nodiscard]] std::optional<std::string> freed(std::size_t unfreed, std::size_t uses_at_zero) const;
    // Whether the task has a poll running now (a message posted during it may be read
    // by it or owe another poll).
    [[nodiscard]] bool polling(std::size_t task) const { return tasks_.at(task).polling; }

private:
    struct Task {
        bool spawned = false;
        bool polling = false;
        bool ended = false;  // answered Ready
        bool owes_self = false;
        std::uint64_t posted = 0;
        std::uint64_t read = 0;
        std::uint64_t polls = 0;
        std::uint64_t drops = 0;
        std::vector<std::int64_t> timers;  // owed a poll at or after each
        std::vector<bool> delivered;       // by message: its wake returned
        std::vector<bool> due;             // by message: delivered when the poll under way began
    };
    std::vector<Task> tasks_;
};

}  // namespace moq::oracle
