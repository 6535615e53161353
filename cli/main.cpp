// moqsim: seeded property sweeps of the real core in the simulator, exact replay of a
// failing case, shrinking, exploring, the corpus, shard merging, and the list of what there
// is. It parses its arguments (cli/command_line.hpp), calls the runner and reports how it
// ended: one line and exit status 2 for bad input, 3 for an internal error.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command_line.hpp"
#include "runner/args.hpp"
#include "runner/watchdog.hpp"

namespace {

constexpr int bad_input_status = 2;
constexpr int internal_error_status = 3;

// Prints "moqsim: MESSAGE" as one line: a control character a user's value carried into
// the message (a newline in a suite name) is shown escaped, not acted on.
int fail(std::string_view message, int status) {
    std::string line = "moqsim: ";
    for (const char c : message) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            line += escaped;
        } else {
            line += c;
        }
    }
    line += '\n';
    std::fputs(line.c_str(), stderr);
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    moq::runner::Program program{argc > 0 ? argv[0] : "moqsim", ""};
    for (int i = 0; i < argc; ++i) program.command_line += (i == 0 ? "" : " ") + std::string(argv[i]);
    // The watchdog's descriptions point at `program`: it stops before that goes.
    struct StopWatchdog {
        StopWatchdog() = default;
        StopWatchdog(const StopWatchdog&) = delete;
        StopWatchdog& operator=(const StopWatchdog&) = delete;
        ~StopWatchdog() { moq::runner::watchdog::stop(); }
    } const stop_watchdog;
    try {
        moq::cli::CommandLine command_line;
        return command_line.run(program, std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
    } catch (const moq::runner::UsageError& error) {
        return fail(error.what(), bad_input_status);
    } catch (const nlohmann::json::exception& error) {
        // A JSON input whose fields have the wrong shape.
        return fail(std::string("malformed JSON input (") + error.what() + ")", bad_input_status);
    } catch (const std::filesystem::filesystem_error& error) {
        // A file or folder named on the command line that cannot be read or listed.
        return fail(error.what(), bad_input_status);
    } catch (const std::bad_alloc&) {
        // Every input size is checked before anything is sized from it, so this is ours.
        return fail("internal error: out of memory", internal_error_status);
    } catch (const std::exception& error) {
        return fail(std::string("internal error: ") + error.what(), internal_error_status);
    } catch (...) {
        return fail("internal error: an unknown exception", internal_error_status);
    }
}
