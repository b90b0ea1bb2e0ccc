subroutine gemv(m, n, A, x, y)
  implicit none
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(m, n)
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  ! Column-major: the inner loop runs down a column of A (contiguous). Each thread owns the same block of rows
  ! for every column (static schedule, same bounds), so no barrier is needed between columns.
  !$omp parallel private(i, j)
  !$omp do schedule(static)
  do i = 1, m
    y(i) = 0.0d0
  end do
  !$omp end do nowait
  do j = 1, n
    !$omp do schedule(static)
    do i = 1, m
      y(i) = y(i) + A(i, j) * x(j)
    end do
    !$omp end do nowait
  end do
  !$omp end parallel
end subroutine gemv
