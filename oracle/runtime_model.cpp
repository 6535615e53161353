#include "oracle/runtime_model.hpp"

#include <algorithm>

namespace moq::oracle {

namespace {

std::string named(std::size_t task) { return "task " + std::to_string(task); }

}  // namespace

std::optional<std::string> RuntimeModel::poll_began(std::size_t index) {
    Task& task = tasks_.at(index);
    std::optional<std::string> found;
    if (task.polling)
        found = "E2: " + named(index) + " was polled while its poll " + std::to_string(task.polls) + " still ran";
    else if (task.ended)
        found = "E3: " + named(index) + " was polled after it answered Ready";
    else if (task.drops != 0)
        found = "E3: " + named(index) + " was polled after its poll function was dropped";
    task.polling = true;
    task.due = task.delivered;
    task.owes_self = false;  // this poll is the one it asked for
    ++task.polls;
    return found;
}

std::optional<std::string> RuntimeModel::read(std::size_t index, std::uint64_t read) {
    Task& task = tasks_.at(index);
    if (read > task.posted || read < task.read)
        return "E1: " + named(index) + " says it read " + std::to_string(read) + " messages, after " +
               std::to_string(task.read) + " of " + std::to_string(task.posted) + " posted";
    task.read = read;
    return std::nullopt;
}

std::optional<std::string> RuntimeModel::after_previous_poll(std::size_t index, bool happened) const {
    const Task& task = tasks_.at(index);
    if (happened || task.polls < 2) return std::nullopt;
    return "E6: " + named(index) + "'s poll " + std::to_string(task.polls) + " does not happen after its poll " +
           std::to_string(task.polls - 1) +
           " ended: no release and acquire orders the two, so it may not see what that one wrote";
}

std::optional<std::string> RuntimeModel::after_post(std::size_t index, std::uint64_t message, bool happened) const {
    const Task& task = tasks_.at(index);
    if (happened || message >= task.due.size() || !task.due[message]) return std::nullopt;
    return "E6: " + named(index) + "'s poll " + std::to_string(task.polls) + " read message " +
           std::to_string(message) + ", whose wake returned before the poll began, but does not happen after its post";
}

std::optional<std::string> RuntimeModel::after_end(std::size_t index, bool happened) const {
    const Task& task = tasks_.at(index);
    if (happened || !task.ended) return std::nullopt;
    return "E6: " + named(index) + "'s join handle answered finished, but does not happen after its poll " +
           std::to_string(task.polls) + " answered Ready";
}

void RuntimeModel::answered(std::size_t index, bool ready) {
    Task& task = tasks_.at(index);
    task.polling = false;
    if (ready) task.ended = true;
}

std::optional<std::string> RuntimeModel::body_dropped(std::size_t index) {
    Task& task = tasks_.at(index);
    ++task.drops;
    if (task.polling) return "E4: " + named(index) + "'s poll function was dropped during its poll";
    if (task.drops > 1) return "E4: " + named(index) + "'s poll function was dropped twice";
    return std::nullopt;
}

void RuntimeModel::polled_at(std::size_t index, std::int64_t now) {
    std::erase_if(tasks_.at(index).timers, [now](std::int64_t at) { return at <= now; });
}

std::optional<std::int64_t> RuntimeModel::latest_timer() const {
    std::optional<std::int64_t> latest;
    for (const Task& task : tasks_) {
        if (task.ended || task.drops != 0) continue;
        for (const std::int64_t at : task.timers) latest = std::max(latest.value_or(at), at);
    }
    return latest;
}

std::optional<std::string> RuntimeModel::timers_at_rest(std::int64_t now) const {
    for (std::size_t index = 0; index < tasks_.size(); ++index) {
        const Task& task = tasks_[index];
        if (task.ended || task.drops != 0) continue;
        for (const std::int64_t at : task.timers)
            if (at <= now)
                return "E1: missed wake: " + named(index) + " asked the clock for a wake at " + std::to_string(at) +
                       " ns; the clock is at " + std::to_string(now) + " ns, and no poll began since";
    }
    return std::nullopt;
}

std::optional<std::string> RuntimeModel::at_rest() const {
    for (std::size_t index = 0; index < tasks_.size(); ++index) {
        const Task& task = tasks_[index];
        if (!task.spawned || task.ended) continue;
        if (task.polling) return "E1: " + named(index) + " is still in a poll with every worker gone";
        if (task.read != task.posted)
            return "E1: missed wake: " + named(index) + " read " + std::to_string(task.read) + " of the " +
                   std::to_string(task.posted) + " messages posted to it, and no worker runs";
        if (task.owes_self)
            return "E1: missed wake: " + named(index) + " woke itself during its poll " + std::to_string(task.polls) +
                   " and was never polled again";
    }
    return std::nullopt;
}

std::optional<std::string> RuntimeModel::joined(std::size_t index, bool finished, bool ready) const {
    const Task& task = tasks_.at(index);
    if (!finished) return "E5: " + named(index) + " is not done after the runtime shut down";
    if (ready != task.ended)
        return "E5: " + named(index) + "'s join says " + (ready ? "Ready" : "dropped") + ", but it " +
               (task.ended ? "answered Ready" : "never answered Ready");
    return std::nullopt;
}

std::optional<std::string> RuntimeModel::shut_down() const {
    for (std::size_t index = 0; index < tasks_.size(); ++index) {
        const Task& task = tasks_[index];
        if (task.spawned && task.drops != 1)
            return "E4: " + named(index) + "'s poll function was dropped " + std::to_string(task.drops) +
                   " times by the end, not once";
    }
    return std::nullopt;
}

std::optional<std::string> RuntimeModel::freed(std::size_t unfreed, std::size_t uses_at_zero) const {
    if (uses_at_zero != 0)
        return "E4: a task's reference count was used " + std::to_string(uses_at_zero) + " times after it reached zero";
    if (unfreed != 0) return "E4: " + std::to_string(unfreed) + " tasks were never freed once every handle was gone";
    return std::nullopt;
}

}  // namespace moq::oracle
