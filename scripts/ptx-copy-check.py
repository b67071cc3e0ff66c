#!/usr/bin/env python3
#===- ptx-copy-check.py - Run a copy kernel's PTX on the GPU and check it ===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# A stand-in until tile-run exists (runtime issue): loads PTX with the CUDA
# driver API through ctypes, launches `kernel(src, dst)` where both are
# row-major `rows x cols` memrefs passed as MLIR memref descriptors
# (allocated, aligned, offset, size0, size1, stride0, stride1), and checks
# that dst == src bit for bit. Exits 0 and prints PASS on success.
import argparse
import ctypes
import random
import struct
import sys

ITEMSIZE = {"f16": 2, "f32": 4}


def check(cuda, result, call):
    if result != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(result, ctypes.byref(name))
        sys.exit(f"{call} failed: {name.value.decode() if name.value else result}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("ptx")
    parser.add_argument("kernel")
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--cols", type=int, required=True)
    parser.add_argument("--dtype", choices=ITEMSIZE, default="f16")
    parser.add_argument("--block", type=int, default=128)
    parser.add_argument("--rows-per-block", type=int, required=True)
    args = parser.parse_args()

    cuda = ctypes.CDLL("libcuda.so.1")
    check(cuda, cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda, cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    context = ctypes.c_void_p()
    check(cuda, cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device),
          "cuDevicePrimaryCtxRetain")
    check(cuda, cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")

    ptx = open(args.ptx, "rb").read() + b"\0"
    module = ctypes.c_void_p()
    log = ctypes.create_string_buffer(8192)
    # CU_JIT_ERROR_LOG_BUFFER (5), CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES (6)
    options = (ctypes.c_int * 2)(5, 6)
    values = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p).value, 8192)
    result = cuda.cuModuleLoadDataEx(ctypes.byref(module), ptx, 2, options, values)
    if result != 0:
        print(log.value.decode(errors="replace"), file=sys.stderr)
    check(cuda, result, "cuModuleLoadDataEx")
    function = ctypes.c_void_p()
    check(cuda, cuda.cuModuleGetFunction(ctypes.byref(function), module,
                                         args.kernel.encode()), "cuModuleGetFunction")

    count = args.rows * args.cols
    nbytes = count * ITEMSIZE[args.dtype]
    rng = random.Random(2026)
    host_src = bytes(rng.getrandbits(8) for _ in range(nbytes))
    src, dst = ctypes.c_uint64(), ctypes.c_uint64()
    check(cuda, cuda.cuMemAlloc_v2(ctypes.byref(src), ctypes.c_size_t(nbytes)), "cuMemAlloc")
    check(cuda, cuda.cuMemAlloc_v2(ctypes.byref(dst), ctypes.c_size_t(nbytes)), "cuMemAlloc")
    check(cuda, cuda.cuMemcpyHtoD_v2(src, host_src, ctypes.c_size_t(nbytes)), "cuMemcpyHtoD")
    check(cuda, cuda.cuMemsetD8_v2(dst, 0, ctypes.c_size_t(nbytes)), "cuMemsetD8")

    # Two expanded memref<?xCOLS> descriptors: 7 scalars each.
    scalars = []
    for base in (src, dst):
        scalars += [ctypes.c_uint64(base.value), ctypes.c_uint64(base.value),
                    ctypes.c_int64(0), ctypes.c_int64(args.rows),
                    ctypes.c_int64(args.cols), ctypes.c_int64(args.cols),
                    ctypes.c_int64(1)]
    params = (ctypes.c_void_p * len(scalars))(
        *[ctypes.cast(ctypes.byref(s), ctypes.c_void_p) for s in scalars])
    grid = args.rows // args.rows_per_block
    check(cuda, cuda.cuLaunchKernel(function, grid, 1, 1, args.block, 1, 1, 0,
                                    None, params, None), "cuLaunchKernel")
    check(cuda, cuda.cuCtxSynchronize(), "cuCtxSynchronize")

    host_dst = ctypes.create_string_buffer(nbytes)
    check(cuda, cuda.cuMemcpyDtoH_v2(host_dst, dst, ctypes.c_size_t(nbytes)), "cuMemcpyDtoH")
    got = host_dst.raw
    if got != host_src:
        item = ITEMSIZE[args.dtype]
        bad = next(i for i in range(count) if got[i * item:(i + 1) * item]
                   != host_src[i * item:(i + 1) * item])
        sys.exit(f"FAIL: first mismatch at element {bad} (row {bad // args.cols}, "
                 f"col {bad % args.cols})")
    print(f"PASS: {args.kernel} copied {args.rows}x{args.cols} {args.dtype} "
          f"({nbytes} bytes) in {grid} blocks")


if __name__ == "__main__":
    main()
