/* gs_file.h: files that are never half-written: write a temporary file in the same directory,
 * flush, fsync, rename over the target, fsync the directory. */
#ifndef GS_FILE_H
#define GS_FILE_H

#include <stddef.h>

/* Replace path with data atomically. Returns 0, or -1 with errno set. */
int gs_file_write_atomic(const char *path, const void *data, size_t len);

/* Read a whole file into a malloc'd, NUL-terminated buffer; NULL with errno if it cannot. */
char *gs_file_read(const char *path, size_t *len);

#endif
