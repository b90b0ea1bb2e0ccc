subroutine spmv(n, nnz, row_ptr, col_idx, values, x, y)
  implicit none
  integer, intent(in) :: n, nnz
  integer, intent(in) :: row_ptr(n + 1), col_idx(nnz)
  real(8), intent(in) :: values(nnz), x(n)
  real(8), intent(out) :: y(n)
  integer :: i, k
  real(8) :: s
  !$acc parallel loop gang vector private(s) copyin(row_ptr, col_idx, values, x) copyout(y)
  do i = 1, n
    s = 0.0d0
    !$acc loop seq
    do k = row_ptr(i), row_ptr(i + 1) - 1
      s = s + values(k) * x(col_idx(k))
    end do
    y(i) = s
  end do
  !$acc end parallel loop
end subroutine spmv
