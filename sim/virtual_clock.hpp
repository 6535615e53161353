// The simulator's clock: the core's ManualClock, moved only by the executor, to the next
// deadline, when no task can run.
#pragma once

#include "kio/manual_clock.hpp"

namespace moq::sim {

using VirtualClock = kio::ManualClock;

}  // namespace moq::sim
