subroutine saxpy(n, a, x, y)
  implicit none
  integer, intent(in) :: n
  real(4), intent(in) :: a
  real(4), intent(in) :: x(n)
  real(4), intent(inout) :: y(n)
  integer :: i
  !$omp target teams distribute parallel do map(to: x) map(tofrom: y)
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
  !$omp end target teams distribute parallel do
end subroutine saxpy
