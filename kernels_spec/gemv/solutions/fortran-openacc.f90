subroutine gemv(m, n, A, x, y)
  implicit none
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(m, n)
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  real(8) :: s
  !$acc parallel loop gang private(s) copyin(A, x) copyout(y)
  do i = 1, m
    s = 0.0d0
    !$acc loop vector reduction(+:s)
    do j = 1, n
      s = s + A(i, j) * x(j)
    end do
    y(i) = s
  end do
  !$acc end parallel loop
end subroutine gemv
