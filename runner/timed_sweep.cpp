#include "runner/timed_sweep.hpp"

#include <algorithm>
#include <cmath>

#include "runner/buckets.hpp"
#include "runner/sweep_result.hpp"
#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "sim/seed_range.hpp"
#include "sim/strategy.hpp"

namespace moq::runner {

namespace {

bool is_whole(const nlohmann::json& value) { return value.is_number_unsigned(); }

std::uint64_t whole(const nlohmann::json& value) { return value.get<std::uint64_t>(); }

// The first suite that failed, as "suite S seed N case M (its replay command)".
std::string first_failure(const nlohmann::json& result) {
    for (const nlohmann::json& suite : result["suites"])
        for (const nlohmann::json& failure : suite["failures"])
            if (failure.is_object() && failure.contains("replay"))
                return suite["suite"].get<std::string>() + " " + failure["replay"].dump();
    return "a case";
}

// `runs`: one after another from `first` to `last`, each with a time.
std::string runs_problem(const nlohmann::json& runs, std::uint64_t first, std::uint64_t last) {
    if (!runs.is_array() || runs.empty()) return "timed.runs: missing, empty or not a list";
    std::uint64_t next = first;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::string where = "timed.runs[" + std::to_string(i) + "]";
        const nlohmann::json& run = runs[i];
        const nlohmann::json seeds = run.is_object() ? run.value("seeds", nlohmann::json()) : nlohmann::json();
        if (!seeds.is_array() || seeds.size() != 2 || !is_whole(seeds[0]) || !is_whole(seeds[1]) ||
            whole(seeds[0]) != next || whole(seeds[1]) < whole(seeds[0]) || whole(seeds[1]) > last)
            return where + ".seeds: " + seeds.dump() + " does not start at seed " + std::to_string(next) +
                   " and end by seed " + std::to_string(last);
        const nlohmann::json seconds = run.value("seconds", nlohmann::json());
        if (!seconds.is_number() || !(seconds.get<double>() >= 0) || !std::isfinite(seconds.get<double>()))
            return where + ".seconds: " + seconds.dump() + " is not a duration";
        next = whole(seeds[1]) + 1;
    }
    if (next != last + 1) return "timed.runs: they end at seed " + std::to_string(next - 1) + ", not at seeds' last";
    return {};
}

}  // namespace

std::string_view timed_stop_name(TimedStop stop) {
    switch (stop) {
        case TimedStop::time: return "time";
        case TimedStop::failure: return "failure";
        case TimedStop::finished: return "finished";
    }
    return "time";
}

nlohmann::json timed_section(std::uint64_t duration_seconds, std::uint64_t until_seed, TimedStop stop,
                             std::uint64_t last_seed, nlohmann::json runs, bool keep_going) {
    return {{"duration_seconds", duration_seconds},
            {"until_seed", until_seed},
            {"stopped", timed_stop_name(stop)},
            {"next_seed", stop == TimedStop::time ? nlohmann::json(last_seed + 1) : nlohmann::json()},
            {"keep_going", keep_going},
            {"runs", std::move(runs)}};
}

nlohmann::json timed_run(std::uint64_t first_seed, std::uint64_t last_seed, double seconds) {
    return {{"seeds", {first_seed, last_seed}}, {"seconds", seconds}};
}

std::string timed_problem(const nlohmann::json& result) {
    const nlohmann::json& timed = result["timed"];
    if (!timed.is_object()) return "timed: not an object";
    if (result["shard"]["total"] != 1) return "timed: a timed sweep is one shard of 1, not " + result["shard"].dump();
    const std::uint64_t first = whole(result["seeds"][0]);
    const std::uint64_t last = whole(result["seeds"][1]);
    const nlohmann::json duration = timed.value("duration_seconds", nlohmann::json());
    if (!is_whole(duration) || whole(duration) == 0 || whole(duration) > max_duration_seconds)
        return "timed.duration_seconds: " + duration.dump() + " is not 1 to " + std::to_string(max_duration_seconds);
    const nlohmann::json until = timed.value("until_seed", nlohmann::json());
    if (!is_whole(until) || whole(until) < last || whole(until) - first >= sim::max_seed_range)
        return "timed.until_seed: " + until.dump() + " is not a seed from seeds' last to " +
               std::to_string(sim::max_seed_range) + " seeds from seeds' first";
    const nlohmann::json stopped = timed.value("stopped", nlohmann::json());
    const auto stop = [&](TimedStop kind) { return stopped == std::string(timed_stop_name(kind)); };
    if (!stop(TimedStop::time) && !stop(TimedStop::failure) && !stop(TimedStop::finished))
        return "timed.stopped: " + stopped.dump() + " is not \"time\", \"failure\" or \"finished\"";
    const nlohmann::json next = timed.value("next_seed", nlohmann::json());
    if (stop(TimedStop::time) && (whole(until) == last || next != last + 1))
        return "timed.next_seed: " + next.dump() + " is not the seed after seeds' last " + std::to_string(last) +
               " (and at most until_seed)";
    if (!stop(TimedStop::time) && !next.is_null())
        return "timed.next_seed: " + next.dump() + " after a sweep that ended";
    if (stop(TimedStop::finished) && whole(until) != last)
        return "timed.stopped: \"finished\" before until_seed " + until.dump();
    // A result written before --keep-going was allowed here has no "keep_going": it stopped at a failure.
    const nlohmann::json keep_going = timed.value("keep_going", nlohmann::json(false));
    if (!keep_going.is_boolean()) return "timed.keep_going: " + keep_going.dump() + " is not true or false";
    if (keep_going == true && stop(TimedStop::failure)) return "timed.stopped: \"failure\" in a sweep that keeps going";
    bool failed = false;
    for (const nlohmann::json& suite : result["suites"]) {
        failed = failed || whole(suite["failed"]) != 0;
        // Every case of every seed ran, unless the sweep stopped in the middle of one.
        if (!stop(TimedStop::failure) && whole(suite["run"]) != (last - first + 1) * whole(suite["cases"]))
            return "timed: suite " + suite["suite"].dump() + " ran " + suite["run"].dump() +
                   " cases, not every case of seeds " + result["seeds"].dump();
    }
    if (keep_going == false && failed != stop(TimedStop::failure))
        return "timed.stopped: " + stopped.dump() + (failed ? " but a case failed" : " but no case failed");
    return runs_problem(timed.value("runs", nlohmann::json()), first, last);
}

void resume_options(SweepOptions& options, const nlohmann::json& result, const std::string& label) {
    if (!result.contains("timed"))
        throw UsageError(label +
                         ": not a timed sweep's result (moqsim sweep --duration writes one): nothing to resume");
    const nlohmann::json& timed = result["timed"];
    if (timed["stopped"] == std::string(timed_stop_name(TimedStop::failure)))
        throw UsageError(label + ": the sweep stopped at a failure, which a resumed sweep would not see (" +
                         first_failure(result) + "): fix or replay it; nothing to resume");
    if (timed["stopped"] == std::string(timed_stop_name(TimedStop::finished)))
        throw UsageError(label + ": the sweep already ran every seed up to " + timed["until_seed"].dump() +
                         ": nothing to resume");
    std::vector<const properties::Suite*> suites;
    std::vector<std::uint64_t> cases;
    for (const nlohmann::json& suite : result["suites"]) {
        suites.push_back(properties::find_suite(suite["suite"].get<std::string>()));
        cases.push_back(whole(suite["cases"]));
    }
    const auto strategy = *sim::parse_strategy(result["strategy"].get<std::string>());
    const auto mix = *properties::parse_mix(result.value("mix", std::string("fixed")));
    const std::optional<std::string> mutant =
        result["mutant"].is_null() ? std::nullopt : std::optional<std::string>(result["mutant"].get<std::string>());
    const auto named = [&](const char* setting) {
        return std::find(options.named.begin(), options.named.end(), setting) != options.named.end();
    };
    const auto conflict = [&](const std::string& flag, const std::string& given, const std::string& recorded) {
        return UsageError(flag + " " + given + " contradicts " + label + ", which continues a sweep with " + recorded +
                          ": drop " + flag);
    };
    const auto suite_names = [](const std::vector<const properties::Suite*>& list) {
        std::string text;
        for (const properties::Suite* suite : list) text += (text.empty() ? "" : ",") + std::string(suite->name());
        return text;
    };
    if (named("suite") && options.suites != suites)
        throw conflict("--suite", suite_names(options.suites), suite_names(suites));
    if (named("cases") && options.cases != cases) {
        std::string recorded;
        for (std::size_t i = 0; i < suites.size(); ++i)
            recorded += (i ? ", " : "") + std::to_string(cases[i]) + " cases of " + std::string(suites[i]->name());
        throw conflict("--cases", std::to_string(options.cases.front()), recorded);
    }
    if (named("strategy") && options.strategy != strategy)
        throw conflict("--strategy", std::string(sim::strategy_name(options.strategy)),
                       "strategy " + std::string(sim::strategy_name(strategy)));
    if (named("mix") && options.mix != mix)
        throw conflict("--mix", std::string(properties::mix_name(options.mix)),
                       "mix " + std::string(properties::mix_name(mix)));
    if (named("mutant") && options.mutant != mutant)
        throw conflict("--mutant", *options.mutant, mutant ? "mutant " + *mutant : "no mutant");
    options.suites = suites;
    options.cases = cases;
    options.strategy = strategy;
    options.mix = mix;
    options.mutant = mutant;
    options.seeds = SeedRange{whole(timed["next_seed"]), whole(timed["until_seed"])};
    if (!options.duration_seconds) options.duration_seconds = whole(timed["duration_seconds"]);
    options.keep_going = options.keep_going || timed.value("keep_going", false);
}

nlohmann::json continued_result(const nlohmann::json& earlier, nlohmann::json latest) {
    nlohmann::json joined = earlier;
    joined["seeds"][1] = latest["seeds"][1];
    for (std::size_t i = 0; i < joined["suites"].size(); ++i)
        add_suite_result(joined["suites"][i], latest["suites"][i]);
    nlohmann::json runs = earlier["timed"]["runs"];
    for (nlohmann::json& run : latest["timed"]["runs"]) runs.push_back(std::move(run));
    joined["timed"] = std::move(latest["timed"]);
    joined["timed"]["runs"] = std::move(runs);
    nlohmann::json buckets = earlier.value("buckets", nlohmann::json::array());
    join_buckets(buckets, latest.value("buckets", nlohmann::json::array()));
    joined["buckets"] = std::move(buckets);
    return joined;
}

}  // namespace moq::runner
