// moqsim: seeded property sweeps of the real core in the simulator, exact replay of a
// failing case, shrinking, the corpus, shard merging, and the list of what there is.
#include <cstdio>
#include <exception>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace {

constexpr const char* usage_text =
    "usage: moqsim COMMAND [options]\n"
    "\n"
    "  sweep   [--suite NAME[,NAME]|all] [--seeds A-B] [--cases N] [--strategy fifo|random|pct]\n"
    "          [--mix fixed|swarm] [--mutant NAME] [--json FILE] [--site-hits FILE] [--keep-going] [--shrink]\n"
    "          every case of the suites for every seed (defaults: all, MOQ_SEED or 1,\n"
    "          MOQ_<SUITE>_CASES or the suite's own, random, the fixed mix; swarm: each case\n"
    "          draws which operation kinds it uses); shards from GTEST_TOTAL_SHARDS /\n"
    "          GTEST_SHARD_INDEX or TEST_TOTAL_SHARDS / TEST_SHARD_INDEX; --site-hits (a mutants\n"
    "          build) writes how often each suite evaluated each mutation site\n"
    "  replay  --suite NAME --seed N --case N [--mix M] [--strategy S] [--mutant NAME]   or   replay FILE.json\n"
    "          [--shrink] [--save corpus/NAME.json] [--trace FILE]\n"
    "  corpus  [FILE|FOLDER ...] [--mutant NAME]   replays every saved case (default: corpus/);\n"
    "          each must pass\n"
    "  merge   RESULT.json ... [--json FILE]   the results of several shards as one\n"
    "  list    [--suites] [--strategies] [--sites]\n"
    "\n"
    "Exit status: 0 passed, 1 a case failed, 2 bad input.\n";

}  // namespace

int main(int argc, char** argv) {
    const moq::cli::Program program{argc > 0 ? argv[0] : "moqsim"};
    if (argc < 2) {
        std::fputs("moqsim: no command (moqsim --help lists them)\n", stderr);
        return 2;
    }
    const std::string_view command = argv[1];
    try {
        if (command == "sweep") return moq::cli::sweep(program, argc, argv);
        if (command == "replay") return moq::cli::replay(program, argc, argv);
        if (command == "corpus") return moq::cli::corpus(program, argc, argv);
        if (command == "merge") return moq::cli::merge(program, argc, argv);
        if (command == "list") return moq::cli::list(program, argc, argv);
        if (command == "--help" || command == "help" || command == "-h") {
            std::fputs(usage_text, stdout);
            return 0;
        }
        throw moq::cli::UsageError("unknown command '" + std::string(command) + "' (moqsim --help)");
    } catch (const moq::cli::UsageError& error) {
        std::fprintf(stderr, "moqsim: %s\n", error.what());
        return 2;
    } catch (const nlohmann::json::exception& error) {
        // A JSON input whose fields have the wrong shape.
        std::fprintf(stderr, "moqsim: malformed JSON input (%s)\n", error.what());
        return 2;
    }
}
