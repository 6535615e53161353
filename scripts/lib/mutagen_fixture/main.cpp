// Prints what every function of the generator's fixture answers, one `name=value` a line.
#include <cstdio>

#include "fixture.hpp"

int main() {
    const int seven = 7;
    std::printf("below=%d%d\n", fixture::below(2, 2), fixture::below(1, 2));
    std::printf("same=%d\n", fixture::same(3, 3));
    std::printf("next=%d\n", fixture::next(5));
    std::printf("both=%d%d\n", fixture::both(true, false), fixture::both(true, true));
    std::printf("either=%d\n", fixture::either(true, false));
    std::printf("choose=%d\n", fixture::choose(true));
    std::printf("guard=%d\n", fixture::guard(&seven));
    std::printf("rounds=%d\n", fixture::rounds(2));
    std::printf("sum_to=%d\n", fixture::sum_to(3));
    std::printf("tries=%d\n", fixture::tries(2));
    const int first_added = fixture::added();  // the second call sees what the first left
    std::printf("added=%d,%d\n", first_added, fixture::added());
    std::printf("ready=%d\n", fixture::ready());
    std::printf("bump=%d\n", fixture::bump(3));
    std::printf("post=%d\n", fixture::post(3));
    std::printf("twice=%d\n", fixture::twice_at_run_time(3));
    std::printf("older=%d%d\n", fixture::older(fixture::Version{2}, fixture::Version{2}),
                fixture::older(fixture::Version{1}, fixture::Version{2}));
    std::printf("half=%d\n", fixture::half(8));
    const int pair[2] = {1, 2};
    std::printf("after=%d\n", static_cast<int>(fixture::after(pair) - pair));
    std::printf("cut=%d,%d\n", fixture::cut(12), fixture::cut(10));
    std::printf("remembered=%d\n", fixture::remembered(9).value_or(-1));
    std::printf("light=%d dark=%d\n", static_cast<int>(fixture::light(true)), static_cast<int>(fixture::dark()));
    std::printf("order=%d\n", fixture::published_order());
    std::printf("checked=%d site=%d width=%d\n", fixture::checked(1), fixture::site_on(), fixture::width());
}
