/* Atomic file replacement: content lands whole, replaces the old, and leaves no temporary. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gs_file.h"
#include "gs_test.h"

int main(void) {
  char dir[] = "/tmp/gs_test_file_XXXXXX";
  GS_EXPECT(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/out.csv", dir);
  GS_EXPECT(gs_file_write_atomic(path, "first\n", 6) == 0);
  size_t len;
  char *s = gs_file_read(path, &len);
  GS_EXPECT(s && len == 6 && strcmp(s, "first\n") == 0);
  free(s);
  /* A large replacement, larger than the read buffer's first size. */
  size_t big = 100000;
  char *data = malloc(big);
  for (size_t i = 0; i < big; i++) data[i] = (char)('a' + i % 26);
  GS_EXPECT(gs_file_write_atomic(path, data, big) == 0);
  s = gs_file_read(path, &len);
  GS_EXPECT(s && len == big && memcmp(s, data, big) == 0);
  free(s);
  free(data);
  /* Only the target is left in the directory. */
  DIR *d = opendir(dir);
  int entries = 0;
  for (struct dirent *e; d && (e = readdir(d));) entries += e->d_name[0] != '.';
  if (d) closedir(d);
  GS_EXPECT(entries == 1);
  /* A directory that does not exist fails cleanly. */
  char bad[300];
  snprintf(bad, sizeof bad, "%s/missing/out.csv", dir);
  GS_EXPECT(gs_file_write_atomic(bad, "x", 1) == -1);
  GS_EXPECT(gs_file_read(bad, &len) == NULL);
  unlink(path);
  rmdir(dir);
  GS_TEST_DONE();
}
