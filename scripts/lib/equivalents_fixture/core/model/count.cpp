// A fixture of scripts/lib/equivalents_check_test.py (see core/kio/clock.cpp).
namespace fixture {

bool none_left(int count) { return count == 0; }

}  // namespace fixture
