// The unit test program. `--list-sites` prints every mutation site linked into it and
// `--list-generated` every generated mutant of a schemata build (one JSON object a line)
// for scripts/mutate; anything else is doctest's.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "util/json_quote.hpp"
#include "util/mutation.hpp"

namespace {

void list_sites() {
    using moq::util::json_quote;
    for (const moq::mutation::Site& site : moq::mutation::sites()) {
        std::printf("{\"name\":%s,\"category\":%s,\"file\":%s,\"line\":%d,\"survivor_reason\":%s}\n",
                    json_quote(site.name).c_str(), json_quote(moq::mutation::category_name(site.category)).c_str(),
                    json_quote(site.file).c_str(), site.line, json_quote(site.survivor_reason).c_str());
    }
}

void list_generated() {
    using moq::util::json_quote;
    for (const moq::mutation::GeneratedMutant& mutant : moq::mutation::generated_mutants()) {
        std::printf(
            "{\"id\":%s,\"file\":%s,\"line\":%d,\"column\":%d,\"operator\":%s,\"original\":%s,"
            "\"replacement\":%s}\n",
            json_quote(mutant.id).c_str(), json_quote(mutant.file).c_str(), mutant.line, mutant.column,
            json_quote(mutant.mutation).c_str(), json_quote(mutant.original).c_str(),
            json_quote(mutant.replacement).c_str());
    }
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--list-sites") == 0) {
            list_sites();
            return 0;
        }
        if (std::strcmp(argv[i], "--list-generated") == 0) {
            list_generated();
            return 0;
        }
    }
    moq::mutation::active_mutant();  // an unknown MOQ_MUTANT stops here, before any test
    doctest::Context context(argc, argv);
    return context.run();
}
