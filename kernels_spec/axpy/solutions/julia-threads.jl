function saxpy(n, a, x, y)
    Threads.@threads for i in 1:n
        @inbounds y[i] = a * x[i] + y[i]
    end
    return nothing
end
