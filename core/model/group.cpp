#include "model/group.hpp"

#include <utility>

#include "kio/schedule_point.hpp"
#include "model/registering.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::model {

namespace {

// The end-of-data answer for a reader at `index` with nothing readable there.
std::optional<Next<std::monostate>> terminal(const GroupState& state, std::size_t index) {
    if (state.fin) {
        if (state.abort && index < *state.fin) return Next<std::monostate>(*state.abort);
        // Aborted after it finished, and this reader drained it first: still a clean end (G5).
        MOQ_SOMETIMES("group.end.clean_despite_abort", state.abort.has_value());
        return Next<std::monostate>(End{});
    }
    if (state.abort) return Next<std::monostate>(*state.abort);
    return std::nullopt;
}

// What every change of a group keeps, checked under its lock: within its limits, one
// partial frame at most and none once finished, a finished count that is the frames
// held until an abort, and an abort that holds nothing. Integer compares only.
void check_group(const GroupState& state) {
    MOQ_ASSERT_LE(state.bytes, state.limits.max_bytes);
    MOQ_ASSERT_LE(state.next_index(), state.limits.max_frames);
    if (state.partial) {
        MOQ_ASSERT_LE(state.partial->size(), state.partial_size);
        MOQ_ASSERT(!state.fin && !state.abort);
    }
    if (state.fin && !state.abort) MOQ_ASSERT_EQ(state.frames.size(), *state.fin);
    if (state.abort) {
        MOQ_ASSERT(state.frames.empty() && !state.partial);
        MOQ_ASSERT_EQ(state.bytes, 0u);
    }
    // Only the last producer's going marks an abort released.
    if (state.released) MOQ_ASSERT(state.abort == Error::dropped);
}

template <class T>
Next<T> as(const Next<std::monostate>& ending) {
    if (ending.is_error()) return Next<T>(ending.error());
    return Next<T>(End{});
}

}  // namespace

// ---- producer ----

GroupProducer::GroupProducer(std::uint64_t sequence, GroupLimits limits) : sequence_(sequence), cell_(std::in_place) {
    cell_.modify_quietly([&](GroupState& state) {
        state.sequence = sequence;
        state.limits = limits;
        MOQ_ASSERT(state.frames.empty() && !state.fin && !state.abort);
        check_group(state);
    });
}

std::optional<Error> GroupProducer::refuse_new_frame(const GroupState& state, std::size_t size) {
    if (state.fin || state.abort) return Error::closed;
    if (state.partial) return Error::frame_open;
    if (state.bytes + size > state.limits.max_bytes || state.next_index() + 1 > state.limits.max_frames)
        return Error::too_large;
    return std::nullopt;
}

std::optional<Error> GroupProducer::write_frame(std::string payload) {
    std::optional<Error> refused;
    bool too_large = false;
    const bool open = cell_.modify_quietly([&](GroupState& state) {
        refused = refuse_new_frame(state, payload.size());
        too_large = refused == Error::too_large;
        if (!refused) {
            const std::size_t frames = state.frames.size();
            state.bytes += payload.size();
            MOQ_ASSERT_LE(state.bytes, state.limits.max_bytes);
            state.frames.push_back(std::make_shared<const std::string>(std::move(payload)));
            MOQ_ASSERT_EQ(state.frames.size(), frames + 1);
        }
        check_group(state);
    });
    if (!open) return Error::closed;
    // Past a limit: the frame is refused and the group aborts with too_large (G3).
    MOQ_SOMETIMES("group.write_frame.over_limit_aborts", too_large);
    if (too_large) abort(Error::too_large);
    if (!refused && MOQ_SITE("group.write_frame.notify", notify)) cell_.notify();
    return refused;
}

std::optional<Error> GroupProducer::start_frame(std::size_t size) {
    std::optional<Error> refused;
    bool too_large = false;
    const bool open = cell_.modify_quietly([&](GroupState& state) {
        refused = refuse_new_frame(state, size);
        too_large = refused == Error::too_large;
        if (!refused) {
            state.partial = std::make_shared<std::string>();
            state.partial->reserve(size);
            state.partial_size = size;
            MOQ_ASSERT_LE(state.bytes + size, state.limits.max_bytes);
        }
        check_group(state);
    });
    if (!open) return Error::closed;
    if (too_large) abort(Error::too_large);
    // A frame that starts is readable at once through poll_next_frame.
    if (!refused && MOQ_SITE("group.start_frame.notify", notify)) cell_.notify();
    return refused;
}

std::optional<Error> GroupProducer::write_chunk(std::string_view chunk) {
    std::optional<Error> refused;
    const bool open = cell_.modify_quietly([&](GroupState& state) {
        if (!state.partial) {
            refused = Error::closed;
        } else if (state.partial->size() + chunk.size() > state.partial_size) {
            refused = Error::wrong_size;
        } else {
            state.partial->append(chunk);
            state.bytes += chunk.size();
            MOQ_ASSERT_LE(state.partial->size(), state.partial_size);
        }
        check_group(state);
    });
    if (!open) return Error::closed;
    if (!refused && MOQ_SITE("group.write_chunk.notify", notify)) cell_.notify();
    return refused;
}

std::optional<Error> GroupProducer::end_frame() {
    std::optional<Error> refused;
    const bool open = cell_.modify_quietly([&](GroupState& state) {
        if (!state.partial) {
            refused = Error::closed;
        } else if (state.partial->size() != state.partial_size) {
            refused = Error::wrong_size;
        } else {
            const std::size_t next = state.next_index();
            state.frames.push_back(std::move(state.partial));
            state.partial.reset();
            // The frame in flight became the last whole one: no index moved.
            MOQ_ASSERT_EQ(state.next_index(), next);
        }
        check_group(state);
    });
    if (!open) return Error::closed;
    if (!refused && MOQ_SITE("group.end_frame.notify", notify)) cell_.notify();
    return refused;
}

std::optional<Error> GroupProducer::finish() {
    std::optional<Error> refused;
    const bool open = cell_.modify_quietly([&](GroupState& state) {
        if (state.fin || state.abort) {
            refused = Error::closed;
        } else if (state.partial) {
            refused = Error::frame_open;
        } else {
            state.fin = state.frames.size();
            MOQ_ASSERT_LE(*state.fin, state.limits.max_frames);
        }
        check_group(state);
    });
    if (!open) return Error::closed;
    if (!refused && MOQ_SITE("group.finish.notify", notify)) cell_.notify();
    return refused;
}

void GroupProducer::abort(Error error) {
    const bool open = cell_.modify_quietly([&](GroupState& state) {
        if (state.abort) return;
        // A finished group aborted: its count stays, drained readers still end cleanly (G5, G6).
        MOQ_SOMETIMES("group.abort.after_finish", state.fin.has_value());
        state.abort = error;
        // Release the cache; `fin` keeps the count so drained readers still end cleanly.
        state.frames.clear();
        state.partial.reset();
        state.bytes = 0;
        check_group(state);
    });
    if (open && MOQ_SITE("group.abort.notify", notify)) cell_.close();
}

GroupProducer& GroupProducer::operator=(GroupProducer&& other) noexcept {
    if (this != &other) {
        release();
        sequence_ = other.sequence_;
        cell_ = std::move(other.cell_);
    }
    return *this;
}

void GroupProducer::release() {
    cell_.release(
        [](GroupState& state) {
            if (state.fin || state.abort) return;  // a finished group keeps its frames
            MOQ_PROBE("group.drop.unfinished_released");
            // Nobody will finish it: what it holds is no group, so release the cache.
            state.abort = Error::dropped;
            state.released = true;
            state.frames.clear();
            state.partial.reset();
            state.bytes = 0;
            check_group(state);
        },
        MOQ_SITE("group.drop.notify", notify));
}

GroupConsumer GroupProducer::consume() const { return GroupConsumer(sequence_, cell_.consume()); }

std::size_t GroupProducer::frame_count() const {
    return cell_.read([](const GroupState& state) { return state.fin.value_or(state.next_index()); });
}

// ---- frame reader ----

kio::Poll<Next<std::string>> FrameReader::poll_read_chunk(const kio::Waiter& waiter) {
    const kio::Waiter& registered = registering(MOQ_SITE("group.chunk.register", register_input), waiter);
    auto answer = cell_.poll(registered, [&](const GroupState& state) -> std::optional<Next<std::string>> {
        if (state.abort) {
            // The group ended under a frame handed out before: its read gets the error (G4, G7).
            MOQ_PROBE("group.chunk.frame_lost_to_abort");
            return Next<std::string>(*state.abort);
        }
        const std::string* bytes = nullptr;
        std::size_t size = 0;
        if (index_ < state.frames.size()) {
            bytes = state.frames[index_].get();
            size = bytes->size();
        } else if (state.partial && index_ == state.frames.size()) {
            bytes = state.partial.get();
            size = state.partial_size;
        } else {
            return Next<std::string>(Error::dropped);
        }
        // A frame only grows, up to its declared size: this reader never ran past it.
        MOQ_ASSERT_LE(read_, bytes->size());
        MOQ_ASSERT_LE(bytes->size(), size);
        if (read_ < bytes->size()) {
            std::string chunk = bytes->substr(read_);
            read_ = bytes->size();
            return Next<std::string>(std::move(chunk));
        }
        if (read_ == size) return Next<std::string>(End{});
        return std::nullopt;
    });
    if (answer.is_ready()) return std::move(answer.value());
    if (answer.is_closed()) return Next<std::string>(Error::dropped);
    return kio::Poll<Next<std::string>>::pending();
}

// ---- consumer ----

GroupConsumer::GroupConsumer(const GroupConsumer& other)
    : sequence_(other.sequence_),
      cell_(other.cell_),
      index_(other.index_),
      end_(other.end_),
      codec_(other.codec_),
      expiry_(other.expiry_),
      expired_(other.expired_),
      ended_(other.ended_),
      given_up_(other.given_up_),
      last_budget_(other.last_budget_),
      bytes_(other.bytes_),
      recover_(other.recover_ ? other.recover_->clone() : nullptr) {}

template <class T, class Walk>
kio::Poll<Next<T>> GroupConsumer::gated(const kio::Waiter& waiter, Walk&& walk) {
    return reads_.walk(waiter, OneWalk{}, MOQ_SITE("group.gate.setup", gate),
                       [&](const kio::Waiter& through) -> kio::Poll<Next<T>> { return walk(through); });
}

void GroupConsumer::give_up_with(Error error) {
    // Only a read still going gives up: a verdict or an earlier give-up answers first.
    MOQ_ASSERT(!expired_ && !ended_);
    if (!given_up_) given_up_ = error;  // resumed() disarms the gate for every end it hands out
    MOQ_ASSERT(given_up_.has_value());
}

template <class T>
kio::Poll<Next<T>> GroupConsumer::give_up(kio::Poll<Next<T>> result) {
    if (result.is_ready() && result.value().is_error()) give_up_with(result.value().error());
    return result;
}

template <class T, class Read>
kio::Poll<Next<T>> GroupConsumer::resumed(const kio::Waiter& waiter, Read&& read) {
    kio::Poll<Next<T>> result = recovering<T>(waiter, std::forward<Read>(read));
    // An end one read hands out is every read's answer from now on (G5, G12): a gated
    // read whose gate is still armed, its input changed but its wake still on the way,
    // must walk to it rather than answer Pending.
    if (result.is_ready() && !result.value().is_item() && MOQ_SITE("group.end.disarm", disarm)) disarm();
    return result;
}

template <class T, class Read>
kio::Poll<Next<T>> GroupConsumer::recovering(const kio::Waiter& waiter, Read&& read) {
    for (int adoptions = 0;; ++adoptions) {
        kio::Poll<Next<T>> result = read(waiter);
        if (expired_ || ended_ || !recover_) return result;
        if (result.is_ready() && result.value().is_item()) return result;
        if (result.is_ready() && result.value().is_end()) {
            recover_.reset();  // nothing more is needed from any copy
            return result;
        }
        const std::optional<Error> failed =
            result.is_ready() ? std::optional<Error>(result.value().error()) : std::nullopt;
        // An error handed out is final (G11): a later change of route cannot take it back.
        if (adoptions == max_adoptions) return give_up<T>(std::move(result));
        kio::schedule_point("group.before_route");
        const kio::Waiter& route_waiter = registering(MOQ_SITE("group.route.register", register_input), waiter);
        if (!recover_->wants(failed, route_waiter)) return give_up<T>(std::move(result));
        kio::schedule_point("group.before_recover");
        // Its copy only stalled, and the route moved on or ended: the read looks past it (G11).
        MOQ_SOMETIMES("group.recover.stall_looks_past_copy", !failed.has_value());
        auto replacement = recover_->poll(index_, failed, waiter);
        if (replacement.is_pending()) {
            // Waiting for a replacement does not stop the budget: a group no route
            // continues is given up once it is stale.
            if (auto verdict = expiry_verdict(waiter)) {
                MOQ_PROBE("group.recover.expired_waiting_for_replacement");
                return as<T>(*verdict);
            }
            return kio::Poll<Next<T>>::pending();
        }
        if (auto* error = std::get_if<Error>(&replacement.value())) {
            MOQ_PROBE("group.recover.route_ended_read");
            give_up_with(*error);  // no route can continue it: final, like a verdict
            return Next<T>(*error);
        }
        Replacement& adopted = std::get<Replacement>(replacement.value());
        MOQ_ASSERT_LT(adoptions, max_adoptions);
        MOQ_ASSERT(!given_up_ && !expired_);
        MOQ_PROBE("group.recover.replacement_adopted");
        // The replacement failed or stalled too within this call: another one (G11, at most 8).
        MOQ_SOMETIMES("group.recover.adopted_twice_in_one_read", adoptions > 0);
        recover_->adopt(adopted);
        cell_ = adopted.cell;
        if (adopted.expiry) expiry_ = adopted.expiry;
        // The gate's registrations sit on the old copy: the next gated read must walk.
        if (MOQ_SITE("group.adopt.disarm", disarm)) disarm();
    }
}

std::optional<Next<std::monostate>> GroupConsumer::expiry_verdict(const kio::Waiter& waiter) {
    if (!expiry_ || expired_ || ended_ || capped()) return std::nullopt;
    std::optional<kio::Duration> budget;
    if (recover_)
        budget = recover_->poll_budget(registering(MOQ_SITE("group.budget.register", register_input), waiter));
    last_budget_ = budget;
    const kio::Waiter& registered = registering(MOQ_SITE("group.expiry.register", register_input), waiter);
    if (!expiry_->is_expired(budget, registered)) return std::nullopt;
    // A verdict is reached once: every later read answers it without asking again.
    MOQ_ASSERT(!expired_ && !ended_);
    expired_ = true;
    // Stale by the reader's own budget (its preferences, through the recover), not the policy's (G10).
    MOQ_SOMETIMES("group.expiry.verdict_under_reader_budget", budget.has_value());
    // A verdict reached outside a gated read must reach the gated reads too.
    if (MOQ_SITE("group.expiry_verdict.disarm", disarm)) disarm();
    const bool unread = cell_.read([&](const GroupState& state) {
        // A copy that failed lost what it held: unless the end is known and behind the
        // cursor, the rest of the group is unread.
        if (state.abort) return !state.fin || index_ < *state.fin;
        return index_ < state.next_index() || (state.fin && index_ < *state.fin);
    });
    if (unread) return Next<std::monostate>(Error::old);
    MOQ_PROBE("group.expiry.stale_with_nothing_unread");
    ended_ = true;
    MOQ_ASSERT(expired_);
    return Next<std::monostate>(End{});
}

kio::Poll<Next<Bytes>> GroupConsumer::read_once(const kio::Waiter& waiter) {
    if (capped()) return Next<Bytes>(End{});
    const kio::Waiter& registered = registering(MOQ_SITE("group.read.register", register_input), waiter);
    auto answer = cell_.poll(registered, [&](const GroupState& state) -> std::optional<Next<Bytes>> {
        if (index_ < state.frames.size()) {
            MOQ_ASSERT(state.frames[index_] != nullptr);
            return Next<Bytes>(state.frames[index_]);
        }
        if (auto ending = terminal(state, index_)) return as<Bytes>(*ending);
        return std::nullopt;  // a frame still arriving is not a whole frame yet
    });
    if (answer.is_ready()) {
        if (answer.value().is_item()) {
            // The cap was checked before the read: a frame handed out lies below it.
            MOQ_ASSERT(!capped());
            ++index_;
            if (bytes_) bytes_->fetch_add(answer.value().item()->size(), std::memory_order_relaxed);
        }
        return std::move(answer.value());
    }
    if (answer.is_closed()) return Next<Bytes>(Error::dropped);
    return kio::Poll<Next<Bytes>>::pending();
}

kio::Poll<Next<Bytes>> GroupConsumer::walk_frame(const kio::Waiter& waiter) {
    // The cap first (G8): a verdict a batch has not handed out yet yields to a cap set since.
    MOQ_SOMETIMES("group.read.cap_over_verdict", capped() && !ended_ && (expired_ || given_up_.has_value()));
    if (ended_ || capped()) return Next<Bytes>(End{});
    if (expired_) return Next<Bytes>(Error::old);
    if (given_up_) return Next<Bytes>(*given_up_);
    return resumed<Bytes>(waiter, [&](const kio::Waiter& through) -> kio::Poll<Next<Bytes>> {
        auto result = read_once(through);
        if (result.is_pending()) {
            kio::schedule_point("group.before_expiry");
            if (auto verdict = expiry_verdict(through)) return as<Bytes>(*verdict);
        }
        return result;
    });
}

kio::Poll<Next<Bytes>> GroupConsumer::read_frame_walk(const kio::Waiter& waiter) {
    auto result = gated<Bytes>(waiter, [&](const kio::Waiter& through) { return walk_frame(through); });
    if (codec_ != Codec::none && result.is_ready() && result.value().is_item())
        return Next<Bytes>(std::make_shared<const std::string>(compress(codec_, *result.value().item())));
    return result;
}

kio::Poll<Next<std::vector<Bytes>>> GroupConsumer::read_frames_walk(const kio::Waiter& waiter, std::size_t max) {
    using Batch = std::vector<Bytes>;
    if (max == 0) return Next<Batch>(Batch{});
    return gated<Batch>(waiter, [&](const kio::Waiter& through) -> kio::Poll<Next<Batch>> {
        Batch batch;
        while (batch.size() < max) {
            auto one = walk_frame(through);
            if (one.is_pending()) break;
            if (one.value().is_item()) {
                Bytes frame = std::move(one.value().item());
                if (codec_ != Codec::none) frame = std::make_shared<const std::string>(compress(codec_, *frame));
                batch.push_back(std::move(frame));
                continue;
            }
            // An end or an error waits for the next call when frames were collected.
            if (batch.empty()) {
                if (one.value().is_end()) return Next<Batch>(End{});
                return Next<Batch>(one.value().error());
            }
            // The end or error behind the frames collected waits for the next call (G9).
            MOQ_PROBE("group.batch.end_after_frames_deferred");
            break;
        }
        if (batch.empty()) return kio::Poll<Next<Batch>>::pending();
        return Next<Batch>(std::move(batch));
    });
}

kio::Poll<Next<Object>> GroupConsumer::read_object_walk(const kio::Waiter& waiter) {
    return gated<Object>(waiter, [&](const kio::Waiter& through) -> kio::Poll<Next<Object>> {
        auto frame = walk_frame(through);
        if (frame.is_pending()) return kio::Poll<Next<Object>>::pending();
        if (!frame.value().is_item()) {
            if (frame.value().is_end()) return Next<Object>(End{});
            return Next<Object>(frame.value().error());
        }
        Object object;
        object.index = index_ - 1;
        object.payload = compress(codec_, *frame.value().item());
        if (expiry_) object.stale_at = expiry_->deadline(last_budget_);
        return Next<Object>(std::move(object));
    });
}

kio::Poll<Next<FrameReader>> GroupConsumer::poll_next_frame(const kio::Waiter& waiter) {
    if (ended_ || capped()) return Next<FrameReader>(End{});
    if (expired_) return Next<FrameReader>(Error::old);
    if (given_up_) return Next<FrameReader>(*given_up_);
    return resumed<FrameReader>(waiter, [&](const kio::Waiter& through) -> kio::Poll<Next<FrameReader>> {
        if (capped()) return Next<FrameReader>(End{});
        const kio::Waiter& registered = registering(MOQ_SITE("group.next_frame.register", register_input), through);
        auto answer = cell_.poll(registered, [&](const GroupState& state) -> std::optional<Next<std::monostate>> {
            // The frame at the cursor is still arriving: handed out at once, read in chunks (G4).
            MOQ_SOMETIMES("group.next_frame.opened_while_arriving",
                          state.partial != nullptr && index_ == state.frames.size());
            if (index_ < state.next_index()) return Next<std::monostate>(std::monostate{});
            return terminal(state, index_);
        });
        if (answer.is_closed()) return Next<FrameReader>(Error::dropped);
        if (answer.is_pending()) {
            if (auto verdict = expiry_verdict(through)) return as<FrameReader>(*verdict);
            return kio::Poll<Next<FrameReader>>::pending();
        }
        if (!answer.value().is_item()) return as<FrameReader>(answer.value());
        MOQ_ASSERT(!capped());
        FrameReader reader(cell_, index_++);
        // The cursor moved without any input firing: a parked whole-frame read may
        // have been waiting out this very frame.
        if (MOQ_SITE("group.next_frame.disarm", disarm)) disarm();
        return Next<FrameReader>(std::move(reader));
    });
}

kio::Poll<Next<std::size_t>> GroupConsumer::poll_finished(const kio::Waiter& waiter) {
    if (ended_) return Next<std::size_t>(index_);
    if (expired_) return Next<std::size_t>(Error::old);
    if (given_up_) return Next<std::size_t>(*given_up_);
    return resumed<std::size_t>(waiter, [&](const kio::Waiter& through) -> kio::Poll<Next<std::size_t>> {
        const kio::Waiter& registered = registering(MOQ_SITE("group.finished.register", register_input), through);
        auto answer = cell_.poll(registered, [&](const GroupState& state) -> std::optional<Next<std::size_t>> {
            // The count is fixed at finish: an abort that releases the frames later does
            // not take back how many there were (G6), wherever this cursor stands.
            MOQ_SOMETIMES("group.finished.count_survives_abort", state.fin.has_value() && state.abort.has_value());
            if (state.fin) return Next<std::size_t>(*state.fin);
            if (state.abort) return Next<std::size_t>(*state.abort);
            return std::nullopt;
        });
        if (answer.is_ready()) return answer.value();
        if (answer.is_closed()) return Next<std::size_t>(Error::dropped);
        if (auto verdict = expiry_verdict(through)) {
            if (verdict->is_error()) return Next<std::size_t>(verdict->error());
            return Next<std::size_t>(index_);
        }
        return kio::Poll<Next<std::size_t>>::pending();
    });
}

// ---- builders and mutators: the disarm points ----

GroupConsumer& GroupConsumer::skip_to(std::size_t index) {
    MOQ_ASSERT(!reads_.walking());  // a builder never runs inside this reader's own walk
    const std::size_t before = index_;
    if (index > index_) index_ = index;
    // The cursor never moves back.
    MOQ_ASSERT_GE(index_, before);
    MOQ_ASSERT_GE(index_, index);
    if (MOQ_SITE("group.skip_to.disarm", disarm)) disarm();
    return *this;
}

GroupConsumer& GroupConsumer::with_range(std::size_t start, std::optional<std::size_t> end) {
    MOQ_ASSERT(!reads_.walking());  // a builder never runs inside this reader's own walk
    const std::size_t before = index_;
    if (start > index_) index_ = start;
    end_ = end;
    // The cursor never moves back, and stands at the range's start or past it.
    MOQ_ASSERT_GE(index_, before);
    MOQ_ASSERT_GE(index_, start);
    if (MOQ_SITE("group.with_range.disarm", disarm)) disarm();
    return *this;
}

GroupConsumer& GroupConsumer::with_end(std::optional<std::size_t> end) {
    MOQ_ASSERT(!reads_.walking());  // a builder never runs inside this reader's own walk
    end_ = end;
    MOQ_ASSERT(end_ == end);
    if (MOQ_SITE("group.with_end.disarm", disarm)) disarm();
    return *this;
}

GroupConsumer& GroupConsumer::compressed(Codec codec) {
    MOQ_ASSERT(!reads_.walking());  // a builder never runs inside this reader's own walk
    codec_ = codec;
    if (MOQ_SITE_EXPLAINED("group.compressed.disarm", disarm,
                           "A parked read has no frame to encode, so switching the codec cannot turn "
                           "its Pending into Ready; kept so no gate ever outlives a change of what "
                           "the read hands out."))
        disarm();
    return *this;
}

GroupConsumer& GroupConsumer::with_expiry(std::shared_ptr<Expiry> expiry) {
    MOQ_ASSERT(!reads_.walking());  // a builder never runs inside this reader's own walk
    expiry_ = std::move(expiry);
    if (MOQ_SITE("group.with_expiry.disarm", disarm)) disarm();
    return *this;
}

GroupConsumer& GroupConsumer::with_recover(std::unique_ptr<Recover> recover) {
    MOQ_ASSERT(!reads_.walking());  // a builder never runs inside this reader's own walk
    recover_ = std::move(recover);
    if (MOQ_SITE("group.with_recover.disarm", disarm)) disarm();
    return *this;
}

}  // namespace moq::model
