#include "cli/output.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <fcntl.h>
#include <unistd.h>

#include "cli/args.hpp"

namespace moq::cli {

namespace {

std::filesystem::path folder_of(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::filesystem::path(".") : parent;
}

}  // namespace

void check_writable(const std::string& path) {
    const std::filesystem::path folder = folder_of(path);
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error))
        throw UsageError("cannot write " + path + ": no folder " + folder.string());
    if (std::filesystem::is_directory(path, error)) throw UsageError("cannot write " + path + ": it is a folder");
    // Create and remove a probe file: permission bits say nothing for root, and some
    // folders (such as /proc) refuse any new file.
    const std::filesystem::path probe = folder / (".moqsim-probe-" + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) throw UsageError("cannot write " + path + ": the folder takes no new file");
    ::close(fd);
    ::unlink(probe.c_str());
}

void write_atomically(const std::string& path, std::string_view text) {
    check_writable(path);
    const std::filesystem::path target(path);
    const std::filesystem::path temporary =
        folder_of(path) / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()));
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            throw UsageError("cannot write " + path);
        }
    }
    std::error_code error;
    std::filesystem::rename(temporary, target, error);
    if (error) {
        std::filesystem::remove(temporary, error);
        throw UsageError("cannot write " + path + ": " + error.message());
    }
}

Progress::Progress(std::string label, std::uint64_t total)
    : label_(std::move(label)),
      total_(total),
      terminal_(::isatty(STDERR_FILENO) == 1),
      started_(std::chrono::steady_clock::now()),
      last_draw_(started_) {}

void Progress::advance(std::uint64_t done) {
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
        std::fprintf(stderr, "%s: %llu/%llu cases (%.0f%%), %.0f cases/s\n", label_.c_str(),
                     static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), fraction * 100,
                     rate);
        return;
    }
    constexpr int width = 30;
    const int filled = static_cast<int>(fraction * width);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(width - filled), '.');
    std::fprintf(stderr, "\r%s [%s] %llu/%llu %.0f cases/s, %.0f s left  ", label_.c_str(), bar.c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), rate, left);
    std::fflush(stderr);
}

}  // namespace moq::cli
