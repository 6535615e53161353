// Probes: rare paths and rare states, named so a sweep can say whether it reached them.
//
//   MOQ_PROBE("group.read.recover_adopted");                 // a rare path was taken
//   MOQ_SOMETIMES("resume.take.held_from_replaced", held);   // a state seen at least once
//
// A probe asserts nothing: it counts. `moqsim sweep --probes FILE` writes how often each
// suite's sweep hit each probe, and scripts/check fails when a probe listed in
// scripts/expected-probes.txt falls below its count there (a change that makes a rare
// path unreachable is then a red test, not a silent loss of coverage). The guided search
// (moqsim fuzz) feeds the counts to libFuzzer as features of their own.
//
// Every probe registers itself (name, file, line, kind) during static initialisation, in
// every build, at no run time cost. Only a build configured with probes (-Dprobes, on by
// default wherever the tests are built) counts: there a hit is one relaxed increment, and
// MOQ_SOMETIMES evaluates its condition. Elsewhere (the release and bench builds) both
// compile to nothing and the condition is never evaluated.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "util/mutation.hpp"

namespace moq::probe {

// `path`: MOQ_PROBE, a rare path of the code; `state`: MOQ_SOMETIMES, a state reached.
enum class Kind { path, state };
std::string_view kind_name(Kind kind);

struct Probe {
    std::string_view name;
    Kind kind;
    std::string_view file;  // relative to the project root
    int line;
};

// Registers a probe with its counter (which lives as long as the program); returns its
// index. Called from static initialisation. A name may be registered from more than one
// place (a header's probe in several programs' objects, or one name marking two ends of
// one path): its hits are then the sum.
int add_probe(Probe probe, std::atomic<std::uint64_t>* hits);

// Every probe name linked into this program, ordered by name (a name registered twice
// appears once, at its first place).
std::vector<Probe> probes();
// The hits of every probe in the order of probes(), since the last reset.
std::vector<std::uint64_t> hit_counts();
// The named probe's hits since the last reset (0 when unknown).
std::uint64_t hits(std::string_view name);
// Sets every counter back to 0.
void reset_hits();

// Whether this build counts hits at all.
constexpr bool probes_enabled() {
#ifdef MOQ_PROBES
    return true;
#else
    return false;
#endif
}

template <mutation::Literal Name, Kind Of, mutation::Literal File, int Line>
struct ProbeAt {
    static inline std::atomic<std::uint64_t> counter{0};
    static inline const int index = add_probe(Probe{Name.value, Of, File.value, Line}, &counter);
    static void hit() {
        static_cast<void>(index);  // odr-use: the probe registers in every build
#ifdef MOQ_PROBES
        counter.fetch_add(1, std::memory_order_relaxed);
#endif
    }
};

}  // namespace moq::probe

#ifdef MOQ_PROBES
#define MOQ_PROBE(name) (::moq::probe::ProbeAt<name, ::moq::probe::Kind::path, __FILE__, __LINE__>::hit())
#define MOQ_SOMETIMES(name, condition) \
    ((condition) ? ::moq::probe::ProbeAt<name, ::moq::probe::Kind::state, __FILE__, __LINE__>::hit() : void())
#else
// The condition is named, never evaluated; the probe still registers.
#define MOQ_PROBE(name) \
    (static_cast<void>(::moq::probe::ProbeAt<name, ::moq::probe::Kind::path, __FILE__, __LINE__>::index))
#define MOQ_SOMETIMES(name, condition)                        \
    (static_cast<void>(sizeof(static_cast<bool>(condition))), \
     static_cast<void>(::moq::probe::ProbeAt<name, ::moq::probe::Kind::state, __FILE__, __LINE__>::index))
#endif
