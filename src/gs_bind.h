/* gs_bind.h: which GPU each rank takes. Pure logic (no MPI, no CUDA) so the unit tests can
 * simulate any node size and CUDA_VISIBLE_DEVICES; gs_mpi.c applies it to the real job. */
#ifndef GS_BIND_H
#define GS_BIND_H

#include "gs_error.h"

#define GS_PCI_MAX 32

/* Devices the CUDA runtime shows for a CUDA_VISIBLE_DEVICES value (NULL = unset) on a machine
 * with `physical` devices: entries are indices or UUIDs; the list ends at the first invalid or
 * repeated index, as CUDA does; an empty value hides every device. */
int gs_bind_visible_count(const char *cuda_visible_devices, int physical);

/* Device index for a rank under policy "local" (node-local rank mod ndev), "none" (-1: leave the
 * runtime's default, device 0) or a list "2,0,1" indexed by node-local rank. ndev = visible
 * devices. Returns GS_OK with *gpu set, or GS_USAGE with msg (list too short, index too big). */
int gs_bind_choose(const char *policy, int local_rank, int local_size, int ndev, int share, int *gpu,
                   struct gs_msg *msg);

/* First pair of node-local ranks (*a < *b) that got the same physical GPU, identified by PCI bus
 * id; returns 1 if there is one, 0 if every rank has its own. */
int gs_bind_find_shared(const char (*pci)[GS_PCI_MAX], int count, int *a, int *b);

#endif
