// Which of the runtime's two builds this is. The runtime is built as it ships and again
// with its atomics and locks as sync points (MOQ_SYNC_POINTS, core/kio/sync.hpp); the two
// differ in layout, so each lives in an inline namespace of its own and a program that
// linked both would fail to link instead of mixing them.
#pragma once

#if MOQ_SYNC_POINTS
#define MOQ_RUNTIME_BUILD_BEGIN inline namespace simulated {
#else
#define MOQ_RUNTIME_BUILD_BEGIN inline namespace threads {
#endif
#define MOQ_RUNTIME_BUILD_END }

// The wake paths are noexcept as built to ship. In a simulated run a failed assertion is
// an exception the simulator reports as the run's failure, so there they may throw.
#if MOQ_SYNC_POINTS
#define MOQ_RUNTIME_NOEXCEPT
#else
#define MOQ_RUNTIME_NOEXCEPT noexcept
#endif
