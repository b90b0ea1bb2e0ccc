subroutine saxpy(n, a, x, y)
  implicit none
  integer, intent(in) :: n
  real(4), intent(in) :: a
  real(4), intent(in) :: x(n)
  real(4), intent(inout) :: y(n)
  integer :: i
  !$acc parallel loop copyin(x) copy(y)
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
  !$acc end parallel loop
end subroutine saxpy
