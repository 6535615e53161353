// The simulator's only source of randomness: SplitMix64, the same sequence on every
// platform and build type, so a seed replays exactly.
#pragma once

#include <cstdint>

namespace moq::sim {

// SplitMix64's finaliser: every input bit moves every output bit. The one copy, for the
// simulator's stream, a case's generator seed (properties) and a sweep's case digest (cli).
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// SplitMix64's increment (the golden ratio): what its state steps by.
constexpr std::uint64_t splitmix64_gamma = 0x9E3779B97F4A7C15ull;

class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() { return splitmix64_mix(state_ += splitmix64_gamma); }

    // In [0, bound); bound > 0. A plain modulo: its bias is below 2^-40 for the small
    // bounds used here, and it is the same on every compiler.
    std::uint64_t below(std::uint64_t bound) { return next() % bound; }

    // True with probability `numerator / denominator`.
    bool chance(std::uint64_t numerator, std::uint64_t denominator) { return below(denominator) < numerator; }

    // A generator for a named sub-stream, so adding draws to one part of a run does not
    // shift the choices of another.
    Random fork(std::uint64_t salt) { return Random(next() ^ (salt * 0xD6E8FEB86659FD93ull)); }

private:
    std::uint64_t state_;
};

}  // namespace moq::sim
