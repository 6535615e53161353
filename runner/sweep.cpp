// moqsim sweep: every case of every chosen suite for every seed, on this shard; or, timed
// (--duration, --resume), seed after seed until the time is up.
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "properties/suite.hpp"
#include "runner/args.hpp"
#include "runner/bucket_book.hpp"
#include "runner/buckets.hpp"
#include "runner/commands.hpp"
#include "runner/json_input.hpp"
#include "runner/options.hpp"
#include "runner/output.hpp"
#include "runner/probe_hits.hpp"
#include "runner/site_hits.hpp"
#include "runner/small_sweep.hpp"
#include "runner/suite_tally.hpp"
#include "runner/sweep_result.hpp"
#include "runner/timed_sweep.hpp"
#include "runner/watchdog.hpp"
#include "util/mutation.hpp"

namespace moq::runner {

void activate_mutant(const std::string& name) {
    if (!mutation::mutants_enabled())
        throw UsageError(
            "--mutant needs a build with mutants (meson configure -Dmutants=true; scripts/mutate builds one)");
    if (!mutation::set_active_mutant(name)) throw UsageError("unknown mutant '" + name + "' (moqsim list --sites)");
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point started) {
    return std::chrono::duration<double>(Clock::now() - started).count();
}

void print_suite_result(const nlohmann::json& result) {
    std::printf("%s: %llu passed, %llu failed (%llu cases, %.2f s, %.0f cases/s)\n",
                result["suite"].get<std::string>().c_str(),
                static_cast<unsigned long long>(result["passed"].get<std::uint64_t>()),
                static_cast<unsigned long long>(result["failed"].get<std::uint64_t>()),
                static_cast<unsigned long long>(result["run"].get<std::uint64_t>()), result["seconds"].get<double>(),
                result["cases_per_second"].get<double>());
    std::fflush(stdout);
}

std::string settings_line(const SweepOptions& options) {
    return std::string("strategy ") + std::string(sim::strategy_name(options.strategy)) + ", " +
           std::string(properties::mix_name(options.mix)) + " mix" +
           (options.mutant ? ", mutant " + *options.mutant : "");
}

// The result (with the buckets' cases beside it) written, and the buckets printed.
void write_result(const Program& program, const SweepOptions& options, nlohmann::json& report) {
    if (options.json_path) {
        write_bucket_cases(report["buckets"], *options.json_path, program.name);
        write_atomically(*options.json_path, report.dump(1) + "\n");
    }
    std::fputs(bucket_lines(report["buckets"]).c_str(), stdout);
    std::fflush(stdout);
}

// The sweep's buckets, with those found before adopted: a resumed sweep's file's and
// --known-buckets'.
BucketBook new_book(const SweepOptions& options, const nlohmann::json& known) {
    BucketBook book(BookSettings{options.strategy, options.mix, options.mutant,
                                 std::chrono::seconds(static_cast<std::int64_t>(options.shrink_seconds))});
    book.adopt(known);
    return book;
}

// The buckets found before this sweep: --known-buckets FILE's and, resumed, its file's.
nlohmann::json known_buckets(const SweepOptions& options, const std::optional<nlohmann::json>& earlier) {
    nlohmann::json known = nlohmann::json::array();
    if (earlier && earlier->contains("buckets")) known = (*earlier)["buckets"];
    if (const auto& path = options.known_buckets_path) {
        const nlohmann::json file = parse_json_input(read_input_file(*path), *path);
        if (const std::string problem = known_buckets_problem(file); !problem.empty())
            throw UsageError(*path + ": not a list of buckets: " + problem);
        join_buckets(known, file["buckets"]);
    }
    return known;
}

// What a timed sweep ran and how to go on from it.
void print_timed_end(const Program& program, const SweepOptions& options, const nlohmann::json& report, TimedStop stop,
                     std::uint64_t seed) {
    const nlohmann::json& seeds = report["seeds"];
    std::printf("timed sweep: seeds %llu-%llu have run", static_cast<unsigned long long>(seeds[0].get<std::uint64_t>()),
                static_cast<unsigned long long>(seeds[1].get<std::uint64_t>()));
    if (stop == TimedStop::time) {
        std::printf("; the next is %llu (%s)\n", static_cast<unsigned long long>(seed) + 1,
                    options.json_path ? (program.name + " sweep --resume " + *options.json_path + " continues").c_str()
                                      : "--json FILE keeps a result that --resume continues");
    } else {
        std::printf(stop == TimedStop::failure ? "; stopped at a failure\n" : ": every seed of the sweep\n");
    }
    std::fflush(stdout);
}

// Each case's probe hits counted as that case's, the moment its own runs end (a failure's
// shrink, which runs other cases, comes after and names no first case).
void count_probes(SuiteTally& tally, ProbeHits& probe_hits) {
    tally.on_run([&probe_hits, suite = tally.suite().name()](std::uint64_t seed, std::uint64_t index) {
        probe_hits.after_case(suite, seed, index);
    });
}

// Seed after seed, every suite's cases of each, until the time is up (checked between
// seeds), a case fails (unless --keep-going) or the last seed ran. `earlier`: the result
// this run continues.
int timed_sweep(const Program& program, const SweepOptions& options, const std::optional<nlohmann::json>& earlier,
                const nlohmann::json& known, ProbeHits* probe_hits) {
    const std::uint64_t duration = *options.duration_seconds;
    std::printf("moqsim sweep: seeds from %llu (at most to %llu) for %llu s, %s\n",
                static_cast<unsigned long long>(options.seeds.first),
                static_cast<unsigned long long>(options.seeds.last), static_cast<unsigned long long>(duration),
                settings_line(options).c_str());
    std::fflush(stdout);
    BucketBook book = new_book(options, known);
    const SweepContext context{program, options, book};
    std::vector<SuiteTally> tallies;
    for (const properties::Suite* suite : options.suites) {
        tallies.emplace_back(context, *suite);
        if (probe_hits) count_probes(tallies.back(), *probe_hits);
    }
    const Clock::time_point started = Clock::now();
    const Clock::time_point deadline = started + std::chrono::seconds(duration);
    TimedProgress progress(duration);
    std::uint64_t cases_run = 0;
    std::uint64_t seed = options.seeds.first;
    TimedStop stop = TimedStop::finished;
    for (;; ++seed) {
        for (std::size_t chosen = 0; chosen < options.suites.size() && stop != TimedStop::failure; ++chosen) {
            SuiteTally& tally = tallies[chosen];
            const Clock::time_point suite_started = Clock::now();
            for (std::uint64_t index = 0; index < options.cases[chosen]; ++index) {
                const bool passed = tally.run_case(seed, index);
                if (probe_hits) probe_hits->after_replays(tally.suite().name());
                progress.advance(seed, ++cases_run, book.size());
                if (!passed && !options.keep_going) {
                    stop = TimedStop::failure;
                    break;
                }
            }
            tally.add_seconds(seconds_since(suite_started));
        }
        if (stop == TimedStop::failure || seed == options.seeds.last) break;
        if (Clock::now() >= deadline) {
            stop = TimedStop::time;
            break;
        }
    }
    progress.finish();

    bool same = true;
    for (SuiteTally& tally : tallies) {
        same = tally.replay_failures() && same;
        if (probe_hits) probe_hits->after_replays(tally.suite().name());
    }
    nlohmann::json report = new_sweep_result(sweep_settings(options));
    report["seeds"] = {options.seeds.first, seed};
    for (std::size_t chosen = 0; chosen < options.suites.size(); ++chosen) {
        report["suites"].push_back(tallies[chosen].result(options.cases[chosen]));
        print_suite_result(report["suites"].back());
        if (probe_hits)
            probe_hits->end_suite(tallies[chosen].suite().name(), options.cases[chosen], tallies[chosen].run());
    }
    report["buckets"] = book.buckets();
    report["timed"] = timed_section(
        duration, options.seeds.last, stop, seed,
        nlohmann::json::array({timed_run(options.seeds.first, seed, seconds_since(started))}), options.keep_going);
    if (earlier) report = continued_result(*earlier, std::move(report));
    print_timed_end(program, options, report, stop, seed);
    write_result(program, options, report);
    if (probe_hits) {
        probe_hits->set_seeds(options.seeds.first, seed);
        probe_hits->write();
    }
    bool failed = !same;
    for (const SuiteTally& tally : tallies) failed = failed || tally.failed() != 0;
    return failed ? 1 : 0;
}

// One suite's cases over the seed range (this shard's share), its result added to
// `report`; false when a failure's replay gave another digest.
bool sweep_suite(const SweepContext& context, SuiteTally& tally, std::uint64_t cases, SiteHits* site_hits,
                 ProbeHits* probe_hits, nlohmann::json& report) {
    const SweepOptions& options = context.options;
    const SeedRange seeds = options.seeds;
    const Shard shard = options.shard;
    const std::uint64_t total = seeds.count() * cases;
    Progress progress(std::string(tally.suite().name()), shard_share(total, shard));
    const Clock::time_point started = Clock::now();
    if (site_hits) site_hits->start_suite();
    for (std::uint64_t ordinal = shard.index; ordinal < total; ordinal += shard.total) {
        const bool passed = tally.run_case(seeds.first + ordinal / cases, ordinal % cases);
        if (probe_hits) probe_hits->after_replays(tally.suite().name());
        progress.advance(tally.run(), context.book.size());
        if (!passed && !options.keep_going) break;
    }
    progress.finish();
    if (site_hits) site_hits->end_suite(tally.suite().name(), cases, tally.run());
    if (probe_hits) probe_hits->end_suite(tally.suite().name(), cases, tally.run());
    tally.add_seconds(seconds_since(started));
    const bool same = tally.replay_failures();
    if (probe_hits) probe_hits->after_replays(tally.suite().name());
    report["suites"].push_back(tally.result(cases));
    print_suite_result(report["suites"].back());
    return same;
}

}  // namespace

int sweep(const Program& program, const Given& given) {
    SweepOptions options = parse_sweep_options(given, process_environment());
    std::optional<nlohmann::json> earlier;
    if (options.resume_path) {
        earlier = parse_sweep_result(read_input_file(*options.resume_path), *options.resume_path);
        resume_options(options, *earlier, *options.resume_path);
    }
    if (options.mutant) activate_mutant(*options.mutant);
    if (options.case_timeout_seconds) watchdog::start(*options.case_timeout_seconds);
    if (options.json_path) {
        check_writable(*options.json_path, "--json");
        check_bucket_case_folder(*options.json_path);
    }
    if (options.ops) {
        acknowledge_shard();
        return small_sweep(program, options);
    }
    if (options.json_path && options.site_hits_path)
        check_different_files("--json", *options.json_path, "--site-hits", *options.site_hits_path);
    for (const auto& [flag, path] :
         {std::pair{"--json", options.json_path}, std::pair{"--site-hits", options.site_hits_path}})
        if (path && options.probes_path) check_different_files(flag, *path, "--probes", *options.probes_path);
    std::optional<ProbeHits> probe_hits;
    if (options.probes_path) probe_hits.emplace(*options.probes_path, program, options);
    const nlohmann::json known = known_buckets(options, earlier);
    if (options.duration_seconds)
        return timed_sweep(program, options, earlier, known, probe_hits ? &*probe_hits : nullptr);
    const nlohmann::json settings = sweep_settings(options);
    std::optional<SiteHits> site_hits;
    if (options.site_hits_path) site_hits.emplace(*options.site_hits_path, settings);
    acknowledge_shard();

    const SeedRange seeds = options.seeds;
    const Shard shard = options.shard;
    std::printf("moqsim sweep: seeds %llu-%llu, %s, shard %llu of %llu\n", static_cast<unsigned long long>(seeds.first),
                static_cast<unsigned long long>(seeds.last), settings_line(options).c_str(),
                static_cast<unsigned long long>(shard.index) + 1, static_cast<unsigned long long>(shard.total));
    std::fflush(stdout);

    nlohmann::json report = new_sweep_result(settings);
    bool same = true;
    BucketBook book = new_book(options, known);
    const SweepContext context{program, options, book};
    std::vector<SuiteTally> tallies;
    for (std::size_t chosen = 0; chosen < options.suites.size(); ++chosen) {
        SuiteTally& tally = tallies.emplace_back(context, *options.suites[chosen]);
        if (probe_hits) count_probes(tally, *probe_hits);
        same = sweep_suite(context, tally, options.cases[chosen], site_hits ? &*site_hits : nullptr,
                           probe_hits ? &*probe_hits : nullptr, report) &&
               same;
    }
    report["buckets"] = book.buckets();
    write_result(program, options, report);
    if (site_hits) site_hits->write();
    if (probe_hits) probe_hits->write();
    bool failed = !same;
    for (const SuiteTally& tally : tallies) failed = failed || tally.failed() != 0;
    return failed ? 1 : 0;
}

}  // namespace moq::runner
