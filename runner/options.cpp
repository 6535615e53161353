#include "runner/options.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "properties/small_scope.hpp"
#include "runner/watchdog.hpp"

namespace moq::runner {

namespace {

std::vector<const properties::Suite*> chosen_suites(const std::string& names) {
    if (names == "all") return properties::suites();
    std::vector<const properties::Suite*> chosen;
    std::stringstream list(names);
    std::string name;
    while (std::getline(list, name, ',')) {
        const properties::Suite* suite = properties::find_suite(name);
        if (!suite) throw UsageError("unknown suite '" + name + "' (moqsim list names them)");
        // A suite twice would be run twice and recorded twice, a result merge refuses.
        if (std::find(chosen.begin(), chosen.end(), suite) != chosen.end())
            throw UsageError("--suite names " + name + " twice");
        chosen.push_back(suite);
    }
    if (chosen.empty()) throw UsageError("--suite names no suite");
    return chosen;
}

// MOQ_RESUME_CASES for "resume".
std::string cases_variable(std::string_view suite) {
    std::string name = "MOQ_";
    for (char c : suite) name.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    return name + "_CASES";
}

// --cases or MOQ_<SUITE>_CASES: at least one case, at most max_cases a seed.
std::uint64_t parse_case_count(std::string_view text, std::string_view what) {
    const std::uint64_t cases = parse_count(text, what, max_cases);
    if (cases == 0) throw UsageError(std::string(what) + " must be at least 1, not '" + std::string(text) + "'");
    return cases;
}

void refuse_positional(const Given& flags, std::string_view command) {
    if (!flags.positional().empty())
        throw UsageError(std::string(command) + " takes no argument '" + flags.positional().front() + "'");
}

// What a timed sweep cannot be combined with.
void check_timed_options(const SweepOptions& options, const Given& flags) {
    const char* const timed = options.resume_path ? "--resume" : "--duration";
    if (options.resume_path && flags.value("seeds"))
        throw UsageError("--resume continues from its file's next seed: drop --seeds");
    if (options.site_hits_path) throw UsageError(std::string(timed) + " does not count site hits: drop --site-hits");
    if (options.shard.total > 1)
        throw UsageError(std::string(timed) +
                         " runs seeds until its time is up, which shards would each stop at a different seed: "
                         "shard a fixed seed range instead (shard " +
                         std::to_string(options.shard.index) + " of " + std::to_string(options.shard.total) +
                         " is set)");
}

// What a sweep of the small cases (--ops) cannot be combined with: its cases are the
// scope's, not drawn from a mix.
void check_small_sweep_options(const Given& flags) {
    for (const char* setting :
         {"cases", "mix", "duration", "resume", "site-hits", "probes", "known-buckets", "recheck", "shrink-seconds"})
        if (flags.value(setting)) throw UsageError(std::string("--ops runs every small case once: drop --") + setting);
    if (flags.has("shrink")) throw UsageError("--ops runs small cases already: drop --shrink");
}

// --case-timeout D (or off): the wall time a run may take before it is reported as a hang.
std::optional<std::uint64_t> parse_case_timeout(const Given& flags) {
    const std::optional<std::string> text = flags.value("case-timeout");
    if (!text) return watchdog::default_limit_seconds;
    if (*text == "off") return std::nullopt;
    try {
        return parse_duration(*text, "--case-timeout");
    } catch (const UsageError& error) {
        throw UsageError(std::string(error.what()) + ", or off");
    }
}

}  // namespace

int parse_small_ops(std::string_view text) {
    const std::uint64_t ops = parse_count(text, "--ops", properties::max_small_ops);
    if (ops == 0) throw UsageError("--ops must be 1 to " + std::to_string(properties::max_small_ops) + ", not 0");
    return static_cast<int>(ops);
}

SweepOptions parse_sweep_options(const Given& flags, const Environment& variables) {
    refuse_positional(flags, "sweep");
    SweepOptions options;
    options.case_timeout_seconds = parse_case_timeout(flags);
    if (auto text = flags.value("ops")) {
        check_small_sweep_options(flags);
        options.ops = parse_small_ops(*text);
    }
    options.resume_path = flags.value("resume");
    if (auto text = flags.value("duration")) options.duration_seconds = parse_duration(*text, "--duration");
    // A resumed sweep's seeds and counts are its file's: the environment's defaults do not apply.
    const Environment defaults =
        options.resume_path ? Environment([](const std::string&) { return std::optional<std::string>(); }) : variables;
    for (const char* setting : {"suite", "cases", "strategy", "mix", "mutant"})
        if (flags.value(setting)) options.named.emplace_back(setting);
    options.suites = chosen_suites(flags.value("suite").value_or("all"));
    if (auto text = flags.value("seeds")) {
        options.seeds = parse_seed_range(*text, "--seeds");
    } else if (auto variable = defaults("MOQ_SEED")) {
        options.seeds = parse_seed_range(*variable, "MOQ_SEED");
    } else if (options.duration_seconds) {
        options.seeds = SeedRange{1, sim::max_seed_range};
    }
    options.strategy = parse_strategy_name(flags.value("strategy").value_or("random"));
    options.mix =
        parse_mix_name(flags.value("mix").value_or(std::string(properties::mix_name(properties::sweep_default_mix))));
    options.mutant = flags.value("mutant");
    options.json_path = flags.value("json");
    if (!options.json_path) options.json_path = options.resume_path;
    options.site_hits_path = flags.value("site-hits");
    options.probes_path = flags.value("probes");
    options.shard = shard_from_environment(variables);
    options.keep_going = flags.has("keep-going");
    options.shrink = flags.has("shrink");
    if (auto text = flags.value("max-failures")) options.max_failures = parse_count(*text, "--max-failures", max_cases);
    if (auto text = flags.value("shrink-seconds"))
        options.shrink_seconds = parse_count(*text, "--shrink-seconds", max_shrink_seconds);
    if (auto text = flags.value("recheck")) options.recheck = parse_count(*text, "--recheck", max_cases);
    options.known_buckets_path = flags.value("known-buckets");
    if (options.duration_seconds || options.resume_path) check_timed_options(options, flags);
    const std::optional<std::string> cases = flags.value("cases");
    for (const properties::Suite* suite : options.suites) {
        std::uint64_t count = suite->default_cases();
        if (cases) {
            count = parse_case_count(*cases, "--cases");
        } else if (auto variable = defaults(cases_variable(suite->name()))) {
            count = parse_case_count(*variable, cases_variable(suite->name()));
        }
        options.cases.push_back(count);
    }
    return options;
}

nlohmann::json sweep_settings(const SweepOptions& options) {
    return {{"seeds", {options.seeds.first, options.seeds.last}},
            {"strategy", sim::strategy_name(options.strategy)},
            {"mix", properties::mix_name(options.mix)},
            {"mutant", options.mutant ? nlohmann::json(*options.mutant) : nlohmann::json()},
            {"shard", {{"index", options.shard.index}, {"total", options.shard.total}}}};
}

TraceFormat parse_trace_format(std::string_view text) {
    if (text == "text") return TraceFormat::text;
    if (text == "jsonl") return TraceFormat::jsonl;
    throw UsageError("unknown trace format '" + std::string(text) + "' (text or jsonl)");
}

TraceFormat trace_format_for(const std::optional<TraceFormat>& asked, const std::string& path,
                             bool stdout_is_terminal) {
    if (asked) return *asked;
    return path == "-" && stdout_is_terminal ? TraceFormat::text : TraceFormat::jsonl;
}

TraceDiffOptions parse_trace_diff_options(const Given& flags) {
    if (flags.positional().size() != 2)
        throw UsageError("trace-diff takes two traces (moqsim trace-diff A.jsonl B.jsonl), not " +
                         std::to_string(flags.positional().size()));
    return TraceDiffOptions{flags.positional()[0], flags.positional()[1]};
}

ReplayOptions parse_replay_options(const Given& flags) {
    ReplayOptions options;
    options.case_timeout_seconds = parse_case_timeout(flags);
    options.mutant = flags.value("mutant");
    options.trace_path = flags.value("trace");
    if (auto format = flags.value("trace-format")) {
        if (!options.trace_path)
            throw UsageError("--trace-format needs --trace FILE (or --trace - for standard output)");
        options.trace_format = parse_trace_format(*format);
    }
    options.save_path = flags.value("save");
    options.timeline_path = flags.value("timeline");
    options.shrink = flags.has("shrink");
    if (flags.positional().size() == 1) {
        if (flags.value("suite") || flags.value("seed") || flags.value("case") || flags.value("mix") ||
            flags.value("ops"))
            throw UsageError("replay takes a case file or --suite/--seed/--case/--mix/--ops, not both");
        if (flags.value("strategy")) throw UsageError("a case file replays along its decisions: drop --strategy");
        options.file = flags.positional().front();
    } else if (flags.positional().empty()) {
        const auto name = flags.value("suite");
        if (!name) throw UsageError("replay needs --suite, --seed and --case (or a case file)");
        options.suite = parse_suite_name(*name);
        const auto seed_text = flags.value("seed");
        const auto case_text = flags.value("case");
        if (auto ops = flags.value("ops")) {
            // A small case: its seed picks the schedule, 1 as a sweep's unless given.
            if (flags.value("mix")) throw UsageError("a small case (--ops) is drawn from no mix: drop --mix");
            options.ops = parse_small_ops(*ops);
            if (!case_text) throw UsageError("replay needs --case with --suite and --ops");
            options.seed = seed_text ? parse_count(*seed_text, "--seed", UINT64_MAX) : 1;
        } else if (!seed_text || !case_text) {
            throw UsageError("replay needs --seed and --case with --suite");
        } else {
            options.seed = parse_count(*seed_text, "--seed", UINT64_MAX);
        }
        options.index = parse_count(*case_text, "--case", UINT64_MAX);
        options.mix = parse_mix_name(flags.value("mix").value_or("fixed"));
    } else {
        throw UsageError("replay takes at most one case file");
    }
    if (auto text = flags.value("strategy")) options.strategy = parse_strategy_name(*text);
    return options;
}

const properties::Suite* parse_suite_name(const std::string& name) {
    const properties::Suite* suite = properties::find_suite(name);
    if (!suite) throw UsageError("unknown suite '" + name + "' (moqsim list names them)");
    return suite;
}

ExploreOptions parse_explore_options(const Given& flags, const Environment& variables) {
    if (!flags.positional().empty()) throw UsageError("explore takes no file but --case FILE");
    ExploreOptions options;
    options.case_timeout_seconds = parse_case_timeout(flags);
    const auto name = flags.value("suite");
    const auto case_text = flags.value("case");
    // A case file names its suite; --suite may name it again.
    if (!name && (!case_text || flags.value("seed") || flags.value("ops")))
        throw UsageError("explore needs --case FILE, or --suite with --seed N --case I or --ops N");
    if (name) options.suite = parse_suite_name(*name);
    if (const auto ops = flags.value("ops")) {
        if (case_text || flags.value("seed") || flags.value("mix"))
            throw UsageError("explore --ops N explores every small case: drop --case, --seed and --mix");
        options.ops = parse_small_ops(*ops);
    } else if (!case_text) {
        throw UsageError("explore needs --case (a file, or an index with --seed), or --ops N");
    } else if (const auto seed_text = flags.value("seed")) {
        options.seed = parse_count(*seed_text, "--seed", UINT64_MAX);
        options.index = parse_count(*case_text, "--case", UINT64_MAX);
        options.mix = parse_mix_name(flags.value("mix").value_or("fixed"));
    } else {
        if (flags.value("mix")) throw UsageError("--mix goes with --seed and --case I");
        options.case_file = *case_text;
    }
    if (const auto bound = flags.value("bound"))
        options.bound = static_cast<std::uint32_t>(parse_count(*bound, "--bound", max_bound));
    if (const auto budget = flags.value("budget")) options.budget_seconds = parse_duration(*budget, "--budget");
    options.sleep_sets = !flags.has("no-sleep-sets");
    options.state_caching = !flags.has("no-state-caching");
    options.keep_going = flags.has("keep-going");
    options.json = flags.has("json");
    options.mutant = flags.value("mutant");
    if (const auto failure = flags.value("failure")) options.failure_path = *failure;
    if (const auto depth = flags.value("split-depth")) {
        if (options.ops) throw UsageError("--split-depth splits one case's tree: --ops shards split the small cases");
        options.split_depth = static_cast<std::uint32_t>(parse_count(*depth, "--split-depth", max_split_depth));
    }
    if (const auto limit = flags.value("max-schedules")) {
        options.max_schedules = parse_count(*limit, "--max-schedules", UINT64_MAX);
        if (*options.max_schedules == 0) throw UsageError("--max-schedules: at least 1");
    }
    options.resume_path = flags.value("resume");
    options.shard = shard_from_environment(variables);
    return options;
}

CorpusOptions parse_corpus_options(const Given& flags) {
    CorpusOptions options;
    options.mutant = flags.value("mutant");
    options.paths = flags.positional().empty() ? std::vector<std::string>{"corpus"} : flags.positional();
    return options;
}

MergeOptions parse_merge_options(const Given& flags) {
    if (flags.positional().empty()) throw UsageError("merge needs the shard results to merge");
    return MergeOptions{flags.positional(), flags.value("json")};
}

ListOptions parse_list_options(const Given& flags) {
    refuse_positional(flags, "list");
    ListOptions options;
    options.suites = flags.has("suites");
    options.strategies = flags.has("strategies");
    options.sites = flags.has("sites");
    options.probes = flags.has("probes");
    options.json = flags.has("json");
    if (flags.has("small-cases")) {
        if (options.suites || options.strategies || options.sites || options.probes)
            throw UsageError(
                "list --small-cases prints the small cases alone: not with --suites, --strategies, --sites or "
                "--probes");
        const auto ops = flags.value("ops");
        if (!ops)
            throw UsageError("list --small-cases needs --ops N (1 to " + std::to_string(properties::max_small_ops) +
                             ")");
        options.small_cases = true;
        options.ops = parse_small_ops(*ops);
        options.small_suites = chosen_suites(flags.value("suite").value_or("all"));
        return options;
    }
    if (flags.value("suite") || flags.value("ops")) throw UsageError("--suite and --ops go with list --small-cases");
    if (options.json && (options.strategies || options.sites || options.probes))
        throw UsageError("list --json prints the suites alone: not with --strategies, --sites or --probes");
    if (options.json) options.suites = true;
    if (!options.suites && !options.strategies && !options.sites && !options.probes) {
        options.suites = options.strategies = options.sites = true;
        options.json = false;
    }
    return options;
}

}  // namespace moq::runner
