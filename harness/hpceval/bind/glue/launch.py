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

Limits, said in the evidence: a kernel that needs dynamic shared memory or a particular block size (a tiled GEMM
that indexes `__shared__` tiles by threadIdx) gets 256 threads (1D), 16x16 (2D) or 8x8x8 (3D) per block.
"""

from __future__ import annotations

import re

from hpceval.bind.glue.common import Glue, array_plans
from hpceval.bind.mapping import Mapping
from hpceval.bind.roles import KernelRoles

# the runtime API per programming model (the HIP header maps hip* onto CUDA on NVIDIA machines)
RUNTIME = {"cpp-cuda": "cuda", "cpp-hip": "hip"}
BLOCKS = {1: ("256", "1", "1"), 2: ("16", "16", "1"), 3: ("8", "8", "8")}


def harness_launched(call: str | None) -> bool:
    """The binding's call is this module's launch (the model checks then read it as the suggestion's own launch,
    which its dropped `main` made)."""
    return bool(call) and "<<<hp_grid, hp_block>>>" in call


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
    """A host function that launches a kernel on its own pointer parameters and never allocates or copies: its
    pointers are device pointers (the suggestion's `main` allocated and copied before calling it)."""
    return bool(re.search(r"<<<|LaunchKernel", fn_text)) and not re.search(
        r"\b(?:cuda|hip)(?:Malloc\w*|Memcpy\w*|HostRegister|HostGetDevicePointer)\b|\bnew\b|thrust::|cublas|hipblas",
        fn_text)


C_SCALARS = {"float", "double", "int", "long", "long long", "unsigned", "unsigned int", "unsigned long", "size_t",
             "short", "char", "int32_t", "int64_t", "uint32_t", "uint64_t", "long int", "long double", "half", "__half"}


def launch_glue(g: Glue, m: Mapping, kr: KernelRoles, model_id: str, launch: bool = True) -> Glue:
    """The host glue `g` (arguments over host data) turned into device buffers and either a launch of the device
    kernel m.fn (launch) or a call of the host function m.fn that takes device pointers."""
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
    by_position = {p.position: i for i, p in enumerate(p for p in m.fn.params if p.default is None
                                                           or m.assign.get(p.position) is not None)}
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None or not role.is_array or role.name not in plans or p.position not in by_position:
            continue
        i = by_position[p.position]
        host = args[i]
        elem = " ".join(re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b", " ", p.type_text)
                        .replace("*", " ").split())
        if elem not in C_SCALARS:  # `T *x` of a template kernel: the type it is graded in (T is deduced from it)
            elem = "int" if role.kind == "index" else "float" if kr.spec.dtype == "float32" else "double"
        pad = plans[role.name].pad  # a square variant's zero-padded temporaries are k x k
        count = " * ".join(f"(size_t)({'hp_k' if pad[d] else e})" for d, e in enumerate(role.shape)) or "1"
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
    grid = ", ".join(f"(unsigned)((hp_extent + {b} - 1) / {b})" if d < dims else "1" for d, b in enumerate(block))
    out.setup.append(f"const long hp_extent = std::max<long>({extent}, 1);")
    out.setup.append(f"const dim3 hp_grid({grid}), hp_block({', '.join(block)});")
    out.call = f"{{ {m.fn.name}<<<hp_grid, hp_block>>>({', '.join(args)}); {api}DeviceSynchronize(); }}"
    out.notes.append(f"a __global__ kernel with no host launcher: the harness launches it ({dims}D grid of "
                     f"{'x'.join(block[:dims])}-thread blocks covering the largest size, {', '.join(sizes) or '1'}; "
                     f"arrays copied to device buffers before the call, outputs back after it)")
    return out
