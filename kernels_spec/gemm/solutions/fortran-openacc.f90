subroutine gemm(m, n, k, A, B, C)
  implicit none
  integer, intent(in) :: m, n, k
  real(8), intent(in) :: A(m, k)
  real(8), intent(in) :: B(k, n)
  real(8), intent(out) :: C(m, n)
  integer :: i, j, p
  real(8) :: s
  !$acc parallel loop collapse(2) private(s) copyin(A, B) copyout(C)
  do j = 1, n
    do i = 1, m
      s = 0.0d0
      !$acc loop seq
      do p = 1, k
        s = s + A(i, p) * B(p, j)
      end do
      C(i, j) = s
    end do
  end do
  !$acc end parallel loop
end subroutine gemm
