subroutine gemv(m, n, A, x, y)
  implicit none
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(m, n)
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  real(8) :: s
  !$omp parallel do private(j, s)
  do i = 1, m
    s = 0.0d0
    do j = 1, n
      s = s + A(i, j) * x(j)
    end do
    y(i) = s
  end do
  !$omp end parallel do
end subroutine gemv
