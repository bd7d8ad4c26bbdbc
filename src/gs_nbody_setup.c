/* gs_nbody_setup.c: an N-body run's state before step 0: bodies from --ic, sizes checked, the
 * decomposition in whole tiles, buffers and queues, and the bodies (fresh or from a checkpoint)
 * on the device; and its release. */
#include "gs_nbody_setup.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_acc.h"
#include "gs_checkpoint.h"
#include "gs_ic_file.h"
#include "gs_nbody_energy.h"
#include "gs_nbody_solver.h"

/* The domains layout makes only its own slice of a preset, or receives its slice of an --ic file
 * from rank 0 (gs_nbody_setup_origin, after the decomposition); every other run makes or reads all
 * bodies here. */
static int gs_nbody_setup_sliced(const struct gs_nbody_job *job) {
  const struct gs_nbody_solver *sv = gs_nbody_solver_pick(job->o, job->run->be);
  return !job->o->restart[0] && sv && sv->layout == GS_NBODY_LAYOUT_DOMAINS;
}

/* Rank 0's bodies b (an --ic file it read) to every rank, job->n of them: the layouts that hold
 * every body on every rank. GS_OK, or GS_USAGE with msg where a rank has no room. Collective. */
static int gs_nbody_setup_share(const struct gs_nbody_job *job, struct gs_bodies *b, struct gs_msg *msg) {
  int status = GS_OK;
  if (job->run->rank != 0 && gs_ic_alloc(b, job->n) != 0)
    status = gs_error_msg(msg, "--ic %s: no memory for its %llu bodies on rank %d", job->o->ic,
                          (unsigned long long)job->n, job->run->rank);
  if (gs_error_agree(MPI_COMM_WORLD, &job->run->where, status, msg) != GS_OK) return GS_USAGE;
  double *f[] = {b->x, b->y, b->z, b->vx, b->vy, b->vz, b->m};
  const uint64_t most = (uint64_t)1 << 30; /* MPI's int counts */
  for (int k = 0; k < 7; k++)
    for (uint64_t at = 0; at < job->n; at += most)
      GS_CHECK_MPI(&job->run->where,
                   MPI_Bcast(f[k] + at, (int)(job->n - at < most ? job->n - at : most), MPI_DOUBLE, 0, MPI_COMM_WORLD));
  return GS_OK;
}

int gs_nbody_setup_bodies(struct gs_nbody_job *job, struct gs_bodies *b, struct gs_msg *msg) {
  const char *ic = job->o->ic;
  int status = GS_OK, sliced = gs_nbody_setup_sliced(job);
  job->law = GS_LAW_PLUMMER;
  job->G = 1.0;
  job->eps2 = job->o->eps * job->o->eps;
  snprintf(job->ic_name, sizeof job->ic_name, "%.63s", ic);
  if (gs_nbody_options_preset(ic)) {
    if (!sliced && gs_ic_alloc(b, job->o->n) != 0)
      GS_DIE(&job->run->where, "gs_ic_alloc", "out of memory for the bodies");
    if (ic[0] == 'p' && !sliced)
      gs_ic_plummer(b, job->o->seed);
    else if (ic[0] == 'u' && !sliced)
      gs_ic_uniform(b, job->o->seed);
    else if (ic[0] == 'd') {
      if (!sliced) gs_ic_disk(b, job->o->seed);
      /* The seed 003 model: G m = 10 with unit masses, no force closer than 0.01. */
      job->law = GS_LAW_CUTOFF;
      job->G = 10.0;
      job->eps2 = 0.0;
      job->cut2 = 0.01 * 0.01;
    }
    job->n = job->o->n;
  } else if (job->run->rank == 0) { /* one reader of the file, however many ranks */
    if (sliced)
      status = gs_ic_file_count(ic, &job->n, msg); /* read again by slices (gs_nbody_setup_origin) */
    else
      status = gs_ic_file_read(ic, b, msg), job->n = b->n;
  }
  status = gs_error_agree(MPI_COMM_WORLD, &job->run->where, status, msg);
  if (status != GS_OK) return status;
  GS_CHECK_MPI(&job->run->where, MPI_Bcast(&job->n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD));
  if (!gs_nbody_options_preset(ic)) {
    snprintf(job->ic_name, sizeof job->ic_name, "file");
    if (!sliced) return gs_nbody_setup_share(job, b, msg);
  }
  return GS_OK;
}

/* Blocks [first block, end block) of the centring sums that this rank adds: those beginning in
 * its bodies [first, first + count) (every block in exactly one rank's slice). */
static void gs_nbody_setup_blocks(const struct gs_nbody_job *job, int r, uint64_t *k0, uint64_t *k1) {
  uint64_t lo, hi;
  gs_nbody_decomp_bodies(&job->dec, r, job->n, &lo, &hi);
  *k0 = (lo + GS_IC_BLOCK - 1) / GS_IC_BLOCK, *k1 = (hi + GS_IC_BLOCK - 1) / GS_IC_BLOCK;
}

/* This rank's bodies of a preset, ids job->first .. (all but the padding), centred with the sums
 * of every rank's blocks (gs_ic.h: the bits of the whole generation, for any rank count); the
 * totals (GS_IC_SUMS) into total. Collective. */
static void gs_nbody_setup_slice(struct gs_nbody_job *job, struct gs_bodies *b, double *total) {
  const struct gs_run *run = job->run;
  uint64_t k0, k1, n = job->n, lo, hi;
  gs_nbody_decomp_bodies(&job->dec, run->rank, n, &lo, &hi);
  gs_nbody_setup_blocks(job, run->rank, &k0, &k1);
  uint64_t end = k1 * GS_IC_BLOCK < n ? k1 * GS_IC_BLOCK : n;
  uint64_t made = (end > hi ? end : hi) - lo; /* the bodies past its end that its last block holds */
  if (gs_ic_alloc(b, made) != 0) GS_DIE(&run->where, "gs_ic_alloc", "out of memory for the bodies");
  const char *ic = job->o->ic;
  if (ic[0] == 'p')
    gs_ic_plummer_slice(b, job->o->seed, lo, n);
  else if (ic[0] == 'u')
    gs_ic_uniform_slice(b, job->o->seed, lo, n);
  else
    gs_ic_disk_slice(b, job->o->seed, lo, n);
  uint64_t nblocks = (n + GS_IC_BLOCK - 1) / GS_IC_BLOCK;
  if (nblocks * GS_IC_SUMS > INT32_MAX) GS_DIE(&run->where, "MPI_Allgatherv", "more than 2^31 centring sums");
  double *sums = malloc(sizeof *sums * GS_IC_SUMS * (nblocks ? nblocks : 1));
  int *cnt = malloc(sizeof *cnt * (size_t)run->size), *disp = malloc(sizeof *disp * (size_t)run->size);
  if (!sums || !cnt || !disp) GS_DIE(&run->where, "malloc", "out of memory");
  for (int r = 0; r < run->size; r++) {
    uint64_t r0, r1;
    gs_nbody_setup_blocks(job, r, &r0, &r1);
    cnt[r] = (int)((r1 - r0) * GS_IC_SUMS), disp[r] = (int)(r0 * GS_IC_SUMS);
  }
  for (uint64_t k = k0; k < k1; k++) {
    uint64_t from = k * GS_IC_BLOCK;
    gs_ic_sums(b, from - lo, n - from < GS_IC_BLOCK ? n - from : GS_IC_BLOCK, sums + GS_IC_SUMS * k);
  }
  GS_CHECK_MPI(&run->where, MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sums, cnt, disp, MPI_DOUBLE,
                                           MPI_COMM_WORLD));
  gs_ic_total(sums, nblocks, total);
  b->n = hi - lo; /* its own bodies; the rest of the arrays is freed with them */
  if (ic[0] != 'd') gs_ic_shift(b, total); /* the disk is not centred (gs_ic_disk) */
  free(sums), free(cnt), free(disp);
}

/* The rank that holds body id (job->dec), searched from rank r on (ids come in order). */
static int gs_nbody_setup_owner(const struct gs_nbody_job *job, int r, uint64_t id) {
  while (id >= gs_nbody_decomp_first(&job->dec, r) + gs_nbody_decomp_count(&job->dec, r)) r++;
  return r;
}

/* A body of an --ic file that rank 0 read moments ago failing now (changed since?): the run stops. */
static void gs_nbody_setup_reread(const struct gs_nbody_job *job, int got, const struct gs_msg *msg) {
  char text[GS_MSG_MAX + 384];
  snprintf(text, sizeof text, "--ic %.256s: %s (did the file change while the run read it?)", job->o->ic,
           got < 0 ? msg->text : got ? "more bodies than a moment ago" : "fewer bodies than a moment ago");
  GS_DIE(&job->run->where, "gs_ic_file_next", text);
}

/* This rank's bodies of an --ic file (the domains layout; gs_nbody_setup_bodies counted them):
 * rank 0 reads the file once more, a block of GS_IC_BLOCK bodies at a time, keeps its own part of
 * each block and sends every other rank its part as it comes, so no rank holds more than its slice
 * and a block; it sums the blocks as gs_ic_whole_total does (the same bits as the replicated
 * layout's whole read) and every rank gets the totals. Collective. */
static void gs_nbody_setup_file_slice(struct gs_nbody_job *job, struct gs_bodies *b, double *total) {
  const struct gs_run *run = job->run;
  const int tag = 7; /* rank 0's parts, in id order (MPI keeps one sender's order) */
  uint64_t n = job->n, lo, hi;
  gs_nbody_decomp_bodies(&job->dec, run->rank, n, &lo, &hi);
  struct gs_bodies blk;
  double *pack = malloc(sizeof *pack * 7 * GS_IC_BLOCK);
  if (gs_ic_alloc(b, hi - lo) != 0 || gs_ic_alloc(&blk, GS_IC_BLOCK) != 0 || !pack)
    GS_DIE(&run->where, "gs_ic_alloc", "out of memory for the bodies");
  double *own[] = {b->x, b->y, b->z, b->vx, b->vy, b->vz, b->m};
  double *in[] = {blk.x, blk.y, blk.z, blk.vx, blk.vy, blk.vz, blk.m};
  if (run->rank == 0) {
    struct gs_ic_file f;
    struct gs_msg msg;
    double v[7], s[GS_IC_SUMS];
    int got = 0, r = 0;
    if (gs_ic_file_open(&f, job->o->ic, &msg) != GS_OK) gs_nbody_setup_reread(job, -1, &msg);
    for (int k = 0; k < GS_IC_SUMS; k++) total[k] = 0;
    for (uint64_t from = 0; from < n; from += GS_IC_BLOCK) {
      uint64_t cnt = n - from < GS_IC_BLOCK ? n - from : GS_IC_BLOCK;
      for (uint64_t i = 0; i < cnt; i++) {
        if ((got = gs_ic_file_next(&f, v, &msg)) != 1) gs_nbody_setup_reread(job, got, &msg);
        for (int k = 0; k < 7; k++) in[k][i] = v[k];
      }
      gs_ic_sums(&blk, 0, cnt, s);
      for (int k = 0; k < GS_IC_SUMS; k++) total[k] += s[k];
      for (uint64_t i = 0, part; i < cnt; i += part) { /* the block's parts, rank by rank */
        r = gs_nbody_setup_owner(job, r, from + i);
        uint64_t end = gs_nbody_decomp_first(&job->dec, r) + gs_nbody_decomp_count(&job->dec, r);
        part = end - (from + i) < cnt - i ? end - (from + i) : cnt - i;
        for (int k = 0; k < 7; k++)
          memcpy(r == 0 ? own[k] + from + i : pack + k * part, in[k] + i, part * sizeof(double));
        if (r != 0) GS_CHECK_MPI(&run->where, MPI_Send(pack, (int)(7 * part), MPI_DOUBLE, r, tag, MPI_COMM_WORLD));
      }
    }
    if ((got = gs_ic_file_next(&f, v, &msg)) != 0) gs_nbody_setup_reread(job, got, &msg);
    gs_ic_file_close(&f);
  } else {
    for (uint64_t at = lo; at < hi;) {
      MPI_Status st;
      int len;
      GS_CHECK_MPI(&run->where, MPI_Recv(pack, 7 * GS_IC_BLOCK, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, &st));
      GS_CHECK_MPI(&run->where, MPI_Get_count(&st, MPI_DOUBLE, &len));
      uint64_t part = (uint64_t)len / 7;
      for (int k = 0; k < 7; k++) memcpy(own[k] + (at - lo), pack + k * part, part * sizeof(double));
      at += part;
    }
  }
  GS_CHECK_MPI(&run->where, MPI_Bcast(total, GS_IC_SUMS, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  gs_ic_free(&blk), free(pack);
}

void gs_nbody_setup_origin(struct gs_nbody_job *job, struct gs_bodies *b, struct gs_ckpt_reader *ckpt,
                           struct gs_nbody_origin *from) {
  double total[GS_IC_SUMS];
  *from = (struct gs_nbody_origin){.ckpt = ckpt};
  if (job->o->restart[0]) return;
  if (gs_nbody_setup_sliced(job)) {
    uint64_t end;
    if (gs_nbody_options_preset(job->o->ic))
      gs_nbody_setup_slice(job, b, total);
    else
      gs_nbody_setup_file_slice(job, b, total);
    gs_nbody_decomp_bodies(&job->dec, job->run->rank, job->n, &from->first, &end);
  } else
    gs_ic_whole_total(b, total);
  from->b = b;
  from->mass = total[job->prec ? 0 : 7];
}

/* The masses of count packed vectors pos, added in order. */
static double gs_nbody_setup_block(const struct gs_nbody_job *job, const void *pos, uint64_t count) {
  double s = 0;
  for (uint64_t i = 0; i < count; i++)
    s += job->prec ? ((const double *)pos)[4 * i + 3] : ((const float *)pos)[4 * i + 3];
  return s;
}

double gs_nbody_setup_mass(const struct gs_nbody_job *job, const void *pos) {
  double mass = 0;
  for (uint64_t from = 0; from < job->n; from += GS_IC_BLOCK) /* gs_ic_total's order */
    mass += gs_nbody_setup_block(job, (const char *)pos + from * job->esz,
                                 job->n - from < GS_IC_BLOCK ? job->n - from : GS_IC_BLOCK);
  return mass;
}

/* A checkpoint that read sound moments ago failing a read now: the run stops. */
static void gs_nbody_setup_read(const struct gs_nbody_job *job, struct gs_ckpt_reader *ckpt, uint64_t offset,
                                void *buf, size_t bytes) {
  struct gs_msg msg;
  if (gs_checkpoint_read_part(ckpt, offset, buf, bytes, &msg) != GS_OK)
    GS_DIE(&job->run->where, "gs_checkpoint_read_part", msg.text);
}

double gs_nbody_setup_mass_of(const struct gs_nbody_job *job, struct gs_ckpt_reader *ckpt) {
  double mass = 0;
  if (job->run->rank == 0) {
    void *pos = malloc(GS_IC_BLOCK * job->esz);
    if (!pos) GS_DIE(&job->run->where, "malloc", "out of memory");
    for (uint64_t from = 0; from < job->n; from += GS_IC_BLOCK) { /* as gs_nbody_setup_mass */
      uint64_t count = job->n - from < GS_IC_BLOCK ? job->n - from : GS_IC_BLOCK;
      gs_nbody_setup_read(job, ckpt, from * job->esz, pos, count * job->esz);
      mass += gs_nbody_setup_block(job, pos, count);
    }
    free(pos);
  }
  GS_CHECK_MPI(&job->run->where, MPI_Bcast(&mass, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  return mass;
}

void gs_nbody_setup_scatter(const struct gs_nbody_job *job, struct gs_ckpt_reader *ckpt, int k, void *slice) {
  const int me = job->run->rank, P = job->run->size, *tiles = job->dec.tiles, *tile0 = job->dec.tile0;
  const size_t tile = (size_t)GS_NBODY_TILE * job->esz, part = job->npad * job->esz;
  if (me != 0) {
    GS_CHECK_MPI(&job->run->where,
                 MPI_Recv(slice, tiles[me], job->tile_type, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    return;
  }
  /* Each other rank's slice through rank 0's own (none is larger: gs_nbody_decomp.h), its own last. */
  for (int r = 1; r < P; r++) {
    gs_nbody_setup_read(job, ckpt, k * part + (size_t)tile0[r] * tile, slice, (size_t)tiles[r] * tile);
    GS_CHECK_MPI(&job->run->where, MPI_Send(slice, tiles[r], job->tile_type, r, k, MPI_COMM_WORLD));
  }
  gs_nbody_setup_read(job, ckpt, k * part + (size_t)tile0[0] * tile, slice, (size_t)tiles[0] * tile);
}

int gs_nbody_setup_check_size(const struct gs_nbody_job *job, uint64_t n, struct gs_msg *msg) {
  const struct gs_run *run = job->run;
  struct gs_nbody_decomp d;
  int status = gs_nbody_decomp_make(&d, n, run->size, msg);
  if (status == GS_FAILED) GS_DIE(&run->where, "gs_nbody_decomp_make", "out of memory");
  gs_nbody_decomp_free(&d);
  /* Each rank holds every position twice on the device (and the step's start copy) and once in
   * pinned host memory, and five vectors per body of its slice (not in the domains layout, whose
   * solver holds its own), eight diagnostic doubles per body of a chunk of it; the solver what it adds (the tree its workspace and forces for every body);
   * while initial conditions are made, all bodies in double on the host (a domains run: its slice
   * and a block, and the block sums). The CPU backend's device is host memory, shared by the
   * node's ranks. */
  uint64_t npad = (n + GS_NBODY_TILE - 1) / GS_NBODY_TILE * GS_NBODY_TILE;
  int host = (run->be->caps & GS_CAP_HOST_MEMORY) != 0;
  double esz = (double)job->esz, slice = (double)npad / run->size + GS_NBODY_TILE;
  const struct gs_nbody_solver *sv = gs_nbody_solver_pick(job->o, run->be);
  /* the replicated buffers: none where the solver's ranks hold only their own bodies */
  double all = sv && sv->layout == GS_NBODY_LAYOUT_DOMAINS ? 0 : (double)npad * esz * (host ? 3 : 2);
  /* the initial conditions: a domains run only its slice and a block (and the block sums) */
  double ic = gs_nbody_setup_sliced(job) ? 56.0 * (slice + GS_IC_BLOCK) + 64.0 * (double)n / GS_IC_BLOCK
                                         : 56.0 * (double)n;
  double own = sv && sv->layout == GS_NBODY_LAYOUT_DOMAINS ? 0 : slice * 5 * esz;
  double need = all + own + 64 * fmin(slice, (double)GS_NBODY_ENERGY_CHUNK) + (host ? ic : 0);
  if (sv) need += sv->memory(job, n);
  if (status == GS_OK && run->mem_bytes > 0 && need * (host ? run->local_size : 1) > run->mem_bytes)
    status = gs_error_msg(msg,
                          "%llu bodies: %.3g GB per rank (%s precision) does not fit in the %.3g GB of memory of "
                          "rank %d's %s%s%s",
                          (unsigned long long)n, need / 1e9, job->prec ? "double" : "single", run->mem_bytes / 1e9,
                          run->rank, host ? "host" : "GPU",
                          host && run->local_size > 1 ? ", shared by the node's ranks" : "", run->mem_note);
  return gs_error_agree(MPI_COMM_WORLD, &run->where, status, msg);
}

void gs_nbody_setup_decompose(struct gs_nbody_job *job) {
  struct gs_msg msg;
  if (gs_nbody_decomp_make(&job->dec, job->n, job->run->size, &msg) != GS_OK)
    GS_DIE(&job->run->where, "gs_nbody_decomp_make", msg.text);
  job->npad = job->dec.npad;
  job->first = gs_nbody_decomp_first(&job->dec, job->run->rank);
  job->count = gs_nbody_decomp_count(&job->dec, job->run->rank);
  GS_CHECK_MPI(&job->run->where, MPI_Type_contiguous((int)(GS_NBODY_TILE * job->esz), MPI_BYTE, &job->tile_type));
  GS_CHECK_MPI(&job->run->where, MPI_Type_commit(&job->tile_type));
}

void gs_nbody_setup_alloc(struct gs_nbody_job *job) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  size_t slice = (job->count ? job->count : 1) * job->esz;
  int all = job->solver->layout != GS_NBODY_LAYOUT_DOMAINS; /* domains: each rank its own bodies, no N-body buffers */
  job->h_pos = all ? be->alloc_host(c, job->npad * job->esz) : NULL;
  job->slice_offset = malloc(sizeof *job->slice_offset * (size_t)job->run->size);
  job->slice_bytes = malloc(sizeof *job->slice_bytes * (size_t)job->run->size);
  if (!job->slice_offset || !job->slice_bytes) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int r = 0; r < job->run->size; r++)
    job->slice_offset[r] = gs_nbody_decomp_first(&job->dec, r) * job->esz,
    job->slice_bytes[r] = gs_nbody_decomp_count(&job->dec, r) * job->esz;
  job->qc = be->queue_create(c);
  job->qcopy = be->queue_create(c);
  int nev = 2 * job->run->size + 2;
  job->ev = malloc(sizeof *job->ev * (size_t)nev);
  if (!job->ev) GS_DIE(&job->run->where, "malloc", "out of memory");
  for (int e = 0; e < nev; e++)
    job->ev[e] = be->event_create(c);
  job->gate = be->gate_create(c);
  job->d_pos = all ? be->alloc_device(c, job->npad * job->esz) : NULL;
  job->d_vel = all ? be->alloc_device(c, slice) : NULL;
  job->d_acc = all ? be->alloc_device(c, slice) : NULL;
  job->d_acc_scratch = all ? be->alloc_device(c, slice) : NULL;
  job->terms_room = job->count < GS_NBODY_ENERGY_CHUNK ? (job->count ? job->count : 1) : GS_NBODY_ENERGY_CHUNK;
  job->d_terms = be->alloc_device(c, 8 * job->terms_room * sizeof(double));
  job->d_sums = be->alloc_device(c, 8 * sizeof(union gs_acc));
  /* The sums use the reduction kernel the backend recommends for its own use (else its first). */
  job->rkernel = be->reduce->kernels[0].id;
  for (int i = 0; i < be->reduce->count; i++)
    if (be->reduce->kernels[i].flags & GS_KERNEL_INTERNAL) job->rkernel = be->reduce->kernels[i].id;
  job->reduce_ws_bytes = be->reduce->workspace(c, job->rkernel, GS_DTYPE_DOUBLE, GS_OP_SUM, job->terms_room);
  job->reduce_ws = job->reduce_ws_bytes ? be->alloc_device(c, job->reduce_ws_bytes) : NULL;
  if (job->reduce_ws) be->zero_device(c, job->reduce_ws, job->reduce_ws_bytes, job->qc);
}

void gs_nbody_setup_load_bodies(struct gs_nbody_job *job, const struct gs_bodies *b) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  memset(job->h_pos, 0, job->npad * job->esz);
  void *h_vel = calloc(job->count ? job->count : 1, job->esz);
  if (!h_vel) GS_DIE(&job->run->where, "calloc", "out of memory");
  for (uint64_t i = 0; i < job->n; i++) {
    double q[4] = {b->x[i], b->y[i], b->z[i], b->m[i]}, v[4] = {b->vx[i], b->vy[i], b->vz[i], 0};
    int mine = i >= job->first && i < job->first + job->count;
    for (int c = 0; c < 4; c++) {
      if (job->prec)
        ((double *)job->h_pos)[4 * i + c] = q[c];
      else
        ((float *)job->h_pos)[4 * i + c] = (float)q[c];
      if (mine && job->prec)
        ((double *)h_vel)[4 * (i - job->first) + c] = v[c];
      else if (mine)
        ((float *)h_vel)[4 * (i - job->first) + c] = (float)v[c];
    }
  }
  be->copy_h2d(c, job->d_pos, job->h_pos, job->npad * job->esz, job->qc);
  be->copy_h2d(c, job->d_vel, h_vel, job->count * job->esz, job->qc);
  be->queue_sync(c, job->qc);
  free(h_vel);
}

void gs_nbody_setup_load_checkpoint(struct gs_nbody_job *job, struct gs_ckpt_reader *ckpt, void **acc_slice) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  size_t part = job->npad * job->esz, mine = (job->count ? job->count : 1) * job->esz;
  if (job->run->rank == 0) gs_nbody_setup_read(job, ckpt, 0, job->h_pos, part); /* this layout holds all N */
  GS_CHECK_MPI(&job->run->where,
               MPI_Bcast(job->h_pos, (int)(job->npad / GS_NBODY_TILE), job->tile_type, 0, MPI_COMM_WORLD));
  void *vel = malloc(mine);
  *acc_slice = malloc(mine);
  if (!vel || !*acc_slice) GS_DIE(&job->run->where, "malloc", "out of memory");
  gs_nbody_setup_scatter(job, ckpt, 1, vel);
  gs_nbody_setup_scatter(job, ckpt, 2, *acc_slice);
  be->copy_h2d(c, job->d_pos, job->h_pos, part, job->qc);
  be->copy_h2d(c, job->d_vel, vel, job->count * job->esz, job->qc);
  be->queue_sync(c, job->qc);
  free(vel);
}

void gs_nbody_setup_free(struct gs_nbody_job *job) {
  const struct gs_backend *be = job->be;
  gs_ctx *c = job->ctx;
  void *dev[] = {job->d_pos,  job->d_vel,    job->d_acc,    job->d_acc_scratch,
                 job->d_terms, job->d_sums, job->force_ws, job->reduce_ws};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
    if (dev[i]) be->free_device(c, dev[i]);
  for (int e = 0; e < 2 * job->run->size + 2; e++)
    be->event_destroy(c, job->ev[e]);
  be->gate_destroy(c, job->gate);
  be->queue_destroy(c, job->qc);
  be->queue_destroy(c, job->qcopy);
  if (job->h_pos) be->free_host(c, job->h_pos);
  MPI_Type_free(&job->tile_type);
  free(job->ev);
  free(job->slice_offset);
  free(job->slice_bytes);
  gs_exchange_close(&job->xchg);
  gs_nbody_decomp_free(&job->dec);
  gs_report_free(&job->rep);
}
