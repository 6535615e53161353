// moqsim corpus: replays every saved case; each must pass. A saved case is a corpus file
// (cli/corpus_file.hpp), run as its strategy runs it, or a decisions file
// (cli/decisions_file.hpp: a schedule explore or the guided search found), run along its
// decisions.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "runner/args.hpp"
#include "runner/commands.hpp"
#include "runner/corpus_file.hpp"
#include "runner/decisions_file.hpp"
#include "runner/json_input.hpp"
#include "runner/options.hpp"
#include "runner/output.hpp"
#include "properties/explore.hpp"

namespace moq::runner {

namespace {

// Whether `text` says it is a decisions file; anything else is read as a corpus file,
// whose reader names what is wrong with it.
bool is_decisions_file(const std::string& text, const std::string& label) {
    try {
        const nlohmann::json head = parse_json_input(text, label);
        return head.is_object() && head.contains("format") && head["format"] == "moqsim-decisions";
    } catch (const UsageError&) {
        return false;
    }
}

}  // namespace

int corpus(const Program& program, const std::vector<std::string>& arguments) {
    const CorpusOptions options = parse_corpus_options(arguments);
    const std::optional<std::string>& mutant = options.mutant;
    if (mutant) activate_mutant(*mutant);
    std::vector<std::string> files;
    for (const std::string& path : options.paths) {
        std::error_code error;
        if (std::filesystem::is_directory(path, error)) {
            for (const auto& entry : std::filesystem::directory_iterator(path))
                if (entry.path().extension() == ".json") files.push_back(entry.path().string());
        } else if (std::filesystem::exists(path, error)) {
            files.push_back(path);
        } else {
            throw UsageError("no corpus file or folder " + path);
        }
    }
    std::sort(files.begin(), files.end());
    // Read every file first: a malformed one stops the run before anything is replayed.
    std::vector<CorpusCase> cases;
    std::vector<std::optional<DecisionsFile>> schedules;
    cases.reserve(files.size());
    for (const std::string& file : files) {
        const std::string text = read_input_file(file);
        if (is_decisions_file(text, file)) {
            schedules.emplace_back(parse_decisions_file(text, file));
            cases.emplace_back();
        } else {
            schedules.emplace_back();
            cases.push_back(parse_corpus_case(text, file));
        }
    }
    std::size_t passed = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const bool decided = schedules[i].has_value();
        // A decisions file's run that parts from its schedule (a change to the code moved a
        // decision, as fixing the bug it caught may) is still a schedule of its case, judged
        // as any; the line says so, since the file then no longer replays the run it kept.
        std::string parted;
        properties::CaseOutcome outcome;
        if (decided) {
            properties::DecidedRun run = properties::run_decisions(
                *schedules[i]->value, schedules[i]->decisions, properties::RunSettings{schedules[i]->strategy, false});
            if (run.left_list)
                parted =
                    " (the run parts from the file's decisions at decision " + std::to_string(run.diverged_at) + ")";
            outcome = std::move(run.outcome);
        } else {
            outcome = cases[i].value->run(properties::RunSettings{cases[i].strategy, false});
        }
        if (outcome.ok) {
            ++passed;
            std::printf("corpus: %s passed%s\n", files[i].c_str(), parted.c_str());
        } else {
            std::printf("corpus: %s FAILED: %s%s\n  replay: %s replay %s%s%s%s --shrink\n", files[i].c_str(),
                        outcome.message.c_str(), parted.c_str(), program.name.c_str(), decided ? "--decisions " : "",
                        files[i].c_str(), mutant ? " --mutant " : "", mutant ? mutant->c_str() : "");
        }
    }
    std::printf("corpus: %zu passed, %zu failed\n", passed, cases.size() - passed);
    return passed == cases.size() ? 0 : 1;
}

}  // namespace moq::runner
