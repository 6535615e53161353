// The per-poll checks of a gated read against what the executor saw of its task (W6,
// the idle path), shared by the gated-reader suites.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kio/waiter.hpp"
#include "properties/drive.hpp"
#include "properties/mailbox.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

// The idle-path checks of one gated reader, poll by poll:
// - a re-poll after a park that left the gate armed, when no input of the reader has
//   woken the task since (only a post to its mailbox, which is another future of the same
//   task, or nothing), with no poll from a new task and no change of the reader's own,
//   walks nothing;
// - a poll from a new task always walks (W6: the gate's recorded task is someone else).
// And at the end, the budget: walks that found nothing (answered Pending) never exceed
// the wakes, fresh-task polls and Ready answers that preceded them, plus the walks a
// gate needs before it can arm at all. A walk that answers Ready is never waste, even
// when no wake paid for it (a spurious poll that finds a quiet write).
class IdleChecks {
public:
    // First thing in a poll, before the reader reads its mailbox. `mailbox`: the
    // reader's. `delivering`: a write that may fire the gate is still delivering its
    // wakes (a wake point lies between firing the gate and waking the task), so a walk
    // now may be paid for by a wake still on its way.
    template <class Command>
    void begin(sim::Task& task, std::uint64_t walks, const Mailbox<Command>& mailbox, bool delivering = false) {
        const sim::TaskStats now = task.executor().task_stats(task.id());
        const std::size_t posted = mailbox.posted();
        fresh_ = now.fresh_polls != last_.fresh_polls;
        // The mailbox wakes the task at most once between polls: with the first post
        // after the poll that registered on it. A post still delivering (stopped at a
        // wake point) may not have woken it yet, so a wake counted now may be a gate's:
        // which it was is unknown, and the poll is not judged quiet.
        const std::uint64_t mailbox_wakes = watching_ && posted != posted_ ? 1 : 0;
        quiet_ = parked_armed_ && !fresh_ && !delivering && !(mailbox_wakes != 0 && mailbox.delivering()) &&
                 now.wakes - last_.wakes <= mailbox_wakes;
        walks_ = walks;
        posted_ = posted;
        ++polls_;
    }

    // Whether the gated read of this poll answered without walking.
    [[nodiscard]] bool idle(std::uint64_t walks) const { return walks == walks_; }

    // Last thing in a poll. `parked`: the poll answered Pending; `armed`: the gate is
    // armed now; `own_change`: the reader changed its own state in this poll before its
    // gated read; `gated`: the poll ran a gated read; `gated_pending`: that read answered
    // Pending; `posted`: the commands posted to the reader so far.
    std::optional<std::string> end(sim::Task& task, bool parked, bool armed, std::uint64_t walks, bool own_change,
                                   bool gated, bool gated_pending, std::size_t posted) {
        if (gated) trace_gate(task.executor(), walks == walks_, walks);
        std::optional<std::string> found;
        const std::string poll = "poll " + std::to_string(polls_) + " of " + std::string(task.name()) + ": ";
        if (quiet_ && !own_change && walks != walks_)
            found = poll + "a re-poll that no input of its gate woke walked (the gate was armed)";
        else if (fresh_ && gated && walks == walks_)
            found = poll + "the gate answered a poll from a new task without walking";
        if (walks != walks_ && gated_pending) ++wasted_;
        last_ = task.executor().task_stats(task.id());
        if (wakes_after_gated_) last_.wakes = *wakes_after_gated_;
        wakes_after_gated_.reset();
        parked_armed_ = parked && armed;
        // A post during the poll used up its registration on the mailbox.
        watching_ = posted == posted_;
        posted_ = posted;
        return found;
    }

    // The gated read of this poll is done, but the poll goes on (another read of the
    // same task, which may reach a schedule point): a wake from here on can find the
    // gate armed and must count as a wake of the next poll.
    void gated_read_done(sim::Task& task) { wakes_after_gated_ = task.executor().task_stats(task.id()).wakes; }

    // `setup`: the walks no wake pays for before the gate can arm (the first poll's, and
    // a lazily made gate's parks).
    [[nodiscard]] std::optional<std::string> budget(const sim::TaskStats& stats, std::uint64_t setup,
                                                    std::string_view who) const {
        const std::uint64_t paid = stats.wakes + stats.fresh_polls + stats.ready + setup;
        if (wasted_ <= paid) return std::nullopt;
        return std::string(who) + " walked " + std::to_string(wasted_) + " times to find nothing, for " +
               std::to_string(stats.wakes) + " wakes, " + std::to_string(stats.fresh_polls) + " fresh polls, " +
               std::to_string(stats.ready) + " ready answers and " + std::to_string(setup) + " set-up walks";
    }

private:
    sim::TaskStats last_;
    bool parked_armed_ = false;
    bool quiet_ = false;
    bool fresh_ = false;
    bool watching_ = false;  // the task's waiter is registered on the mailbox
    std::uint64_t walks_ = 0;
    std::uint64_t polls_ = 0;
    std::uint64_t wasted_ = 0;  // walks that answered Pending
    std::size_t posted_ = 0;
    std::optional<std::uint64_t> wakes_after_gated_;
};

}  // namespace moq::properties
