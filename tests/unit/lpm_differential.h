// The schedule the LPM tables' differential tests (test_lpm4.cpp, test_lpm6.cpp) follow: 2000 random
// adds, then four rounds of 500 mixed operations (half removes of live routes, a tenth removes of
// absent ones, the rest adds, some of them replacing), then removes down to the empty table, with a
// check against the linear scan after each phase. A Differential offers add_random(),
// remove_random_live(), remove_random_absent(), check(random_addresses) and live().
#pragma once
#include <gtest/gtest.h>

namespace gnf::test {

template <typename Differential>
void run_lpm_differential(Differential& d) {
  for (int i = 0; i < 2000; ++i) d.add_random();
  ASSERT_NO_FATAL_FAILURE(d.check(20000));
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 500; ++i) {
      const int op = i % 10;
      if (op < 5) {
        ASSERT_NO_FATAL_FAILURE(d.remove_random_live());
      } else if (op < 6) {
        ASSERT_NO_FATAL_FAILURE(d.remove_random_absent());
      } else {
        d.add_random();
      }
    }
    ASSERT_NO_FATAL_FAILURE(d.check(5000));
  }
  while (d.live() > 0) {
    ASSERT_NO_FATAL_FAILURE(d.remove_random_live());
    if (d.live() % 500 == 0) {
      ASSERT_NO_FATAL_FAILURE(d.check(2000));
    }
  }
}

}  // namespace gnf::test
