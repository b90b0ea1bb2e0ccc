#include <omp.h>

void stencil2d(int nx, int ny, const double *u, double *unew) {
#pragma omp parallel for
  for (int i = 1; i < nx - 1; ++i)
    for (int j = 1; j < ny - 1; ++j)
      unew[i * ny + j] = 0.25 * (u[(i - 1) * ny + j] + u[(i + 1) * ny + j] + u[i * ny + j - 1] + u[i * ny + j + 1]);
}
