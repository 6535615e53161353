// What AddressSanitizer and ThreadSanitizer must be told about one task's fiber. Both
// follow the program's stack: ASan to tell a stack frame from an overflow and to keep
// each stack's fake frames, TSan to keep each fiber's own call stack and clock. A switch
// they are not told of makes ASan report stack errors on another fiber's stack (when an
// unfinished task is unwound) and TSan lose track of its stacks. Every switch into or
// out of a task goes through these calls; a build without either sanitizer compiles
// them to nothing.
//
//   construction:  <construct the fiber>   sanitizer.created();
//   resumer side:  Resuming r = sanitizer.resuming();   <switch into the task>
//                  r.returned(task_finished);
//   task side:     sanitizer.arrived();  ...  sanitizer.leaving();   <switch back>
//                  (or leaving_for_good() before the task's last switch out)
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define MOQ_SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MOQ_SIM_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define MOQ_SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MOQ_SIM_TSAN 1
#endif
#endif

#if defined(MOQ_SIM_ASAN) || defined(MOQ_SIM_TSAN)
#define MOQ_SIM_FIBER_SANITIZER 1
#endif

namespace moq::sim {

#ifdef MOQ_SIM_FIBER_SANITIZER

class FiberSanitizer {
public:
    FiberSanitizer();
    ~FiberSanitizer();
    FiberSanitizer(const FiberSanitizer&) = delete;
    FiberSanitizer& operator=(const FiberSanitizer&) = delete;

    // The task's own stack, once allocated: `bottom` is its lowest address.
    void set_stack(const void* bottom, std::size_t size);

    // One switch into the task, seen from the code that resumes it.
    class Resuming {
    public:
        // Back on the resumer's stack: the task suspended or finished.
        void returned(bool task_finished);

    private:
        friend class FiberSanitizer;
#ifdef MOQ_SIM_ASAN
        void* fake_stack_ = nullptr;  // the resumer's fake frames, kept while it is away
#endif
#ifdef MOQ_SIM_TSAN
        void* resumer_fiber_ = nullptr;
#endif
    };
    // Called right before the switch into the task.
    [[nodiscard]] Resuming resuming();
    // After the fiber's construction, which ran the first instructions of its entry
    // function on the new stack and came straight back.
    void created();

    // On the task's stack, right after a switch into it (first entry or a resume).
    void arrived();
    // Right before the task switches back to whoever resumed it.
    void leaving();
    // Right before the task's last switch out: its fake frames go with it.
    void leaving_for_good();

private:
#ifdef MOQ_SIM_ASAN
    // The task's stack, the stack it returns to, its fake frames while away.
    const void* stack_bottom_ = nullptr;
    std::size_t stack_size_ = 0;
    const void* resumer_bottom_ = nullptr;
    std::size_t resumer_size_ = 0;
    void* fake_stack_ = nullptr;
#endif
#ifdef MOQ_SIM_TSAN
    // The task's fiber and the one that resumed it.
    void* fiber_ = nullptr;
    void* resumer_fiber_ = nullptr;
#endif
};

#else

// Nothing to tell: every call is empty and inlined away.
class FiberSanitizer {
public:
    void set_stack(const void*, std::size_t) {}
    struct Resuming {
        void returned(bool) {}
    };
    [[nodiscard]] Resuming resuming() { return {}; }
    void created() {}
    void arrived() {}
    void leaving() {}
    void leaving_for_good() {}
};

#endif

}  // namespace moq::sim
