// A fixture of scripts/lib/equivalents_check_test.py: a tiny core whose generated
// mutants the test lists. Moving a line here moves their ids (the test says which).
namespace fixture {

int later(int kept, int at) {
    if (at > kept) kept = at;
    return kept;
}

}  // namespace fixture
