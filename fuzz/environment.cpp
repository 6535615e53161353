// The environment moqsim sweep reads (cli/options.hpp, cli/args.hpp): MOQ_SEED,
// MOQ_<SUITE>_CASES, and the shard from GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX or
// TEST_TOTAL_SHARDS / TEST_SHARD_INDEX. The input is lines NAME=VALUE (a value ends at
// a NUL byte, as in a real environment; an empty one is unset). A refusal (UsageError) is
// the answer to a bad value. A finding: any other exception, a crash, a sanitizer
// report, a hang; options that break what the sweep relies on (fuzz/sweep_options.hpp);
// a shard that, its two numbers set again as printed, reads as another.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "cli/args.hpp"
#include "cli/options.hpp"
#include "fuzz/support.hpp"
#include "fuzz/sweep_options.hpp"

using moq::fuzz::require;

namespace {

using Variables = std::map<std::string, std::string>;

moq::cli::Environment lookup(const Variables& variables) {
    return [&variables](const std::string& name) -> std::optional<std::string> {
        const auto found = variables.find(name);
        if (found == variables.end() || found->second.empty()) return std::nullopt;
        return found->second;
    };
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Variables variables;
    for (const std::string& line : moq::fuzz::split(moq::fuzz::as_text(data, size), "\n")) {
        const std::size_t equals = line.find('=');
        if (equals == std::string::npos) continue;
        const std::string value = line.substr(equals + 1);
        variables[line.substr(0, equals)] = value.substr(0, value.find('\0'));
    }
    moq::cli::SweepOptions options;
    try {
        options = moq::cli::parse_sweep_options({}, lookup(variables));
    } catch (const moq::cli::UsageError&) {
        return 0;
    }
    moq::fuzz::check_sweep_options(options);
    const Variables printed{{"GTEST_TOTAL_SHARDS", std::to_string(options.shard.total)},
                            {"GTEST_SHARD_INDEX", std::to_string(options.shard.index)}};
    const moq::cli::Shard again = moq::cli::shard_from_environment(lookup(printed));
    require(again.index == options.shard.index && again.total == options.shard.total,
            "a shard printed back reads as another");
    return 0;
}
