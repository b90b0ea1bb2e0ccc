! The matrix, b and x stay resident on the device for the whole solve (acc data); only the scalar
! reductions come back each iteration, and x is copied back at the end.
subroutine cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter)
  implicit none
  integer, intent(in) :: n, nnz, max_iter
  integer, intent(in) :: row_ptr(n + 1), col_idx(nnz)
  real(8), intent(in) :: values(nnz), b(n), tol
  real(8), intent(inout) :: x(n)
  real(8), allocatable :: r(:), p(:), ap(:)
  real(8) :: rr, rr_new, bb, bnorm, pap, alpha, beta, s
  integer :: i, k, it

  allocate(r(n), p(n), ap(n))
  !$acc data copyin(row_ptr, col_idx, values, b) copy(x) create(r, p, ap)
  ! r = b - A*x, p = r
  rr = 0.0d0
  bb = 0.0d0
  !$acc parallel loop gang vector private(s) reduction(+:rr, bb)
  do i = 1, n
    s = 0.0d0
    !$acc loop seq
    do k = row_ptr(i), row_ptr(i + 1) - 1
      s = s + values(k) * x(col_idx(k))
    end do
    r(i) = b(i) - s
    p(i) = r(i)
    rr = rr + r(i) * r(i)
    bb = bb + b(i) * b(i)
  end do
  !$acc end parallel loop
  bnorm = sqrt(bb)
  if (bnorm == 0.0d0) then
    !$acc parallel loop
    do i = 1, n
      x(i) = 0.0d0
    end do
    !$acc end parallel loop
  else
    do it = 1, max_iter
      if (sqrt(rr) <= tol * bnorm) exit
      pap = 0.0d0
      !$acc parallel loop gang vector private(s) reduction(+:pap)
      do i = 1, n
        s = 0.0d0
        !$acc loop seq
        do k = row_ptr(i), row_ptr(i + 1) - 1
          s = s + values(k) * p(col_idx(k))
        end do
        ap(i) = s
        pap = pap + p(i) * s
      end do
      !$acc end parallel loop
      alpha = rr / pap
      rr_new = 0.0d0
      !$acc parallel loop gang vector reduction(+:rr_new)
      do i = 1, n
        x(i) = x(i) + alpha * p(i)
        r(i) = r(i) - alpha * ap(i)
        rr_new = rr_new + r(i) * r(i)
      end do
      !$acc end parallel loop
      beta = rr_new / rr
      rr = rr_new
      !$acc parallel loop gang vector
      do i = 1, n
        p(i) = r(i) + beta * p(i)
      end do
      !$acc end parallel loop
    end do
  end if
  !$acc end data
  deallocate(r, p, ap)
end subroutine cg
