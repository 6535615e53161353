#include "runner/output.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "runner/args.hpp"

namespace moq::runner {

namespace {

std::filesystem::path folder_of(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::filesystem::path(".") : parent;
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// Writes all of `text` to `fd`; false with errno set on a failure.
bool write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t written = ::write(fd, text.data(), text.size());
        if (written < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        text.remove_prefix(static_cast<std::size_t>(written));
    }
    return true;
}

}  // namespace

std::string read_input_file(const std::string& path) {
    const std::string cannot = "cannot read " + quoted(path) + ": ";
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (!std::filesystem::exists(status)) throw UsageError(cannot + "no such file");
    if (std::filesystem::is_directory(status)) throw UsageError(cannot + "it is a folder");
    if (!std::filesystem::is_regular_file(status)) throw UsageError(cannot + "not a regular file");
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (error) throw UsageError(cannot + error.message());
    if (size > max_input_bytes)
        throw UsageError(cannot + std::to_string(size) + " bytes, more than the " + std::to_string(max_input_bytes) +
                         " an input may have");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError(cannot + std::generic_category().message(errno));
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (in.gcount() != static_cast<std::streamsize>(size)) throw UsageError(cannot + "it changed while being read");
    return text;
}

void check_writable(const std::string& path, std::string_view what) {
    const std::string cannot = std::string(what) + ": cannot write " + quoted(path) + ": ";
    if (path.empty()) throw UsageError(std::string(what) + " needs a file name, not ''");
    const std::filesystem::path target(path);
    const std::string name = target.filename().string();
    std::error_code error;
    const auto status = std::filesystem::status(target, error);
    if (std::filesystem::is_directory(status)) throw UsageError(cannot + "it is a folder");
    if (name.empty() || name == "." || name == "..") throw UsageError(cannot + "it names a folder, not a file");
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        throw UsageError(cannot + "it exists and is not a regular file");
    const std::filesystem::path folder = folder_of(path);
    if (!std::filesystem::is_directory(folder, error))
        throw UsageError(cannot + "no folder " + quoted(folder.string()));
    // Create and remove a probe file: permission bits say nothing for root, and some
    // folders (such as /proc) refuse any new file.
    const std::filesystem::path probe = folder / (".moqsim-probe-" + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        throw UsageError(cannot + "its folder takes no new file (" + std::generic_category().message(errno) + ")");
    ::close(fd);
    ::unlink(probe.c_str());
}

void check_different_files(std::string_view first_flag, const std::string& first, std::string_view second_flag,
                           const std::string& second) {
    std::error_code error;
    const auto first_file = std::filesystem::absolute(first, error).lexically_normal();
    const auto second_file = std::filesystem::absolute(second, error).lexically_normal();
    if (first_file == second_file)
        throw UsageError(std::string(first_flag) + " and " + std::string(second_flag) + " name the same file " +
                         quoted(second));
}

void write_atomically(const std::string& path, std::string_view text) {
    check_writable(path);
    const std::filesystem::path target(path);
    const std::filesystem::path temporary =
        folder_of(path) / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()));
    const auto fail = [&](const char* step) {
        const std::string reason = std::generic_category().message(errno);
        ::unlink(temporary.c_str());
        throw UsageError("cannot write " + quoted(path) + ": " + step + ": " + reason);
    };
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) fail("creating its temporary file");
    if (!write_all(fd, text) || ::fsync(fd) != 0) {
        const int saved = errno;
        ::close(fd);
        errno = saved;
        fail("writing");
    }
    if (::close(fd) != 0) fail("closing");
    if (::rename(temporary.c_str(), target.c_str()) != 0) fail("renaming its temporary file");
}

namespace {

// "#########....................." for a fraction of the way.
std::string bar(double fraction) {
    constexpr int width = 30;
    const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * width);
    std::string text(static_cast<std::size_t>(filled), '#');
    text.append(static_cast<std::size_t>(width - filled), '.');
    return text;
}

// ", 2 buckets": the failures' buckets so far.
std::string buckets_text(std::size_t buckets) {
    return ", " + std::to_string(buckets) + (buckets == 1 ? " bucket" : " buckets");
}

}  // namespace

Progress::Progress(std::string label, std::uint64_t total)
    : label_(std::move(label)),
      total_(total),
      terminal_(::isatty(STDERR_FILENO) == 1),
      started_(std::chrono::steady_clock::now()),
      last_draw_(started_) {}

void Progress::advance(std::uint64_t done, std::size_t buckets) {
    buckets_ = buckets;
    const auto now = std::chrono::steady_clock::now();
    if (terminal_) {
        if (now - last_draw_ >= std::chrono::milliseconds(100)) {
            last_draw_ = now;
            draw(done, false);
        }
        return;
    }
    // Plain output: a line at every tenth of the way.
    if (total_ >= 10 && done * 10 / total_ > last_reported_ * 10 / total_) {
        last_reported_ = done;
        draw(done, true);
    }
}

void Progress::finish() {
    if (terminal_) {
        draw(total_, false);
        std::fputc('\n', stderr);
    }
}

void Progress::draw(std::uint64_t done, bool line) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
    const double fraction = total_ == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total_);
    const double left = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
    if (line) {
        std::fprintf(stderr, "%s: %llu/%llu cases (%.0f%%), %.0f cases/s%s\n", label_.c_str(),
                     static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), fraction * 100,
                     rate, buckets_text(buckets_).c_str());
        return;
    }
    std::fprintf(stderr, "\r%s [%s] %llu/%llu %.0f cases/s, %.0f s left%s  ", label_.c_str(), bar(fraction).c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), rate, left,
                 buckets_text(buckets_).c_str());
    std::fflush(stderr);
}

TimedProgress::TimedProgress(std::uint64_t seconds)
    : seconds_(static_cast<double>(seconds)),
      terminal_(::isatty(STDERR_FILENO) == 1),
      started_(std::chrono::steady_clock::now()),
      last_draw_(started_) {}

void TimedProgress::advance(std::uint64_t seed, std::uint64_t cases, std::size_t buckets) {
    seed_ = seed;
    cases_ = cases;
    buckets_ = buckets;
    const auto now = std::chrono::steady_clock::now();
    if (terminal_) {
        if (now - last_draw_ >= std::chrono::milliseconds(100)) {
            last_draw_ = now;
            draw(seed, cases, false);
        }
        return;
    }
    const int tenths = static_cast<int>(std::chrono::duration<double>(now - started_).count() * 10 / seconds_);
    if (tenths > tenths_reported_ && tenths < 10) {
        tenths_reported_ = tenths;
        draw(seed, cases, true);
    }
}

void TimedProgress::finish() {
    if (terminal_) {
        draw(seed_, cases_, false);
        std::fputc('\n', stderr);
    }
}

void TimedProgress::draw(std::uint64_t seed, std::uint64_t cases, bool line) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const double rate = spent > 0 ? static_cast<double>(cases) / spent : 0.0;
    if (line) {
        std::fprintf(stderr, "sweep: seed %llu, %llu cases (%.0f%% of the time), %.0f cases/s%s\n",
                     static_cast<unsigned long long>(seed), static_cast<unsigned long long>(cases),
                     spent * 100 / seconds_, rate, buckets_text(buckets_).c_str());
        return;
    }
    std::fprintf(stderr, "\rsweep [%s] seed %llu, %llu cases, %.0f cases/s, %.0f s left%s  ",
                 bar(spent / seconds_).c_str(), static_cast<unsigned long long>(seed),
                 static_cast<unsigned long long>(cases), rate, std::max(0.0, seconds_ - spent),
                 buckets_text(buckets_).c_str());
    std::fflush(stderr);
}

}  // namespace moq::runner
