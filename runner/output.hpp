// The files moqsim reads and writes: inputs read whole with a size limit, outputs replaced
// atomically (a failed run leaves no half file); and a progress bar on a terminal (plain
// lines otherwise).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace moq::runner {

// The largest input file moqsim reads: a sweep result or a saved case is far smaller.
inline constexpr std::uintmax_t max_input_bytes = 64u << 20;
// The whole of the file at `path`; UsageError if it is missing, a folder, unreadable or
// over max_input_bytes.
std::string read_input_file(const std::string& path);

// Fails early (UsageError) if `path` could not be written: it is empty or names a folder
// or something other than a file, its folder is missing or takes no new file. `what`
// (such as "--json") starts the message. Called before a long run, so a bad --json costs
// nothing.
void check_writable(const std::string& path, std::string_view what = "output");
// Refuses (UsageError) two outputs of one run that name the same file: one would
// silently replace the other.
void check_different_files(std::string_view first_flag, const std::string& first, std::string_view second_flag,
                           const std::string& second);
// Writes `text` to a temporary file beside `path`, then renames it over `path`: a failure
// leaves `path` as it was and no temporary file behind.
void write_atomically(const std::string& path, std::string_view text);

class Progress {
public:
    Progress(std::string label, std::uint64_t total);
    // `buckets`: the failures' buckets so far.
    void advance(std::uint64_t done, std::size_t buckets = 0);
    void finish();

private:
    void draw(std::uint64_t done, bool last);

    std::string label_;
    std::uint64_t total_;
    bool terminal_;
    std::chrono::steady_clock::time_point started_;
    std::chrono::steady_clock::time_point last_draw_;
    std::uint64_t last_reported_ = 0;
    std::size_t buckets_ = 0;
};

// The progress of a timed sweep (`moqsim sweep --duration`): on a terminal a bar of the
// time spent, the seed, the cases run, their rate and the buckets; otherwise a line at
// every tenth of the time.
class TimedProgress {
public:
    explicit TimedProgress(std::uint64_t seconds);
    void advance(std::uint64_t seed, std::uint64_t cases, std::size_t buckets = 0);
    void finish();

private:
    void draw(std::uint64_t seed, std::uint64_t cases, bool line);

    double seconds_;
    bool terminal_;
    std::chrono::steady_clock::time_point started_;
    std::chrono::steady_clock::time_point last_draw_;
    int tenths_reported_ = 0;
    std::uint64_t seed_ = 0;
    std::uint64_t cases_ = 0;
    std::size_t buckets_ = 0;
};

}  // namespace moq::runner
