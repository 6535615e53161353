// What moqsim writes: files replaced atomically (a failed run leaves no half file), and
// a progress bar on a terminal (plain lines otherwise).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace moq::cli {

// Fails early (UsageError) if `path` could not be written: its folder is missing or not
// writable. Called before a long run, so a bad --json costs nothing.
void check_writable(const std::string& path);
// Writes `text` to a temporary file beside `path`, then renames it over `path`.
void write_atomically(const std::string& path, std::string_view text);

class Progress {
public:
    Progress(std::string label, std::uint64_t total);
    void advance(std::uint64_t done);
    void finish();

private:
    void draw(std::uint64_t done, bool last);

    std::string label_;
    std::uint64_t total_;
    bool terminal_;
    std::chrono::steady_clock::time_point started_;
    std::chrono::steady_clock::time_point last_draw_;
    std::uint64_t last_reported_ = 0;
};

}  // namespace moq::cli
