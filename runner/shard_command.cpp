// moqsim shard: the share of a run this process takes, as the engine that started it says
// (cli/shard.hpp), so that scripts shard with moqsim's rules rather than their own.
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "runner/commands.hpp"
#include "runner/shard.hpp"

namespace moq::runner {

int shard(const Program&, const Given& given) {
    const Given& flags = given;
    if (!flags.positional().empty()) throw UsageError("shard takes no argument '" + flags.positional().front() + "'");
    const Shard found = shard_from_environment(process_environment());
    // The environment is good: this process understood the runner's sharding.
    acknowledge_shard();
    if (flags.has("json")) {
        const nlohmann::json answer{{"index", found.index}, {"total", found.total}, {"variables", shard_variables()}};
        std::printf("%s\n", answer.dump().c_str());
    } else {
        std::printf("shard %llu of %llu\n", static_cast<unsigned long long>(found.index),
                    static_cast<unsigned long long>(found.total));
    }
    return 0;
}

}  // namespace moq::runner
