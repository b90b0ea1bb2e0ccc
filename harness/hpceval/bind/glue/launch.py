"""Launch glue: a CUDA or HIP `__global__` kernel that the suggestion launches only from its own `main`.

The study's prompts (`// saxpy CUDA kernel`) made GitHub Copilot write the device kernel and a test program whose
`main` allocates, copies and launches it; there is no host function the driver could call, and `main` is never
part of the build unit. Graded by eye, such a kernel is a correct CUDA kernel. So when no host function binds, a
device kernel whose parameters map onto the kernel's roles is launched by the harness instead: device buffers for
its array arguments (copied in before the call, outputs copied back after it), the suggestion's kernel launched
on a grid that covers the largest size of the case in every dimension the kernel indexes (`.x`, `.y`, `.z`), and
a synchronisation that ends the call. A kernel that guards its index (`if (i < n)`) or loops grid-stride is
correct on any such grid; one that does neither writes out of bounds and fails under compute-sanitizer, as it
would in the suggestion's own `main` for most sizes. The copies lie outside the timed call; CUPTI's kernel-only
time is what the timing run reports for GPU models anyway.

The launch is the one the suggestion's own host code makes (bind.launches.cpp: grid, block, dynamic shared
memory and template arguments as functions of the kernel's arguments), so a tiled GEMM whose `__shared__` tiles
assume main's 32x32 blocks gets them. Where nothing launches it, the block its own index arithmetic implies
(`blockIdx.y * TS + threadIdx.y`: blocks of TS; bind.launches.implied). Only where neither says (the kernel indexes
by blockDim, or the launch is computed in a way the harness cannot evaluate: a device query, a size it does not
pass to the kernel), the documented default is used: 256 threads (1D), 16x16 (2D) or 8x8x8 (3D) per block over the
largest size; the evidence says which launch was used and why.

Separate outputs (a variant's own output array, out-of-place AXPY's `z`) get device buffers like the canonical
arrays and come back to their temporaries before those are copied to their canonical targets.
"""

from __future__ import annotations

import re

from hpceval.bind.glue.common import Glue, array_plans, c_canon, c_real, extra
from hpceval.bind.launches import Found, default_note, no_site, taken_note
from hpceval.bind.launches.cpp import main_launch
from hpceval.bind.launches.implied import implied_launch
from hpceval.bind.mapping import Mapping
from hpceval.bind.parse import Unit
from hpceval.bind.roles import KernelRoles, Role

# the runtime API per programming model (the HIP header maps hip* onto CUDA on NVIDIA machines)
RUNTIME = {"cpp-cuda": "cuda", "cpp-hip": "hip"}
BLOCKS = {1: ("256", "1", "1"), 2: ("16", "16", "1"), 3: ("8", "8", "8")}


def harness_launched(call: str | None) -> bool:
    """The binding's call is this module's launch (the model checks then read it as the suggestion's own launch,
    which its dropped `main` made)."""
    return bool(call) and re.search(r"<<<hp_grid, hp_block(?:, hp_shmem)?>>>", call) is not None


def launchable(model_id: str | None) -> bool:
    return (model_id or "") in RUNTIME


def host_launches(texts: list[str]) -> bool:
    """A host function (with the helpers it calls) that launches a kernel itself; one that does not (a CPU
    reference, a verification routine) loses to a device kernel the harness can launch."""
    return any(re.search(r"<<<|LaunchKernel|\bcuda\w+\s*\(|\bhip\w+\s*\(|cublas|hipblas|cusparse|thrust::", t)
               for t in texts)


def dimensions(kernel_text: str) -> int:
    """How many grid dimensions the kernel indexes (1 when it uses only .x)."""
    used = set(re.findall(r"\b(?:threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*([xyz])\b", kernel_text))
    return 3 if "z" in used else 2 if "y" in used else 1


def takes_device_pointers(fn_text: str) -> bool:
    """A host function that launches a kernel, or calls a device library routine (cuBLAS, cuSPARSE, hipBLAS), on
    its own pointer parameters and never allocates or copies: its pointers are device pointers (the suggestion's
    `main` allocated and copied before calling it)."""
    library = re.search(r"\b(?:cublas|cusparse|hipblas|hipsparse)(?!Create|Destroy|Set|Get)\w+\s*\(", fn_text)
    return bool(re.search(r"<<<|LaunchKernel", fn_text) or library) and not re.search(
        r"\b(?:cuda|hip)(?:Malloc\w*|Memcpy\w*|HostRegister|HostGetDevicePointer)\b|\bnew\b|thrust::|"
        r"\b(?:cublas|hipblas)(?:Alloc|Set|Get)(?:Vector|Matrix)\w*", fn_text)


C_SCALARS = {"float", "double", "int", "long", "long long", "unsigned", "unsigned int", "unsigned long", "size_t",
             "short", "char", "int32_t", "int64_t", "uint32_t", "uint64_t", "long int", "long double", "half", "__half"}


def _device_count(role: Role, plans: dict, kr: KernelRoles) -> str | None:
    """Elements of the device buffer for an array parameter: the canonical array's (hp_k where a square variant
    pads it), or a separate output's target's; None for an array the harness does not hand over."""
    if role.name in plans:
        pad = plans[role.name].pad
        return " * ".join(f"(size_t)({'hp_k' if pad[d] else e})" for d, e in enumerate(role.shape)) or "1"
    what, target = extra(role) if role.extra else ("", "")
    if what == "output":
        return " * ".join(f"(size_t)({e})" for e in kr.role(target).shape) or "1"
    return None


def launch_glue(g: Glue, m: Mapping, kr: KernelRoles, model_id: str, launch: bool = True,
                unit: Unit | None = None) -> Glue:
    """The host glue `g` (arguments over host data) turned into device buffers and either a launch of the device
    kernel m.fn (launch; configured as the suggestion's own launch in `unit` where it makes one) or a call of the
    host function m.fn that takes device pointers."""
    api = RUNTIME[model_id]
    plans = array_plans(m, kr, "cpp")
    sizes = [r.name for r in kr.canonical if r.kind in ("int", "index") and not r.is_array and r.size]
    extent = f"std::max<long>({{{', '.join(f'(long)({s})' for s in sizes)}}})" if sizes else "1"
    dims = dimensions(m.fn.text)
    block = BLOCKS[dims]
    out = Glue(setup=list(g.setup), decls=list(g.decls), notes=list(g.notes))
    args = list(g.args)
    teardown: list[str] = []
    frees: list[str] = []
    scalars: dict[int, str] = {}  # the driver's value of each scalar parameter (main's launch is read through it)
    by_position = {p.position: i for i, p in enumerate(p for p in m.fn.params if p.default is None
                                                           or m.assign.get(p.position) is not None)}
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None or p.position not in by_position:
            continue
        if not role.is_array:
            scalars[p.position] = args[by_position[p.position]].removeprefix("&")
            continue
        count = _device_count(role, plans, kr)
        if count is None:
            continue
        i = by_position[p.position]
        host = args[i]
        elem = " ".join(re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b", " ", p.spelled)
                        .replace("*", " ").split())
        if elem not in C_SCALARS:  # `T *x` of a template kernel: the type it is graded in (T is deduced from it)
            elem = c_canon(kr.spec, role)
        dev = f"hp_d_{role.name}"
        out.setup.append(f"{elem} *{dev} = nullptr;")
        out.setup.append(f"{api}Malloc((void **)&{dev}, std::max<size_t>({count}, 1) * sizeof({elem}));")
        out.setup.append(f"{api}Memcpy({dev}, {host}, ({count}) * sizeof({elem}), {api}MemcpyHostToDevice);")
        if role.is_output:
            teardown.append(f"{api}Memcpy({host}, {dev}, ({count}) * sizeof({elem}), {api}MemcpyDeviceToHost);")
        frees.append(f"{api}Free({dev});")
        args[i] = dev
    out.teardown = teardown + list(g.teardown) + frees
    if not launch:
        out.call = f"{{ {m.fn.name}({', '.join(args)}); {api}DeviceSynchronize(); }}"
        out.notes.append("a host function that launches on device pointers (it never allocates or copies): arrays "
                         "passed as device buffers, copied in before the call and back after it")
        return out
    site = main_launch(unit, m.fn, scalars) if unit is not None else no_site(m.fn.name)
    copies = "arrays copied to device buffers before the call, outputs back after it"
    if isinstance(site, Found):
        return _site_launch(out, m, args, api, site, copies, taken_note(site.where, site.written))
    out.setup.append(f"const long hp_extent = std::max<long>({extent}, 1);")
    implied = implied_launch(unit, m.fn, dims, c_real(kr.spec.dtype)) if unit is not None else site
    if isinstance(implied, Found):
        return _site_launch(out, m, args, api, implied, copies,
                            f"the block its index arithmetic implies ({implied.written}; {site})")
    grid = ", ".join(f"(unsigned)((hp_extent + {b} - 1) / {b})" if d < dims else "1" for d, b in enumerate(block))
    out.setup.append(f"const dim3 hp_grid({grid}), hp_block({', '.join(block)});")
    out.call = f"{{ {m.fn.name}<<<hp_grid, hp_block>>>({', '.join(args)}); {api}DeviceSynchronize(); }}"
    out.notes.append(f"a __global__ kernel with no host launcher: the harness launches it ({dims}D grid of "
                     f"{'x'.join(block[:dims])}-thread blocks covering the largest size, {', '.join(sizes) or '1'}; "
                     f"{copies}); {default_note(site)}; {implied}")
    return out


def _site_launch(out: Glue, m: Mapping, args: list[str], api: str, site: Found, copies: str, how: str) -> Glue:
    """A launch the suggestion's own host code makes (bind.launches.cpp) or its kernel's index arithmetic implies
    (bind.launches.implied), over the driver's device buffers; `how`: which, for the evidence."""
    out.setup.extend(site.setup)
    out.setup.append(f"const dim3 hp_grid = dim3({site.grid}), hp_block = dim3({site.block});")
    config = "hp_grid, hp_block"
    if site.shmem:
        out.setup.append(f"const size_t hp_shmem = (size_t)({site.shmem});")
        config += ", hp_shmem"
    targs = f"<{site.targs}>" if site.targs else ""
    out.call = f"{{ {m.fn.name}{targs}<<<{config}>>>({', '.join(args)}); {api}DeviceSynchronize(); }}"
    out.uses |= site.uses
    out.notes.append(f"a __global__ kernel with no host launcher: the harness launches it as the suggestion does "
                     f"({copies}); {how}")
    return out
