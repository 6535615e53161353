// The suites, one file each.
#pragma once

#include "properties/suite.hpp"

namespace moq::properties {

const Suite& waiter_suite();  // WaiterList against a plain model
const Suite& gate_suite();    // Idle<K> against a model of armed / fired / task
const Suite& group_suite();   // group readers against the group model, in the simulator
const Suite& track_suite();   // track cursors against the track model, in the simulator
const Suite& resume_suite();  // the resume reader against the resume model, in the simulator
const Suite& fanout_suite();  // the session fanout program, each viewer against a resume model, in the simulator

}  // namespace moq::properties
