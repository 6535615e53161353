#include "kio/system_clock.hpp"

namespace moq::kio {

// The production clock's code, compiled once here (kio/system_clock.hpp declares it extern).
template class TimerThreadClock<SteadyThreadPlatform>;

}  // namespace moq::kio
