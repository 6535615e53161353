#include "sim/fiber_sanitizer.hpp"

#ifdef MOQ_SIM_FIBER_SANITIZER

#ifdef MOQ_SIM_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef MOQ_SIM_TSAN
#include <sanitizer/tsan_interface.h>
// TSan's own hook for a function's return, which instrumented code calls.
extern "C" void __tsan_func_exit();
#endif

namespace moq::sim {

FiberSanitizer::FiberSanitizer() {
#ifdef MOQ_SIM_TSAN
    fiber_ = __tsan_create_fiber(0);
#endif
}

FiberSanitizer::~FiberSanitizer() {
#ifdef MOQ_SIM_TSAN
    __tsan_destroy_fiber(fiber_);
#endif
}

void FiberSanitizer::set_stack([[maybe_unused]] const void* bottom, [[maybe_unused]] std::size_t size) {
#ifdef MOQ_SIM_ASAN
    stack_bottom_ = bottom;
    stack_size_ = size;
#endif
}

FiberSanitizer::Resuming FiberSanitizer::resuming() {
    Resuming resuming;
#ifdef MOQ_SIM_ASAN
    __sanitizer_start_switch_fiber(&resuming.fake_stack_, stack_bottom_, stack_size_);
#endif
#ifdef MOQ_SIM_TSAN
    resumer_fiber_ = __tsan_get_current_fiber();
    resuming.resumer_fiber_ = resumer_fiber_;
    __tsan_switch_to_fiber(fiber_, 0);
#endif
    return resuming;
}

void FiberSanitizer::Resuming::returned([[maybe_unused]] bool task_finished) {
#ifdef MOQ_SIM_ASAN
    __sanitizer_finish_switch_fiber(fake_stack_, nullptr, nullptr);
#endif
#ifdef MOQ_SIM_TSAN
    // A finishing task does not switch TSan back itself: the frames it returns from
    // after its last line are its own, and so is the end of the resumer's switch call
    // that entered it (TSan counts calls and returns per fiber).
    if (task_finished) __tsan_switch_to_fiber(resumer_fiber_, 0);
#endif
}

void FiberSanitizer::created() {
#ifdef MOQ_SIM_TSAN
    // The entry function was entered on this fiber and never returns here.
    __tsan_func_exit();
#endif
}

void FiberSanitizer::arrived() {
#ifdef MOQ_SIM_ASAN
    __sanitizer_finish_switch_fiber(fake_stack_, &resumer_bottom_, &resumer_size_);
#endif
}

void FiberSanitizer::leaving() {
#ifdef MOQ_SIM_ASAN
    __sanitizer_start_switch_fiber(&fake_stack_, resumer_bottom_, resumer_size_);
#endif
#ifdef MOQ_SIM_TSAN
    __tsan_switch_to_fiber(resumer_fiber_, 0);
#endif
}

void FiberSanitizer::leaving_for_good() {
#ifdef MOQ_SIM_ASAN
    __sanitizer_start_switch_fiber(nullptr, resumer_bottom_, resumer_size_);
#endif
    // TSan: the resumer switches back once the task is gone (Resuming::returned).
}

}  // namespace moq::sim

#endif
