/* gs_test.h: a minimal check macro for the C unit tests (automake: exit 0 pass, 1 fail). */
#ifndef GS_TEST_H
#define GS_TEST_H

#include <stdio.h>

static int gs_test_failures;

#define GS_EXPECT(cond)                                                        \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);      \
      gs_test_failures++;                                                      \
    }                                                                          \
  } while (0)

#define GS_TEST_DONE()                                                         \
  do {                                                                         \
    printf("%s\n", gs_test_failures ? "FAIL" : "PASS");                        \
    return gs_test_failures ? 1 : 0;                                           \
  } while (0)

#endif
