//===- RunnerUtils.cpp - Printing helpers for JIT-run programs ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The subset of libmlir_runner_utils / libmlir_c_runner_utils that tests use
// (memref and scalar printing, rtclock), compiled into tile-run: Debian's
// shared versions need libMLIR.so and libLLVM.so, which the GPU machine
// lacks. The memref printers are MLIR's own header templates, so output is
// identical to mlir-runner's.
//===----------------------------------------------------------------------===//

#include "RunnerUtils.h"
#include "mlir/ExecutionEngine/RunnerUtils.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>

/// Defines printMemref<Suffix> (rank, descriptor) and its _mlir_ciface_ form.
#define TILE_DEFINE_MEMREF_PRINTER(Suffix, T)                                  \
  extern "C" void _mlir_ciface_printMemref##Suffix(UnrankedMemRefType<T> *m) { \
    impl::printMemRef(*m);                                                     \
  }                                                                            \
  extern "C" void printMemref##Suffix(int64_t rank, void *ptr) {               \
    UnrankedMemRefType<T> descriptor = {rank, ptr};                            \
    _mlir_ciface_printMemref##Suffix(&descriptor);                             \
  }
TILE_DEFINE_MEMREF_PRINTER(F32, float)
TILE_DEFINE_MEMREF_PRINTER(F64, double)
TILE_DEFINE_MEMREF_PRINTER(I8, int8_t)
TILE_DEFINE_MEMREF_PRINTER(I32, int32_t)
TILE_DEFINE_MEMREF_PRINTER(I64, int64_t)
#undef TILE_DEFINE_MEMREF_PRINTER

extern "C" {
void printI64(int64_t i) { std::fprintf(stdout, "%" PRId64, i); }
void printU64(uint64_t u) { std::fprintf(stdout, "%" PRIu64, u); }
void printF32(float f) { std::fprintf(stdout, "%g", f); }
void printF64(double d) { std::fprintf(stdout, "%lg", d); }
void printString(const char *s) { std::fputs(s, stdout); }
void printOpen() { std::fputs("( ", stdout); }
void printClose() { std::fputs(" )", stdout); }
void printComma() { std::fputs(", ", stdout); }
void printNewline() {
  std::fputc('\n', stdout);
  std::fflush(stdout);
}
double rtclock() {
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration<double>(now).count();
}
} // extern "C"

void tile::forEachRunnerUtilsSymbol(
    llvm::function_ref<void(llvm::StringRef, void *)> callback) {
#define TILE_PRINT_SYMBOL(name)                                                \
  callback(#name, reinterpret_cast<void *>(&name));
  TILE_PRINT_SYMBOL(printMemrefF32)
  TILE_PRINT_SYMBOL(printMemrefF64)
  TILE_PRINT_SYMBOL(printMemrefI8)
  TILE_PRINT_SYMBOL(printMemrefI32)
  TILE_PRINT_SYMBOL(printMemrefI64)
  TILE_PRINT_SYMBOL(_mlir_ciface_printMemrefF32)
  TILE_PRINT_SYMBOL(_mlir_ciface_printMemrefF64)
  TILE_PRINT_SYMBOL(_mlir_ciface_printMemrefI8)
  TILE_PRINT_SYMBOL(_mlir_ciface_printMemrefI32)
  TILE_PRINT_SYMBOL(_mlir_ciface_printMemrefI64)
  TILE_PRINT_SYMBOL(printI64)
  TILE_PRINT_SYMBOL(printU64)
  TILE_PRINT_SYMBOL(printF32)
  TILE_PRINT_SYMBOL(printF64)
  TILE_PRINT_SYMBOL(printString)
  TILE_PRINT_SYMBOL(printOpen)
  TILE_PRINT_SYMBOL(printClose)
  TILE_PRINT_SYMBOL(printComma)
  TILE_PRINT_SYMBOL(printNewline)
  TILE_PRINT_SYMBOL(rtclock)
#undef TILE_PRINT_SYMBOL
}
