subroutine gemm(m, n, k, A, B, C)
  implicit none
  integer, intent(in) :: m, n, k
  real(8), intent(in) :: A(m, k)
  real(8), intent(in) :: B(k, n)
  real(8), intent(out) :: C(m, n)
  integer :: i, j, p
  ! Column-major: each thread owns whole columns of C and sweeps them contiguously.
  !$omp parallel do private(i, p)
  do j = 1, n
    do i = 1, m
      C(i, j) = 0.0d0
    end do
    do p = 1, k
      do i = 1, m
        C(i, j) = C(i, j) + A(i, p) * B(p, j)
      end do
    end do
  end do
  !$omp end parallel do
end subroutine gemm
