"""The V^T layout of FP8 attention: e4m3 V (B, Hkv, Sk, D) moved into the
K-major operand that the FP8 variant of kernels/attention_sm90.mlir reads
for P V (wgmma's 8-bit operands are K-major), the keys of every 16 in the
order wgmma's 8-bit P registers hold them (T-WGMMA-5), by one generated
kernel (a CTA per 64 keys of a (batch, KV head), through shared memory).

    vt = fp8_v_layout(torch, v)      # (B, Hkv, D, Sk rounded up to 16)
"""
from ..core.errors import MatmulError
from ..core.operands import cdiv
from ..core.streams import running_on
from ..family import KernelFamily
from .kernel_text import index_constants, kernel_module

#: Keys of V^T's column groups: the P registers' order repeats every 16
#: keys (T-WGMMA-5), so V^T's keys are padded to a multiple of it.
KEY_GROUP = 16


#: Keys of a CTA of the layout kernel, and its threads.
LAYOUT_KEYS = 64
LAYOUT_THREADS = 256
#: Head dims the kernel takes: a CTA's 64 keys x D bytes are one or two
#: 16-byte loads and stores a thread.
LAYOUT_HEAD_DIMS = (64, 128)
#: Bytes of a staged key row in shared memory: the longest row (128) and 16
#: more, so that the rows' 16-byte stores stay aligned.
LAYOUT_PITCH = 144
#: The most CTAs along the grid's y (CUDA's limit): the key tiles of 64.
MAX_KEY_TILES = 65535


def register_order(position: int) -> int:
    """The key (within its 16) at V^T column `position` (within its 16):
    column 4t + 2h + u holds key 8h + 2t + u (T-WGMMA-5)."""
    t, h, u = position // 4, (position // 2) % 2, position % 2
    return 8 * h + 2 * t + u


def v_layout_source(config) -> str:
    """@fp8_v_layout for head dim `config` (LAYOUT_HEAD_DIMS): a CTA per 64
    keys of one (batch, KV head) (grid x the B Hkv heads, y the key tiles);
    its 256 threads load the keys' rows (16 bytes a thread, zeros past Sk)
    into shared memory, then write V^T's rows d, 16 columns a thread (one
    key group, in register order), a warp's 32 rows of one group."""
    d = config
    if d not in LAYOUT_HEAD_DIMS:
        raise ValueError(f"fp8_v_layout takes D = 64 or 128, got {d}")
    loads, stores = LAYOUT_KEYS * d // 16, d * LAYOUT_KEYS // 16
    body = ["%bg = gpu.block_id x", "%tile = gpu.block_id y", "%tid = gpu.thread_id x",
            "%heads = memref.dim %v, %c1 : !v", "%b = arith.divui %bg, %heads : index",
            "%g = arith.remui %bg, %heads : index", "%sk = memref.dim %v, %c2 : !v",
            "%padded = memref.dim %vt, %c3 : !vt",
            f"%key0 = arith.muli %tile, %c{LAYOUT_KEYS} : index",
            f"%rows = tile.shared_alloc : memref<{LAYOUT_KEYS}x{LAYOUT_PITCH}x!e, 3>",
            "%zeros = arith.constant dense<0.0> : vector<16x!e>"]
    for i in range(cdiv(loads, LAYOUT_THREADS)):
        body += [f"%lp{i} = arith.addi %tid, %c{i * LAYOUT_THREADS} : index",
                 f"%lrow{i} = arith.divui %lp{i}, %c{d // 16} : index",
                 f"%lslot{i} = arith.remui %lp{i}, %c{d // 16} : index",
                 f"%lcol{i} = arith.muli %lslot{i}, %c16 : index",
                 f"%lkey{i} = arith.addi %key0, %lrow{i} : index",
                 f"%lin{i} = arith.cmpi ult, %lkey{i}, %sk : index",
                 f"%lv{i} = scf.if %lin{i} -> vector<16x!e> {{",
                 f"  %x{i} = vector.load %v[%b, %g, %lkey{i}, %lcol{i}] {{alignment = 16}} "
                 f": !v, vector<16x!e>",
                 f"  scf.yield %x{i} : vector<16x!e>",
                 "} else {", "  scf.yield %zeros : vector<16x!e>", "}",
                 f"vector.store %lv{i}, %rows[%lrow{i}, %lcol{i}] : "
                 f"memref<{LAYOUT_KEYS}x{LAYOUT_PITCH}x!e, 3>, vector<16x!e>"]
    body.append("gpu.barrier")
    for i in range(cdiv(stores, LAYOUT_THREADS)):
        body += [f"%sp{i} = arith.addi %tid, %c{i * LAYOUT_THREADS} : index",
                 f"%row{i} = arith.remui %sp{i}, %c{d} : index",
                 f"%group{i} = arith.divui %sp{i}, %c{d} : index",
                 f"%first{i} = arith.muli %group{i}, %c16 : index",
                 f"%column{i} = arith.addi %key0, %first{i} : index",
                 f"%sin{i} = arith.cmpi ult, %column{i}, %padded : index",
                 f"scf.if %sin{i} {{"]
        for j in range(16):
            body += [f"  %k{i}_{j} = arith.addi %first{i}, %c{register_order(j)} : index",
                     f"  %y{i}_{j} = memref.load %rows[%k{i}_{j}, %row{i}] : "
                     f"memref<{LAYOUT_KEYS}x{LAYOUT_PITCH}x!e, 3>"]
        elements = ", ".join(f"%y{i}_{j}" for j in range(16))
        body += [f"  %w{i} = vector.from_elements {elements} : vector<16x!e>",
                 f"  vector.store %w{i}, %vt[%b, %g, %row{i}, %column{i}] {{alignment = 16}} : !vt, vector<16x!e>",
                 "}"]
    header = [f"// fp8_v_layout: e4m3 V (B, Hkv, Sk, D = {d}) as the FP8 attention kernel's "
              "V^T (tile.ops.fp8_v_layout),",
              f"// {LAYOUT_KEYS} keys a CTA through shared memory.",
              "!e = f8E4M3FN",
              "!v = memref<?x?x?x?x!e, strided<[?, ?, ?, 1], offset: ?>>",
              "!vt = memref<?x?x?x?x!e>"]
    constants = index_constants(**{f"c{n}": n for n in sorted(
        {0, 1, 2, 3, 16, d, d // 16, LAYOUT_KEYS, LAYOUT_THREADS, 2 * LAYOUT_THREADS,
         3 * LAYOUT_THREADS} | set(range(16)))})
    return kernel_module(header, "fp8_v_layout", ["%v: !v", "%vt: !vt"], LAYOUT_THREADS,
                         constants + body)


#: The layout kernels, keyed by the head dim.
V_LAYOUT = KernelFamily("fp8_v_layout", v_layout_source)


def reads_in_place(v) -> bool:
    """Whether the kernel reads V as it is: rows 16-byte aligned (else it
    reads a contiguous copy)."""
    return v.stride(-1) == 1 and not any(s % 16 for s in v.stride()[:-1]) \
        and not v.data_ptr() % 16


def v_layout_buffer(torch, v):
    """An empty V^T for `v`: (B, Hkv, D, Sk rounded up to 16), contiguous."""
    batch, kv_heads, sk, d = v.shape
    return torch.empty((batch, kv_heads, d, cdiv(sk, KEY_GROUP) * KEY_GROUP), device=v.device,
                       dtype=v.dtype)


def v_layout_launch(torch, v):
    """(kernel, grid) of @fp8_v_layout for `v`: a CTA per 64 keys of each
    (batch, KV head); or MatmulError for a V it does not take."""
    if v.dtype != torch.float8_e4m3fn or v.dim() != 4:
        raise MatmulError(f"fp8_v_layout takes a (B, Hkv, Sk, D) float8_e4m3fn V, got "
                          f"{v.dtype} of shape {tuple(v.shape)}")
    batch, kv_heads, sk, d = v.shape
    if d not in LAYOUT_HEAD_DIMS or cdiv(sk, LAYOUT_KEYS) > MAX_KEY_TILES:
        raise MatmulError(f"fp8_v_layout takes D = 64 or 128 and at most "
                          f"{MAX_KEY_TILES * LAYOUT_KEYS} keys, got D = {d} and Sk = {sk}")
    return V_LAYOUT.kernel(d, "fp8_v_layout"), (batch * kv_heads, cdiv(sk, LAYOUT_KEYS), 1)


def fp8_v_layout(torch, v, stream=None):
    """V (B, Hkv, Sk, D) of e4m3 as the FP8 kernel's P V reads it: V^T,
    (B, Hkv, D, Sk16) contiguous with Sk16 = Sk rounded up to 16 (zeros
    past Sk), key 8h + 2t + u of each 16 at column 4t + 2h + u of those 16
    (h, u < 2, t < 4): wgmma's 8-bit P registers hold the keys in that
    order (tile.warpgroup_mma_rs, T-WGMMA-5). One launch of @fp8_v_layout
    (V's rows read 16 bytes a thread: a V whose strides are not multiples
    of 16 bytes is made contiguous first). D = 64 or 128. On `stream` (a
    torch stream; None: the current one), which also allocates V^T and the
    copy."""
    kernel, grid = v_layout_launch(torch, v)
    with running_on(torch, stream):
        vt = v_layout_buffer(torch, v)
        if vt.numel() == 0:
            return vt
        if not reads_in_place(v):
            v = v.contiguous()
        kernel.launch_on(v.device.index, (v, vt), grid, stream)
    return vt
