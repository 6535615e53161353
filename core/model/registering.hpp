// A registration that a mutation site can switch off: with the site off the walk
// registers nothing there (the noop waiter), which is the bug its tests must catch.
#pragma once

#include "kio/waiter.hpp"

namespace moq::model {

inline const kio::Waiter& registering(bool on, const kio::Waiter& waiter) { return on ? waiter : kio::noop_waiter(); }

}  // namespace moq::model
