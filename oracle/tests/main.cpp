// The models' own unit tests: small histories told to a model by hand, each naming the
// rule whose judgement it pins down.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
