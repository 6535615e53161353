#include "runtime/thread_pool.hpp"

#include <algorithm>
#include <stdexcept>

#include "util/assert.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

namespace {

// One look's pause: tells the core a spin is under way, so a sibling hyperthread runs.
inline void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#else
    std::this_thread::yield();
#endif
}

}  // namespace

ThreadPool::ThreadPool(std::size_t threads, Settings settings) : settings_(settings) {
    if (threads == 0) throw std::invalid_argument("a thread pool has at least one thread");
    threads_.reserve(threads);
    for (std::size_t index = 0; index < threads; ++index) threads_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
    if (!threads_.empty()) stop_and_join();
}

std::size_t ThreadPool::cores() const {
    if (settings_.cores != 0) return settings_.cores;
    return std::max(1u, std::thread::hardware_concurrency());
}

void ThreadPool::run(Drainer drainer) {
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        // One runtime a pool: every call runs the one drainer kept.
        MOQ_ASSERT(!drainer_ || drainer_->same_runtime(drainer));
        drainer_ = drainer;
        ++calls_;
        calls_seen_.store(calls_, std::memory_order_relaxed);
        // A spinning thread, or one already told to wake, takes a call; wake another only
        // for a call none of them will take.
        wake = calls_ > spinning_ + waking_ && tell_one_to_wake();
    }
    if (wake) parked_cv_.notify_one();
}

void ThreadPool::run_after(Drainer drainer, kio::Duration delay) {
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        MOQ_ASSERT(!delayed_.has_value());
        delayed_ = drainer;
        delayed_at_ = std::chrono::steady_clock::now() + delay;
        // A parked thread keeps it; one that spins or is being woken will park and keep
        // it itself.
        wake = !delayed_kept_ && spinning_ + waking_ == 0 && tell_one_to_wake();
    }
    if (wake) parked_cv_.notify_one();
}

bool ThreadPool::tell_one_to_wake() {
    if (parked_ == 0) return false;
    --parked_;
    ++waking_;
    ++counts_.wakeups;
    return true;
}

void ThreadPool::stop_and_join() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    parked_cv_.notify_all();
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
}

ThreadPool::Counts ThreadPool::counts() const {
    std::lock_guard lock(mutex_);
    return counts_;
}

bool ThreadPool::run_one(std::unique_lock<std::mutex>& lock) {
    if (calls_ == 0) return false;
    --calls_;
    calls_seen_.store(calls_, std::memory_order_relaxed);
    const Drainer drainer = *drainer_;
    lock.unlock();
    drainer();
    lock.lock();
    return true;
}

bool ThreadPool::run_due(std::unique_lock<std::mutex>& lock) {
    if (!delayed_ || std::chrono::steady_clock::now() < delayed_at_) return false;
    const Drainer drainer = *delayed_;
    delayed_.reset();
    ++counts_.delayed_calls;
    lock.unlock();
    drainer();
    lock.lock();
    return true;
}

bool ThreadPool::spin_for_call() const {
    for (std::uint32_t round = 0; round < settings_.spin_rounds; ++round) {
        if (calls_seen_.load(std::memory_order_relaxed) > 0) return true;
        spin_pause();
    }
    return false;
}

void ThreadPool::park(std::unique_lock<std::mutex>& lock) {
    const bool keeper = delayed_.has_value() && !delayed_kept_;
    if (keeper) delayed_kept_ = true;
    ++parked_;
    const auto woken = [&] { return waking_ > 0 || stopping_; };
    if (keeper)
        parked_cv_.wait_until(lock, delayed_at_, woken);
    else
        parked_cv_.wait(lock, woken);
    if (keeper) delayed_kept_ = false;
    if (waking_ > 0) {
        --waking_;  // a wake is taken by whichever parked thread sees it first
    } else {
        --parked_;  // the stop, or the delayed call's time
    }
}

void ThreadPool::work() {
    std::unique_lock lock(mutex_);
    for (;;) {
        if (run_one(lock) || run_due(lock)) continue;
        if (stopping_) return;
        // One thread at a time looks for a call before parking; the rest park at once.
        if (spinning_ == 0 && settings_.spin_rounds > 0) {
            ++spinning_;
            lock.unlock();
            const bool seen = spin_for_call();
            lock.lock();
            --spinning_;
            if (seen && calls_ > 0) ++counts_.taken_while_spinning;
            if (run_one(lock) || run_due(lock)) continue;
            if (stopping_) return;
        }
        park(lock);
    }
}

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
