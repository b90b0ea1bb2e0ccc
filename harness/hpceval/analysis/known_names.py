"""Names a suggestion may use without defining them: what the language, its runtime and the known libraries give.

Why: `incomplete` (analysis.completeness) charges the LLM for calls to helpers and types it never defines; a name
that the language or a library of the requested models provides must never count as missing, and a near miss of
such a name is a typo (a `build_error`), not a missing helper. Lists are deliberately generous: a false
`incomplete` would hide a kernel that could have been graded. Library families are matched by prefix.
"""

from __future__ import annotations

import builtins
import ctypes
import ctypes.util
import difflib
from functools import cache

C_FUNCTIONS = set("""
sqrt sqrtf sqrtl cbrt fabs fabsf abs labs llabs pow powf exp expf exp2 log logf log2 log10 sin sinf cos cosf tan
tanf asin acos atan atan2 sinh cosh tanh floor floorf ceil ceilf round roundf trunc fmod fmodf fma fmaf fmax fmaxf
fmin fminf hypot isnan isinf isfinite signbit copysign nan ldexp frexp modf rint lrint erf erfc tgamma lgamma
printf fprintf sprintf snprintf puts putchar fputs fgets scanf sscanf fscanf fopen fclose fflush fread fwrite getchar
perror malloc calloc realloc free aligned_alloc posix_memalign exit abort atexit atoi atof atol strtol strtod strtof
rand srand rand_r drand48 srand48 qsort bsearch getenv system memcpy memset memmove memcmp strcmp strncmp strcpy
strncpy strlen strcat strdup clock time gettimeofday clock_gettime difftime assert sizeof alignof static_cast
dynamic_cast reinterpret_cast const_cast decltype typeid offsetof va_start va_end va_arg main
min max swap fill fill_n copy copy_n transform accumulate inner_product reduce for_each sort iota begin end size
data move forward make_pair make_tuple tie get to_string stoi stod sin_pi exit_success numeric_limits
cout cerr endl setw setprecision fixed scientific getline
__syncthreads __syncwarp __threadfence __shfl_down_sync __shfl_xor_sync __shfl_sync __ldg __fmaf_rn __fdividef
atomicAdd atomicSub atomicMax atomicMin atomicExch atomicCAS atomicInc atomicDec atomicAnd atomicOr
make_float2 make_float3 make_float4 make_double2 make_int2 make_int3 dim3 rsqrt rsqrtf saturate
KOKKOS_LAMBDA KOKKOS_INLINE_FUNCTION KOKKOS_FUNCTION __global__ __device__ __host__
""".split())
C_PREFIXES = ("omp_", "acc_", "cuda", "cublas", "cusparse", "cusolver", "curand", "cufft", "hip", "rocblas",
              "rocsparse", "MPI_", "cblas_", "LAPACKE_", "mkl_", "__builtin", "__", "thrust", "Kokkos", "sycl",
              "std", "_mm", "nv")
C_TYPES = set("""
size_t ssize_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t
FILE va_list clock_t time_t timeval timespec dim3 half __half float2 float3 float4 double2 double3 double4 int2 int3
int4 vector array string complex valarray pair tuple map unordered_map set unique_ptr shared_ptr function
initializer_list span chrono high_resolution_clock steady_clock duration time_point ostream istream
View RangePolicy MDRangePolicy TeamPolicy Rank LayoutLeft LayoutRight HostSpace DefaultExecutionSpace queue
buffer handler range nd_range id item accessor device_vector host_vector placeholders
""".split())
C_STD_HEADERS = set("""
algorithm array atomic bitset cassert cctype cerrno cfloat chrono climits cmath complex cstddef cstdint cstdio
cstdlib cstring ctime deque exception fstream functional initializer_list iomanip iostream istream iterator limits
list map memory mutex new numeric optional ostream queue random ratio set span sstream stack stdexcept string
string_view thread tuple type_traits unordered_map unordered_set utility valarray vector execution numbers
assert.h ctype.h errno.h float.h limits.h math.h stddef.h stdint.h stdio.h stdlib.h string.h time.h stdbool.h
sys/time.h unistd.h malloc.h immintrin.h x86intrin.h omp.h openacc.h mpi.h cblas.h lapacke.h mkl.h mkl_cblas.h
cuda.h cuda_runtime.h cuda_runtime_api.h device_launch_parameters.h cublas_v2.h cublas.h cusparse.h cusparse_v2.h
cuda_fp16.h curand.h curand_kernel.h cooperative_groups.h hip/hip_runtime.h hip/hip_runtime_api.h
hipblas.h hipblas/hipblas.h hipsparse.h hipsparse/hipsparse.h rocblas.h Kokkos_Core.hpp Kokkos_Macros.hpp
sycl/sycl.hpp CL/sycl.hpp sycl.hpp
""".split())
C_HEADER_PREFIXES = ("thrust/", "Kokkos", "sycl/", "CL/", "hip/", "cuda", "cub/", "oneapi/", "mkl", "sys/",
                     "openacc")

FORTRAN_INTRINSICS = set("""
abs achar acos acosh adjustl adjustr aimag aint all allocated anint any asin asinh associated atan atan2 atanh
bit_size btest ceiling char cmplx conjg cos cosh count cpu_time cshift date_and_time dble digits dim dot_product
dprod eoshift epsilon exp exponent float floor fraction huge iachar iand ibclr ibits ibset ichar ieor index int ior
ishft ishftc kind lbound len len_trim log log10 logical matmul max maxloc maxval merge min minloc minval mod modulo
move_alloc mvbits nearest nint not pack precision present product radix random_number random_seed range real
repeat reshape rrspacing scale scan selected_int_kind selected_real_kind set_exponent shape sign sin sinh size
sngl spacing spread sqrt sum system_clock tan tanh tiny transfer transpose trim ubound unpack verify exit
get_command_argument command_argument_count get_environment_variable execute_command_line norm2 c_loc c_f_pointer
c_sizeof c_associated storage_size findloc is_contiguous new_line dfloat idint real64 real32 int32 int64
""".split())
FORTRAN_PREFIXES = ("omp_", "acc_", "mpi_", "cublas", "cusparse", "cuda", "hip", "dgemv", "sgemv", "dgemm",
                    "sgemm", "daxpy", "saxpy", "ddot", "sdot", "dscal", "sscal", "dcopy", "scopy", "dnrm2", "snrm2",
                    "mkl_", "ieee_", "c_")
FORTRAN_MODULES = set("""
omp_lib omp_lib_kinds openacc iso_fortran_env iso_c_binding ieee_arithmetic ieee_exceptions ieee_features cudafor
cublas cusparse mpi mpi_f08 blas95 lapack95 f95_lapack mkl_blas hipfort hipfort_check hipfort_hipblas
""".split())
FORTRAN_TYPES = {"c_ptr", "c_funptr", "dim3", "cudadeviceprop", "cublashandle", "mpi_comm", "mpi_status"}

JULIA_FUNCTIONS = set("""
length size zeros ones similar fill fill! copy copyto! deepcopy collect eachindex axes range sum prod maximum minimum
max min abs sqrt exp log sin cos println print show display error throw isempty push! append! pop! resize!
eltype typeof convert promote_type rand randn rand! Float64 Float32 Int Int32 Int64 UInt Bool Vector Matrix Array
Tuple NamedTuple Dict Set firstindex lastindex first last enumerate zip map map! foreach reduce mapreduce filter
reverse sort sort! isapprox iszero one zero oneunit round floor ceil div rem mod fld cld muladd fma hypot
time time_ns sleep string repr parse tryparse isnan isinf isfinite broadcast broadcast! view reshape vec permutedims
transpose adjoint any all count findfirst findall keys values pairs haskey get get! setindex! getindex ntuple
Base.Threads nthreads threadid Threads.nthreads Threads.threadid spawn fetch wait schedule Channel put! take!
ReentrantLock lock unlock SpinLock Atomic atomic_add! cumsum cumsum! diff extrema clamp clamp! sign signbit
UnitRange StepRange LinRange range step StepRangeLen ceil Int16 UInt32 UInt64 Float16 Complex ComplexF64 real imag
conj dot norm mul! axpy! axpby! rmul! lmul! ldiv! rdiv! BLAS.axpy! BLAS.gemv! BLAS.gemm! gemv! gemm! I Diagonal
Symmetric Hermitian UpperTriangular LowerTriangular tr det inv pinv kron nnz nonzeros rowvals nzrange
SparseMatrixCSC sparse spzeros sprand mean std var median @printf @sprintf printf tic toc now Dates
CuArray CuVector CuMatrix cu CuDeviceArray threadIdx blockIdx blockDim gridDim synchronize sync_threads
CUDA.zeros CUDA.ones CUDA.rand CUDA.fill ROCArray ROCVector ROCMatrix workitemIdx workgroupIdx workgroupDim
roc oneArray oneVector get_backend KernelAbstractions.synchronize CPU CUDABackend ROCBackend oneAPIBackend
@index @kernel @Const @threads @cuda @roc @oneapi @sync @async @spawn @inbounds @simd @views @view @time @btime
@benchmark @elapsed @assert @show @inline @fastmath @turbo @tturbo @distributed @everywhere launch_configuration
attributes nextpow prevpow ispow2 cld
""".split())
JULIA_PACKAGES = {"Base", "Core", "Threads", "Base.Threads", "LinearAlgebra", "Printf", "Random", "Statistics",
                  "SparseArrays", "BenchmarkTools", "CUDA", "AMDGPU", "oneAPI", "KernelAbstractions", "Dates",
                  "Test", "LoopVectorization"}
JULIA_TYPES = {"AbstractArray", "AbstractVector", "AbstractMatrix", "AbstractFloat", "Real", "Number", "Integer",
               "Any", "Nothing", "Function", "DenseArray", "StridedArray", "StridedVector", "StridedMatrix",
               "DenseVector", "DenseMatrix", "AbstractString", "String", "Symbol", "Val", "Ref", "Ptr", "Cint",
               "Cdouble", "Cfloat", "Csize_t", "Signed", "Unsigned", "AbstractRange"} | {
    n for n in JULIA_FUNCTIONS if n[:1].isupper()}

PYTHON_BUILTINS = set(dir(builtins))


def close_to(name: str, known) -> str | None:
    """A known name that `name` looks like a typo of (difflib ratio >= 0.8), else None."""
    low = name.lower()
    pool = {k.lower(): k for k in known if abs(len(k) - len(name)) <= 3}
    match = difflib.get_close_matches(low, list(pool), n=1, cutoff=0.8)
    return pool[match[0]] if match else None


@cache
def _c_runtime() -> tuple:
    """The C and math runtime libraries of this machine (glibc, libm), opened once."""
    libs = []
    for name in ("c", "m"):
        path = ctypes.util.find_library(name)
        if path:
            try:
                libs.append(ctypes.CDLL(path))
            except OSError:
                pass
    return tuple(libs)


def c_runtime_exports(name: str) -> bool:
    """Whether the C runtime exports `name` (POSIX and GNU functions such as fork, execl, clock_gettime): a call
    to it is a call to a real function, never a missing helper, whatever header list above misses it."""
    if not name.isidentifier():
        return False
    return any(hasattr(lib, name) for lib in _c_runtime())
