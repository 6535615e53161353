#include "runner/explore_result.hpp"

#include <filesystem>
#include <set>

#include "runner/args.hpp"
#include "runner/json_input.hpp"
#include "runner/output.hpp"
#include "runner/shard.hpp"

namespace moq::runner {

namespace {

// The most choices one decision point has: a run's tasks, or a drive's few faults.
constexpr std::uint64_t max_decision_options = 1u << 20;
// Decisions on one path: far above the deepest schedule of any suite.
constexpr std::size_t max_path_length = 1u << 20;

// Reads the fields of one JSON object of a file, each refused with a one-line error that
// names the file and the field.
class FieldReader {
public:
    FieldReader(const nlohmann::json& object, std::string label) : object_(object), label_(std::move(label)) {
        if (!object_.is_object()) fail("", "not a JSON object");
    }

    [[nodiscard]] std::uint64_t count(const char* key, std::uint64_t max = UINT64_MAX) const {
        const nlohmann::json& value = at(key);
        if (!value.is_number_unsigned() || value.get<std::uint64_t>() > max)
            fail(key, value.dump() + " is not a whole number from 0 to " + std::to_string(max));
        return value.get<std::uint64_t>();
    }
    [[nodiscard]] double seconds(const char* key) const {
        const nlohmann::json& value = at(key);
        if (!value.is_number() || value.get<double>() < 0) fail(key, value.dump() + " is not a time in seconds");
        return value.get<double>();
    }
    [[nodiscard]] bool flag(const char* key) const {
        const nlohmann::json& value = at(key);
        if (!value.is_boolean()) fail(key, value.dump() + " is not true or false");
        return value.get<bool>();
    }
    [[nodiscard]] std::string text(const char* key) const {
        const nlohmann::json& value = at(key);
        if (!value.is_string()) fail(key, value.dump() + " is not a string");
        return value.get<std::string>();
    }
    [[nodiscard]] const nlohmann::json& array(const char* key) const {
        const nlohmann::json& value = at(key);
        if (!value.is_array()) fail(key, "not a list");
        return value;
    }
    [[nodiscard]] const nlohmann::json& at(const char* key) const {
        if (!object_.contains(key)) fail(key, "missing");
        return object_[key];
    }
    [[noreturn]] void fail(std::string_view key, const std::string& problem) const {
        throw UsageError(label_ + (key.empty() ? "" : ": " + std::string(key)) + ": " + problem);
    }

private:
    const nlohmann::json& object_;
    std::string label_;
};

nlohmann::json totals_json(const sim::ExploreTotals& totals) {
    return {{"schedules", totals.schedules},
            {"pruned_by_bound", totals.pruned_by_bound},
            {"pruned_by_sleep_sets", totals.pruned_by_sleep},
            {"ended_asleep", totals.sleep_blocked},
            {"pruned_by_state_cache", totals.pruned_by_cache},
            {"distinct_states", totals.distinct_states},
            {"deepest", totals.deepest},
            {"other_shards", totals.other_shards},
            {"seconds", totals.seconds},
            {"schedules_per_second", totals.seconds > 0 ? totals.schedules / totals.seconds : 0.0}};
}

sim::ExploreTotals read_totals(const FieldReader& fields) {
    sim::ExploreTotals totals;
    totals.schedules = fields.count("schedules");
    totals.pruned_by_bound = fields.count("pruned_by_bound");
    totals.pruned_by_sleep = fields.count("pruned_by_sleep_sets");
    totals.sleep_blocked = fields.count("ended_asleep");
    totals.pruned_by_cache = fields.count("pruned_by_state_cache");
    totals.distinct_states = fields.count("distinct_states");
    totals.deepest = fields.count("deepest");
    totals.other_shards = fields.count("other_shards");
    totals.seconds = fields.seconds("seconds");
    return totals;
}

nlohmann::json resume_json(const ExploreResume& resume) {
    nlohmann::json path = nlohmann::json::array();
    for (const sim::ExplorePathStep& step : resume.frontier.path)
        path.push_back({{"kind", sim::decision_kind_name(step.kind)},
                        {"options", step.options},
                        {"fallback", step.fallback},
                        {"costly", step.costly},
                        {"tasks", step.tasks},
                        {"spent", step.spent},
                        {"next_rank", step.next_rank},
                        {"choice", step.choice}});
    return {{"case_index", resume.case_index ? nlohmann::json(*resume.case_index) : nlohmann::json()},
            {"subtrees", resume.frontier.subtrees},
            {"path", path}};
}

sim::ExplorePathStep read_step(const nlohmann::json& value, const std::string& label, std::uint32_t bound) {
    const FieldReader fields(value, label);
    sim::ExplorePathStep step;
    const auto kind = sim::parse_decision_kind(fields.text("kind"));
    if (!kind) fields.fail("kind", "unknown decision kind " + fields.at("kind").dump());
    step.kind = *kind;
    step.options = static_cast<std::uint32_t>(fields.count("options", max_decision_options));
    if (step.options == 0) fields.fail("options", "a decision has at least one choice");
    step.fallback = static_cast<std::uint32_t>(fields.count("fallback", step.options - 1));
    step.costly = fields.flag("costly");
    step.spent = static_cast<std::uint32_t>(fields.count("spent", bound));
    step.next_rank = static_cast<std::uint32_t>(fields.count("next_rank", step.options));
    step.choice = static_cast<std::uint32_t>(fields.count("choice", step.options - 1));
    const nlohmann::json& tasks = fields.array("tasks");
    if (!tasks.empty() && tasks.size() != step.options) fields.fail("tasks", "not one task a choice");
    for (const nlohmann::json& task : tasks) {
        if (!task.is_number_unsigned() || task.get<std::uint64_t>() > UINT32_MAX)
            fields.fail("tasks", task.dump() + " is not a task number");
        step.tasks.push_back(task.get<std::uint32_t>());
    }
    return step;
}

ExploreResume read_resume(const nlohmann::json& value, const std::string& label, std::uint32_t bound, bool small) {
    const FieldReader fields(value, label);
    ExploreResume resume;
    const nlohmann::json& index = fields.at("case_index");
    if (small != !index.is_null()) fields.fail("case_index", small ? "missing for --ops" : "set without --ops");
    if (small) resume.case_index = fields.count("case_index");
    resume.frontier.subtrees = fields.count("subtrees");
    const nlohmann::json& path = fields.array("path");
    if (path.size() > max_path_length) fields.fail("path", "longer than any schedule");
    for (std::size_t at = 0; at < path.size(); ++at)
        resume.frontier.path.push_back(read_step(path[at], label + ".path[" + std::to_string(at) + "]", bound));
    return resume;
}

// The first setting in which two results differ, or nothing.
std::optional<std::string> differing_setting(const nlohmann::json& mine, const nlohmann::json& theirs) {
    for (const auto& [key, value] : mine.items())
        if (!theirs.contains(key) || theirs[key] != value) return key;
    for (const auto& [key, value] : theirs.items())
        if (!mine.contains(key)) return key;
    return std::nullopt;
}

struct ShardOfResult {
    nlohmann::json settings;  // without the shard
    std::uint64_t index;
    std::uint64_t total;
};

// A result's settings and its shard, read apart so that shards of one exploration compare equal.
ShardOfResult settings_and_shard(const FieldReader& fields, const std::string& path) {
    nlohmann::json settings = fields.at("settings");
    if (!settings.is_object() || !settings.contains("shard") || !settings["shard"].is_object())
        fields.fail("settings", "no shard in the settings");
    const FieldReader shard(settings["shard"], path + ": settings.shard");
    const std::uint64_t total = shard.count("total", max_shards);
    if (total == 0) shard.fail("total", "0 shards");
    const std::uint64_t index = shard.count("index", total - 1);
    settings.erase("shard");
    return {std::move(settings), index, total};
}

}  // namespace

nlohmann::json explore_settings(const ExploreOptions& options, const std::string& case_label) {
    return {{"suite", options.suite->name()},
            {"case", case_label},
            {"ops", options.ops ? nlohmann::json(*options.ops) : nlohmann::json()},
            {"bound", options.bound},
            {"sleep_sets", options.sleep_sets},
            {"state_caching", options.state_caching},
            {"keep_going", options.keep_going},
            {"mutant", options.mutant ? nlohmann::json(*options.mutant) : nlohmann::json()},
            {"shard", {{"index", options.shard.index}, {"total", options.shard.total}}},
            {"split_depth", options.split_depth}};
}

nlohmann::json explore_result_json(const ExploreReport& report) {
    const ExploreOptions& options = *report.options;
    const sim::ExploreState& state = *report.state;
    sim::ExploreTotals totals = state.totals;
    nlohmann::json failures = nlohmann::json::array();
    if (report.before) {
        totals.add(report.before->totals);
        failures = report.before->failures;
    }
    for (const sim::ExploredFailure& failure : state.failures) {
        nlohmann::json entry = {{"message", failure.verdict.message},
                                {"digest", failure.verdict.digest},
                                {"decisions", failure.decisions.size()},
                                {"failure_file", options.failure_path}};
        if (failure.case_index) entry["small_case"] = *failure.case_index;
        failures.push_back(std::move(entry));
    }
    nlohmann::json result = {
        {"format", "moqsim-explore"},
        {"version", 1},
        {"settings", explore_settings(options, report.settings_label)},
        {"suite", options.suite->name()},
        {"case", report.case_label},
        {"small_cases", report.small_cases.value_or(nlohmann::json())},
        {"bound", options.bound},
        {"sleep_sets", options.sleep_sets},
        {"state_caching", options.state_caching},
        {"mutant", options.mutant ? nlohmann::json(*options.mutant) : nlohmann::json()},
        {"shard", {{"index", options.shard.index}, {"total", options.shard.total}}},
        {"end", sim::explore_end_name(state.end)},
        {"exhaustive", state.end == sim::ExploreEnd::exhaustive},
        {"failures", failures},
        {"failure_file", failures.empty() ? nlohmann::json() : nlohmann::json(options.failure_path)},
        {"resume", report.resume ? resume_json(*report.resume) : nlohmann::json()}};
    result.update(totals_json(totals));
    return result;
}

std::optional<ExploreBefore> read_explore_resume(const std::string& path, const nlohmann::json& settings) {
    std::error_code missing;
    if (!std::filesystem::exists(path, missing)) return std::nullopt;
    const nlohmann::json result = parse_json_input(read_input_file(path), path);
    if (!is_explore_result(result))
        throw UsageError(path + ": not an exploration's result (format \"moqsim-explore\", version 1)");
    const FieldReader fields(result, path);
    const nlohmann::json& theirs = fields.at("settings");
    if (!theirs.is_object()) fields.fail("settings", "not a JSON object");
    if (const auto differs = differing_setting(settings, theirs))
        throw UsageError(path + ": an exploration with another " + *differs + " (" +
                         theirs.value(*differs, nlohmann::json()).dump() + ", here " +
                         settings.value(*differs, nlohmann::json()).dump() + "): resume it with its own settings");
    ExploreBefore before;
    before.totals = read_totals(fields);
    before.failures = fields.array("failures");
    before.end = fields.text("end");
    if (before.end != "exhaustive" && before.end != "failure" && before.end != "budget")
        fields.fail("end", before.end + " is not exhaustive, failure or budget");
    before.totals.failures = before.failures.size();
    const bool small = !settings["ops"].is_null();
    if (small) {
        const FieldReader cases(fields.at("small_cases"), path + ": small_cases");
        before.explored_cases = cases.count("explored");
    }
    const nlohmann::json& resume = fields.at("resume");
    if (before.end == "budget") {
        if (resume.is_null()) fields.fail("resume", "missing for an exploration stopped by its budget");
        before.resume = read_resume(resume, path + ": resume", settings["bound"].get<std::uint32_t>(), small);
    } else if (!resume.is_null()) {
        fields.fail("resume", "set for an exploration that ended (" + before.end + ")");
    }
    return before;
}

bool is_explore_result(const nlohmann::json& result) {
    return result.is_object() && result.value("format", nlohmann::json()) == "moqsim-explore" &&
           result.value("version", nlohmann::json()) == 1;
}

nlohmann::json merge_explore_results(const std::vector<nlohmann::json>& results,
                                     const std::vector<std::string>& paths) {
    sim::ExploreTotals totals;
    nlohmann::json failures = nlohmann::json::array();
    nlohmann::json settings;
    std::set<std::uint64_t> shards;
    std::uint64_t shard_total = 0;
    bool exhaustive = true;
    bool failed = false;
    std::uint64_t explored_cases = 0;
    for (std::size_t at = 0; at < results.size(); ++at) {
        const std::string& path = paths[at];
        if (!is_explore_result(results[at]))
            throw UsageError(path +
                             ": not an exploration's result: merge joins shards of one sweep or of one exploration");
        const FieldReader fields(results[at], path);
        auto [mine, index, total] = settings_and_shard(fields, path);
        if (at == 0) {
            settings = mine;
            shard_total = total;
        } else if (const auto differs = differing_setting(settings, mine)) {
            throw UsageError(path + ": an exploration with another " + *differs + " than " + paths[0] + "'s");
        } else if (total != shard_total) {
            throw UsageError(path + ": one of " + std::to_string(total) + " shards, " + paths[0] + " one of " +
                             std::to_string(shard_total));
        }
        if (!shards.insert(index).second)
            throw UsageError(path + ": shard " + std::to_string(index) + " is there twice");
        totals.add(read_totals(fields));
        for (const nlohmann::json& failure : fields.array("failures")) failures.push_back(failure);
        if (!settings["ops"].is_null())
            explored_cases += FieldReader(fields.at("small_cases"), path + ": small_cases").count("explored");
        const std::string end = fields.text("end");
        exhaustive = exhaustive && end == "exhaustive";
        failed = failed || end == "failure";
    }
    const bool complete = shards.size() == shard_total;
    std::vector<std::uint64_t> absent;
    for (std::uint64_t index = 0; index < shard_total && absent.size() < 10; ++index)
        if (!shards.count(index)) absent.push_back(index);
    totals.failures = failures.size();
    nlohmann::json merged = {
        {"format", "moqsim-explore-merged"},
        {"version", 1},
        {"settings", settings},
        {"shards", {{"total", shard_total}, {"merged", shards.size()}, {"absent", absent}}},
        {"end", failed        ? "failure"
                : !exhaustive ? "budget"
                : complete    ? "exhaustive"
                              : "partial"},
        {"exhaustive", exhaustive && complete},
        {"explored_cases", settings["ops"].is_null() ? nlohmann::json() : nlohmann::json(explored_cases)},
        {"failures", failures}};
    merged.update(totals_json(totals));
    return merged;
}

}  // namespace moq::runner
