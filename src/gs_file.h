/* gs_file.h: result files that are never half-written and never replace what is not a plain
 * file. A regular file (or a new one) is written as a temporary file in the same directory,
 * flushed, fsync'd and renamed over the target; a symlink is followed, so its target is updated
 * and the link kept; a device, FIFO or /proc link (/dev/null, /dev/stdout) is written into
 * directly, never replaced. A file this process may not write (its mode, say 0444) is not
 * replaced either. */
#ifndef GS_FILE_H
#define GS_FILE_H

#include <stddef.h>

/* Write data to path as above (replacing a regular file's content). Returns 0, or -1 with errno. */
int gs_file_write_atomic(const char *path, const void *data, size_t len);

/* May this process replace the existing file path? The rename that replaces a file needs only
 * the directory's permission, so the file's own is checked: may it be written (access(W_OK), as
 * the shell's > would find)? 0 (also when path does not exist), or -1 with errno (EACCES, ...). */
int gs_file_writable(const char *path);

/* Put the finished temporary file tmp in place of path: rename(2), but only if path may be
 * replaced (gs_file_writable). Every writer that renames over a result goes through here.
 * 0, or -1 with errno (tmp is left for the caller to remove). */
int gs_file_rename(const char *tmp, const char *path);

/* Append data to path under a lock on the file itself, so concurrent appenders (a job array
 * sharing one CSV) lose nothing and no lock file is left behind. A regular file is replaced
 * atomically by its old content plus data; header (one line, without its newline) comes first
 * when the file is new or empty, and an existing file must begin with it. A device or FIFO gets
 * header and data appended directly. Returns 0, -1 with errno, or -2 if the file begins with
 * another header (nothing written). */
int gs_file_append(const char *path, const char *header, const void *data, size_t len);

/* The file path finally names after following symlinks (which need not exist yet), malloc'd;
 * resolution stops at /proc/ (magic links such as /dev/stdout are opened, not resolved). NULL
 * with errno on a loop or an unreadable link. */
char *gs_file_resolve(const char *path);

/* Read a whole file into a malloc'd, NUL-terminated buffer; NULL with errno if it cannot. */
char *gs_file_read(const char *path, size_t *len);

/* This host's name as it goes into file names (no '/'), in host. */
void gs_file_host(char host[64]);

/* The temporary name under which path is written: DIR/.BASE.tmp.<host>.<pid>, hidden, and naming
 * its writer so a later run can tell a dead writer's leftovers from a live one's. */
void gs_file_tmp_name(char *out, size_t size, const char *path);

/* mkdir -p: dir and its missing parents (0, or -1 with errno). */
int gs_file_mkdirs(const char *dir);

#endif
