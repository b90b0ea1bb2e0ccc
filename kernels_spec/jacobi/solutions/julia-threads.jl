function jacobi(nx, ny, nz, u, unew)
    Threads.@threads for k in 2:(nz - 1)
        for j in 2:(ny - 1), i in 2:(nx - 1)
            @inbounds unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] +
                                       u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
        end
    end
    return nothing
end
