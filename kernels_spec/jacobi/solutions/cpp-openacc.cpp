void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
  const long n = (long)nx * ny * nz;
#pragma acc parallel loop collapse(3) copyin(u[0:n]) copy(unew[0:n])
  for (int i = 1; i < nx - 1; ++i) {
    for (int j = 1; j < ny - 1; ++j) {
      for (int k = 1; k < nz - 1; ++k) {
        const long c = ((long)i * ny + j) * nz + k;
        unew[c] = (u[c - (long)ny * nz] + u[c + (long)ny * nz] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
      }
    }
  }
}
