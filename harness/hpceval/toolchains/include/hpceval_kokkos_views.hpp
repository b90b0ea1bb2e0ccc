// hpceval driver helpers for Kokkos (included by the Kokkos toolchain after Kokkos_Core.hpp; bind/glue/cpp.py
// calls them): the driver's host arrays handed to a suggestion in the memory space that its Views, or the raw
// pointers it reads inside a dispatch, live in.
//
// Where that space can read host memory (a host backend: Serial, OpenMP) the View wraps the host array itself,
// unmanaged: the kernel works on the driver's own data and nothing is copied. Where it cannot (the CUDA backend's
// CudaSpace), a View of the same data type and layout is allocated in that space and filled from the host array
// through a host mirror before the call, and an output is copied back after it (both outside the timed call).
// Wrapping host memory in a CudaSpace View instead makes the kernel dereference host addresses on the GPU
// (cudaErrorIllegalAddress): the harness's fault, not the suggestion's.
#include <cstddef>
#include <string>

template <class V>
inline constexpr bool hpceval_host_reads =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename V::memory_space>::accessible;

// the host array (row-major over dims, or flat when the glue passed fewer extents than the View has) into or out
// of a host mirror, element by element: the mirror has the device View's layout (LayoutLeft on CUDA)
template <class M, class T>
void hpceval_kokkos_copy(const M &mirror, T *host, const size_t *dims, size_t ndims, bool into_view) {
  constexpr unsigned rank = M::traits::rank;
  if constexpr (rank == 1) {
    for (size_t i = 0; i < dims[0]; ++i) {
      if (into_view) mirror(i) = host[i]; else host[i] = mirror(i);
    }
  } else if constexpr (rank == 2) {
    const size_t cols = ndims >= 2 ? dims[1] : 1;
    for (size_t i = 0; i < dims[0]; ++i)
      for (size_t j = 0; j < cols; ++j) {
        if (into_view) mirror(i, j) = host[i * cols + j]; else host[i * cols + j] = mirror(i, j);
      }
  } else if constexpr (rank == 3) {
    const size_t d1 = ndims >= 2 ? dims[1] : 1, d2 = ndims >= 3 ? dims[2] : 1;
    for (size_t i = 0; i < dims[0]; ++i)
      for (size_t j = 0; j < d1; ++j)
        for (size_t k = 0; k < d2; ++k) {
          const size_t at = (i * d1 + j) * d2 + k;
          if (into_view) mirror(i, j, k) = host[at]; else host[at] = mirror(i, j, k);
        }
  } else {
    size_t total = 1;
    for (size_t d = 0; d < ndims; ++d) total *= dims[d];
    for (size_t at = 0; at < total; ++at) {
      if (into_view) mirror.data()[at] = host[at]; else host[at] = mirror.data()[at];
    }
  }
}

// a host mirror of a device View, uninitialised (Kokkos 3.x has no create_mirror_view without initialisation)
template <class W>
typename W::HostMirror hpceval_kokkos_mirror(const W &view) {
  return typename W::HostMirror(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("hpceval_host")),
                                view.layout());
}

// a View of type V over the host array: the array itself where V's space reads host memory, else a managed View
// of V's data type, layout and device in that space, filled from the array (it converts to V at the call, also
// when V is unmanaged, and lives in the driver until the teardown has copied the outputs back)
template <class V, class T, class... N>
auto hpceval_kokkos_in(T *host, N... extents) {
  if constexpr (hpceval_host_reads<V>) {
    return V(host, static_cast<size_t>(extents)...);
  } else {
    // without initialisation: a fill kernel here would run between timed calls, which the CUPTI probe reads as
    // work the suggestion left running after a call returned
    Kokkos::View<typename V::non_const_data_type, typename V::array_layout, typename V::device_type> view(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("hpceval")), static_cast<size_t>(extents)...);
    auto mirror = hpceval_kokkos_mirror(view);
    const size_t dims[] = {static_cast<size_t>(extents)...};
    hpceval_kokkos_copy(mirror, host, dims, sizeof...(extents), true);
    Kokkos::deep_copy(view, mirror);
    return view;
  }
}

// an output back into the host array (nothing to do where the View wraps the host array itself)
template <class W, class T, class... N>
void hpceval_kokkos_out(const W &view, T *host, N... extents) {
  if constexpr (!hpceval_host_reads<W>) {
    Kokkos::fence();
    auto mirror = hpceval_kokkos_mirror(view);
    Kokkos::deep_copy(mirror, view);
    const size_t dims[] = {static_cast<size_t>(extents)...};
    hpceval_kokkos_copy(mirror, host, dims, sizeof...(extents), false);
  }
}
