/* gs_kernel_list.h: a --kernel LIST, "all", "ladder" or a comma list of kernel names (or, where
 * a workload numbers its kernels, their numbers). Checked against the workload's names when the
 * command line is parsed, then resolved against the running backend's own kernel list. */
#ifndef GS_KERNEL_LIST_H
#define GS_KERNEL_LIST_H

#include "gs_backend.h"
#include "gs_error.h"

/* Is every entry of list a kernel name of `known` (NULL-terminated; 1..numbered also name
 * known[0..numbered-1]) or "ladder", in any case, none empty and no kernel named twice? Then
 * list is rewritten in lowercase, the names' own spelling, and GS_OK; else GS_USAGE with msg. */
int gs_kernel_list_check(char *list, const char *const *known, int numbered, struct gs_msg *msg);

/* The entries of a checked list that this backend runs, as a mask over its list (bit i =
 * kernels[i]): "all" is every kernel it has, "ladder" its GS_KERNEL_LADDER ones. A kernel the
 * user named that this backend lacks is GS_USAGE with a message naming what it has. */
int gs_kernel_list_select(const char *list, const char *const *known, int numbered, const struct gs_kernel *kernels,
                          int count, const char *backend, unsigned *mask, struct gs_msg *msg);

#endif
