/* gs_backend_cpu_nbody.c: the CPU backend's N-body primitives (OpenMP): the direct-sum force
 * over a target range and a source range, the leapfrog pieces and the diagnostic terms, on the
 * same (x, y, z, m) quadruples as the GPU kernels, in float or double. */
#include <math.h>

#include "gs_backend_cpu.h"
#include "gs_backend_cpu_nbody.h"

/* Forces on targets [i_first, +i_count) from sources [j_first, +j_count), type T. */
#define GS_NBODY_CPU_FORCES(T, SQRT)                                                           \
  do {                                                                                         \
    const T *p = (const T *)a->pos;                                                            \
    T *acc = (T *)a->acc;                                                                      \
    const T G = (T)a->G, eps2 = (T)a->eps2, cut2 = (T)a->cut2;                                 \
    _Pragma("omp parallel for schedule(static)")                                               \
    for (uint64_t k = 0; k < a->i_count; k++) {                                                \
      if (a->stop && a->stop()) continue; /* abandoned: one body's work bounds the wait */     \
      const uint64_t i = a->i_first + k;                                                       \
      const T xi = p[4 * i], yi = p[4 * i + 1], zi = p[4 * i + 2];                             \
      T ax = 0, ay = 0, az = 0, phi = 0;                                                       \
      for (uint64_t j = a->j_first; j < a->j_first + a->j_count; j++) {                        \
        const T dx = p[4 * j] - xi, dy = p[4 * j + 1] - yi, dz = p[4 * j + 2] - zi, m = p[4 * j + 3]; \
        T r2 = dx * dx + dy * dy + dz * dz;                                                    \
        if (a->law == GS_LAW_CUTOFF) {                                                         \
          if (r2 < cut2) continue;                                                             \
        } else {                                                                               \
          if (j == i) continue;                                                                \
          r2 += eps2;                                                                          \
        }                                                                                      \
        const T inv = (T)1 / SQRT(r2), s = G * m * inv * inv * inv;                            \
        ax += dx * s, ay += dy * s, az += dz * s;                                              \
        phi -= G * m * inv;                                                                    \
      }                                                                                        \
      if (!a->potential) phi = 0;                                                              \
      if (a->accumulate) {                                                                     \
        acc[4 * k] += ax, acc[4 * k + 1] += ay, acc[4 * k + 2] += az;                          \
        if (a->potential) acc[4 * k + 3] += phi;                                               \
      } else {                                                                                 \
        acc[4 * k] = ax, acc[4 * k + 1] = ay, acc[4 * k + 2] = az, acc[4 * k + 3] = phi;       \
      }                                                                                        \
    }                                                                                          \
  } while (0)

void gs_backend_cpu_nbody_forces(const struct gs_nbody_force_args *a) {
  if (a->precision) GS_NBODY_CPU_FORCES(double, sqrt);
  else GS_NBODY_CPU_FORCES(float, sqrtf);
}

/* x[4k + c] += y[4k + c] * dt for c = 0, 1, 2 (w untouched), type T. */
#define GS_NBODY_CPU_AXPY(T, X, Y)                       \
  do {                                                   \
    T *x = (T *)(X);                                     \
    const T *y = (const T *)(Y);                         \
    const T h = (T)dt;                                   \
    _Pragma("omp parallel for schedule(static)")         \
    for (uint64_t k = 0; k < count; k++)                 \
      for (int c = 0; c < 3; c++) x[4 * k + c] += y[4 * k + c] * h; \
  } while (0)

void gs_backend_cpu_nbody_kick(int precision, void *vel, const void *acc, uint64_t count, double dt) {
  if (precision) GS_NBODY_CPU_AXPY(double, vel, acc);
  else GS_NBODY_CPU_AXPY(float, vel, acc);
}

void gs_backend_cpu_nbody_drift(int precision, void *pos, const void *vel, uint64_t count, double dt) {
  if (precision) GS_NBODY_CPU_AXPY(double, pos, vel);
  else GS_NBODY_CPU_AXPY(float, pos, vel);
}

#define GS_NBODY_CPU_TERMS(T)                                                                   \
  do {                                                                                          \
    const T *p = (const T *)pos, *v = (const T *)vel, *a = (const T *)acc;                      \
    _Pragma("omp parallel for schedule(static)")                                                \
    for (uint64_t k = 0; k < count; k++) {                                                      \
      const double m = p[4 * k + 3], vx = v[4 * k], vy = v[4 * k + 1], vz = v[4 * k + 2];       \
      terms[k] = 0.5 * m * (vx * vx + vy * vy + vz * vz);                                       \
      terms[count + k] = 0.5 * m * a[4 * k + 3];                                                \
      terms[2 * count + k] = m * vx, terms[3 * count + k] = m * vy, terms[4 * count + k] = m * vz; \
      terms[5 * count + k] = m * p[4 * k], terms[6 * count + k] = m * p[4 * k + 1];             \
      terms[7 * count + k] = m * p[4 * k + 2];                                                  \
    }                                                                                           \
  } while (0)

void gs_backend_cpu_nbody_terms(int precision, const void *pos, const void *vel, const void *acc, uint64_t count, double *terms) {
  if (precision) GS_NBODY_CPU_TERMS(double);
  else GS_NBODY_CPU_TERMS(float);
}

static size_t gs_cpu_nbody_workspace(gs_ctx *c, const struct gs_nbody_force_args *a) {
  (void)c, (void)a;
  return 0;
}

static void gs_cpu_nbody_forces(gs_ctx *c, const struct gs_nbody_force_args *a, gs_queue *q) {
  (void)c, (void)q;
  gs_backend_cpu_nbody_forces(a);
}

static void gs_cpu_nbody_kick(gs_ctx *c, int prec, void *vel, const void *acc, uint64_t count, double dt, gs_queue *q) {
  (void)c, (void)q;
  gs_backend_cpu_nbody_kick(prec, vel, acc, count, dt);
}

static void gs_cpu_nbody_drift(gs_ctx *c, int prec, void *pos, const void *vel, uint64_t count, double dt, gs_queue *q) {
  (void)c, (void)q;
  gs_backend_cpu_nbody_drift(prec, pos, vel, count, dt);
}

static void gs_cpu_nbody_terms(gs_ctx *c, int prec, const void *pos, const void *vel, const void *acc, uint64_t count,
                               double *terms, gs_queue *q) {
  (void)c, (void)q;
  gs_backend_cpu_nbody_terms(prec, pos, vel, acc, count, terms);
}

/* One kernel: the OpenMP direct sum (the drivers' reference is a separate double sum). A NULL
 * name ends the list (gs_backend.c reads it so, for --kernel's names). */
const struct gs_kernel gs_backend_cpu_nbody_kernels[] = {
    {"omp", "OpenMP direct sum on the host", 0, GS_KERNEL_INTERNAL},
    {NULL, NULL, 0, 0},
};

const struct gs_nbody_ops gs_backend_cpu_nbody_ops = {
    .kernels = gs_backend_cpu_nbody_kernels,
    .count = 1,
    .workspace = gs_cpu_nbody_workspace,
    .forces = gs_cpu_nbody_forces,
    .kick = gs_cpu_nbody_kick,
    .drift = gs_cpu_nbody_drift,
    .terms = gs_cpu_nbody_terms,
};
