subroutine jacobi(nx, ny, nz, u, unew)
  implicit none
  integer, intent(in) :: nx, ny, nz
  real(8), intent(in) :: u(nx, ny, nz)
  real(8), intent(inout) :: unew(nx, ny, nz)
  integer :: i, j, k
  !$acc parallel loop collapse(3) copyin(u) copy(unew)
  do k = 2, nz - 1
    do j = 2, ny - 1
      do i = 2, nx - 1
        unew(i, j, k) = (u(i-1, j, k) + u(i+1, j, k) + u(i, j-1, k) + u(i, j+1, k) &
                         + u(i, j, k-1) + u(i, j, k+1)) / 6.0d0
      end do
    end do
  end do
  !$acc end parallel loop
end subroutine jacobi
