// The unit test program. `--list-sites` prints every mutation site linked into it (one
// JSON object a line) for scripts/mutate; anything else is doctest's.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "util/mutation.hpp"

namespace {

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out.push_back('\\');
        out.push_back(c);
    }
    return out + "\"";
}

void list_sites() {
    for (const moq::mutation::Site& site : moq::mutation::sites()) {
        std::printf("{\"name\":%s,\"category\":%s,\"file\":%s,\"line\":%d,\"survivor_reason\":%s}\n",
                    json_string(site.name).c_str(),
                    json_string(moq::mutation::category_name(site.category)).c_str(),
                    json_string(site.file).c_str(), site.line, json_string(site.survivor_reason).c_str());
    }
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--list-sites") == 0) {
            list_sites();
            return 0;
        }
    }
    moq::mutation::active_mutant();  // an unknown MOQ_MUTANT stops here, before any test
    doctest::Context context(argc, argv);
    return context.run();
}
