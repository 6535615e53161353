// moqsim corpus: replays every saved case along its decisions; each must pass. A case
// file's own mutant is not switched on: a corpus case must pass with every site on, and
// --mutant runs them all with one site off. And moqsim convert: saved cases of earlier
// moqsims made replay files, each in place (runner/convert.hpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "properties/explore.hpp"
#include "runner/args.hpp"
#include "runner/commands.hpp"
#include "runner/convert.hpp"
#include "runner/options.hpp"
#include "runner/output.hpp"
#include "runner/replay_file.hpp"

namespace moq::runner {

namespace {

// The .json files of `paths`: each file, and every .json of each folder, sorted.
std::vector<std::string> case_files(const std::vector<std::string>& paths) {
    std::vector<std::string> files;
    for (const std::string& path : paths) {
        std::error_code error;
        if (std::filesystem::is_directory(path, error)) {
            for (const auto& entry : std::filesystem::directory_iterator(path))
                if (entry.path().extension() == ".json") files.push_back(entry.path().string());
        } else if (std::filesystem::exists(path, error)) {
            files.push_back(path);
        } else {
            throw UsageError("no case file or folder " + path);
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

int corpus(const Program& program, const Given& given) {
    const CorpusOptions options = parse_corpus_options(given);
    const std::optional<std::string>& mutant = options.mutant;
    if (mutant) activate_mutant(*mutant);
    const std::vector<std::string> files = case_files(options.paths);
    // Read every file first: a malformed one stops the run before anything is replayed.
    std::vector<ReplayFile> cases;
    cases.reserve(files.size());
    for (const std::string& file : files) cases.push_back(read_replay_file(file));
    std::size_t passed = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        // A run that parts from its decisions (a change to the code moved a decision, as
        // fixing the bug it caught may) is still a run of its case, judged as any; the line
        // says so, since the file then no longer replays the run it kept.
        const properties::DecidedRun run = properties::run_decisions(*cases[i].value, cases[i].decisions);
        const std::string parted = run.left_list ? " (the run parts from the file's decisions at decision " +
                                                       std::to_string(run.diverged_at) + ")"
                                                 : "";
        if (run.outcome.ok) {
            ++passed;
            std::printf("corpus: %s passed%s\n", files[i].c_str(), parted.c_str());
        } else {
            std::printf("corpus: %s FAILED: %s%s\n  replay: %s replay %s%s%s --shrink\n", files[i].c_str(),
                        run.outcome.message.c_str(), parted.c_str(), program.name.c_str(), files[i].c_str(),
                        mutant ? " --mutant " : "", mutant ? mutant->c_str() : "");
        }
    }
    std::printf("corpus: %zu passed, %zu failed\n", passed, cases.size() - passed);
    return passed == cases.size() ? 0 : 1;
}

int convert(const Program&, const Given& given) {
    const CorpusOptions options = parse_corpus_options(given);
    if (given.positional().empty()) throw UsageError("convert needs the files or folders of saved cases to convert");
    const std::vector<std::string> files = case_files(options.paths);
    // Every file converted before any is written: a bad one leaves them all as they were.
    std::vector<std::pair<std::string, ReplayFile>> converted;
    for (const std::string& file : files)
        if (std::optional<ReplayFile> made = convert_saved_case(read_input_file(file), file))
            converted.emplace_back(file, std::move(*made));
    for (const auto& [file, made] : converted) {
        write_replay_file(file, made);
        std::printf("convert: %s: %zu decisions, digest %016llx\n", file.c_str(), made.decisions.size(),
                    static_cast<unsigned long long>(made.digest.value_or(0)));
    }
    std::printf("convert: %zu converted, %zu already version %d\n", converted.size(), files.size() - converted.size(),
                replay_file_version);
    return 0;
}

}  // namespace moq::runner
