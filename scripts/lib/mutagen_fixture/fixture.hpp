// The functions of the generator's fixture (fixture.cpp), for main.cpp.
#pragma once

#include <optional>

namespace fixture {

struct Version {
    int number;
};
enum class Light { off, on };

bool below(int a, int b);
bool same(int a, int b);
int next(int n);
bool both(bool a, bool b);
bool either(bool a, bool b);
int choose(bool c);
int guard(const int* p);
int rounds(int n);
int sum_to(int n);
int tries(int n);
int added();
bool ready();
int bump(int n);
int post(int n);
int twice_at_run_time(int n);  // a constexpr function's answer at run time
int half(int n);
const int* after(const int* p);
bool operator<(Version a, Version b);
bool older(Version a, Version b);
int cut(int n);
std::optional<int> remembered(int n);
Light light(bool on);
Light dark();
int published_order();
int checked(int n);
bool site_on();
int width();

}  // namespace fixture
