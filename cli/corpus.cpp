// moqsim corpus: replays every saved case; each must pass.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/corpus_file.hpp"
#include "cli/options.hpp"

namespace moq::cli {

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
    cases.reserve(files.size());
    for (const std::string& file : files) cases.push_back(read_corpus_file(file));
    std::size_t passed = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto outcome = cases[i].value->run(properties::RunSettings{cases[i].strategy, false});
        if (outcome.ok) {
            ++passed;
            std::printf("corpus: %s passed\n", files[i].c_str());
        } else {
            std::printf("corpus: %s FAILED: %s\n  replay: %s replay %s%s%s --shrink\n", files[i].c_str(),
                        outcome.message.c_str(), program.name.c_str(), files[i].c_str(), mutant ? " --mutant " : "",
                        mutant ? mutant->c_str() : "");
        }
    }
    std::printf("corpus: %zu passed, %zu failed\n", passed, cases.size() - passed);
    return passed == cases.size() ? 0 : 1;
}

}  // namespace moq::cli
