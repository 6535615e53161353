// The argument parsing the benchmarks share, so their usage errors read and exit alike:
// a bad argument is one line on stderr and exit status 2.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "sim/seed_range.hpp"

namespace moq::bench {

// One option as given: "--flag value" or "--flag=value".
struct Flag {
    std::string_view name;
    std::string_view value;
};

class Args {
public:
    // The name is fixed by the caller, not argv[0], so messages do not depend on the path.
    explicit constexpr Args(const char* program) : program_(program) {}

    [[noreturn]] void bad_argument(const char* what, std::string_view value) const {
        std::fprintf(stderr, "%s: %s '%.*s' (see --help)\n", program_, what, static_cast<int>(value.size()),
                     value.data());
        std::exit(2);
    }

    // The whole of value must be a decimal in [min, max]: "12x" or "-1" is a bad argument.
    [[nodiscard]] std::uint64_t parse_count(std::string_view value, std::uint64_t min, std::uint64_t max,
                                            const char* what) const {
        const auto number = sim::parse_whole_number(value);
        if (!number || *number < min || *number > max) bad_argument(what, value);
        return *number;
    }

    // Splits argv[i]; a value given as the next word moves i past it. A flag with no value
    // left, or a word that is no flag, is a bad argument.
    [[nodiscard]] Flag split_flag(int argc, char** argv, int& i) const {
        std::string_view arg = argv[i];
        std::string_view value;
        if (const auto equals = arg.find('='); equals != std::string_view::npos) {
            value = arg.substr(equals + 1);
            arg = arg.substr(0, equals);
        } else if (arg.starts_with("--") && i + 1 < argc) {
            value = argv[++i];
        } else if (arg.starts_with("--")) {
            bad_argument("missing value for", arg);
        } else {
            bad_argument("unexpected argument", arg);
        }
        return {arg, value};
    }

private:
    const char* program_;
};

}  // namespace moq::bench
