#include "sim/fiber_sanitizer.hpp"

#ifdef MOQ_SIM_FIBER_SANITIZER

#ifdef MOQ_SIM_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef MOQ_SIM_TSAN
#include <sanitizer/tsan_interface.h>
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
    __tsan_switch_to_fiber(fiber_, 0);
#endif
    return resuming;
}

void FiberSanitizer::Resuming::returned() {
#ifdef MOQ_SIM_ASAN
    __sanitizer_finish_switch_fiber(fake_stack_, nullptr, nullptr);
#endif
}

void FiberSanitizer::creating() {
#ifdef MOQ_SIM_TSAN
    resumer_fiber_ = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(fiber_, 0);
#endif
}

void FiberSanitizer::created() {
#ifdef MOQ_SIM_TSAN
    __tsan_switch_to_fiber(resumer_fiber_, 0);
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
#ifdef MOQ_SIM_TSAN
    __tsan_switch_to_fiber(resumer_fiber_, 0);
#endif
}

}  // namespace moq::sim

#endif
