//===- TileRunMain.cpp - JIT-run lowered tile modules on the GPU ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A JIT runner in the style of mlir-runner: parses a module, lowers it with
// tile-to-ptx-pipeline when it is not yet LLVM (by name, so every failure
// reproduces with tile-opt), JITs the host code with MLIR's ExecutionEngine,
// resolves mgpu* calls to the linked-in libtile_runtime and the print helpers
// to RunnerUtils.cpp, and calls the entry point under a watchdog.
//===----------------------------------------------------------------------===//

#include "../ToolMains.h"
#include "RunnerUtils.h"
#include "Tile/InitAllTile.h"
#include "tile/Runtime.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
/// tile-run's command line. The options are registered when this object is
/// built inside tileRunMain, so they do not leak into the other tools of the
/// multi-call tile-tools binary.
struct RunOptions {
  cl::opt<std::string> inputFilename{cl::Positional, cl::desc("<input .mlir>"),
                                     cl::init("-")};
  cl::opt<std::string> entryPoint{
      "e", cl::desc("entry function: no arguments, no results"),
      cl::value_desc("name"), cl::init("main")};
  cl::alias entryPointLong{"entry-point", cl::aliasopt(entryPoint)};
  cl::list<std::string> sharedLibs{"shared-libs",
                                   cl::desc("libraries to load for the JIT"),
                                   cl::CommaSeparated};
  cl::opt<std::string> lowerMode{
      "lower",
      cl::desc("run tile-to-ptx-pipeline first: auto (when the module is not "
               "yet LLVM), always, never"),
      cl::init("auto")};
  cl::opt<std::string> chip{"chip", cl::desc("chip for the lowering"),
                            cl::init("sm_90a")};
  cl::opt<std::string> features{
      "features", cl::desc("PTX feature for the lowering (+ptxNN)"),
      cl::init("")};
  cl::opt<std::string> gpuFormat{
      "gpu-format",
      cl::desc("isa (PTX, JIT-compiled by the driver), bin, fatbin"),
      cl::init("isa")};
  cl::opt<uint64_t> debugWaitLimit{
      "debug-wait-limit",
      cl::desc("lowering: bound mbarrier waits to N try_wait rounds, then "
               "print what they waited for and trap (0: off)"),
      cl::init(0)};
  cl::opt<unsigned> hostOptLevel{"O", cl::desc("host JIT optimization (0-3)"),
                                 cl::init(2), cl::Prefix};
  cl::opt<int> device{"device",
                      cl::desc("CUDA device to run on (its primary context)"),
                      cl::init(0)};
  cl::opt<unsigned> timeoutSeconds{
      "timeout", cl::desc("watchdog: fail if the run takes longer (0: off)"),
      cl::init(120)};
  cl::opt<unsigned> repeat{"repeat", cl::desc("invoke the entry N times"),
                           cl::init(1)};
  cl::opt<bool> printTime{"time",
                          cl::desc("print the wall time of each invocation")};
  cl::opt<bool> timeKernels{
      "time-kernels", cl::desc("time every kernel launch with CUDA events")};
  cl::opt<bool> dumpLowered{"dump-lowered",
                            cl::desc("print the module after lowering")};
};
} // namespace

/// Prints "tile-run: <message>" and returns the failure exit code.
static int fail(const llvm::Twine &message) {
  llvm::errs() << "tile-run: " << message << "\n";
  return 1;
}

/// The first op (in post-order) that the JIT cannot translate: anything but
/// the module, LLVM dialect ops, gpu.binary and gpu.launch_func (which
/// survives gpu-to-llvm and is translated to mgpu* calls); null if none.
static Operation *findUnlowered(ModuleOp module) {
  Operation *unlowered = nullptr;
  module.walk([&](Operation *op) {
    if (isa<ModuleOp, gpu::BinaryOp, gpu::LaunchFuncOp>(op) ||
        isa<LLVM::LLVMDialect>(op->getDialect()))
      return WalkResult::advance();
    unlowered = op;
    return WalkResult::interrupt();
  });
  return unlowered;
}

/// Stops the process when the entry point runs longer than the timeout,
/// naming the kernel launched last (typically one whose wait never ends).
class Watchdog {
public:
  Watchdog(unsigned seconds, std::string entry) {
    if (seconds == 0)
      return;
    thread = std::thread([this, seconds, entry = std::move(entry)] {
      std::unique_lock<std::mutex> lock(mutex);
      if (done.wait_for(lock, std::chrono::seconds(seconds),
                        [this] { return finished; }))
        return;
      const char *kernel = tileRtLastKernelName();
      std::fprintf(stderr,
                   "tile-run: watchdog: '%s' did not finish within %u s; "
                   "last kernel launched: '%s' (a kernel whose wait is never "
                   "satisfied hangs like this)\n",
                   entry.c_str(), seconds, kernel[0] ? kernel : "<none>");
      std::fflush(stderr);
      std::fflush(stdout);
      _exit(2);
    });
  }
  ~Watchdog() {
    if (!thread.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      finished = true;
    }
    done.notify_all();
    thread.join();
  }

private:
  std::thread thread;
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
};

/// The JIT's view of the runtime and print helpers linked into tile-run.
static llvm::orc::SymbolMap
runtimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](llvm::StringRef name, void *address) {
    symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                               llvm::JITSymbolFlags::Exported};
  };
  tileRtForEachSymbol(
      [](const char *name, void *address, void *user) {
        (*static_cast<decltype(add) *>(user))(name, address);
      },
      &add);
  ::tile::forEachRunnerUtilsSymbol(add);
  return symbols;
}

int ::tile::tileRunMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  RunOptions opts;
  cl::ParseCommandLineOptions(argc, argv, "tile JIT runner\n");

  if (opts.lowerMode != "auto" && opts.lowerMode != "always" &&
      opts.lowerMode != "never")
    return fail("--lower must be auto, always or never, got '" +
                opts.lowerMode + "'");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  mlir::tile::registerAllTile(registry);
  MLIRContext context(registry);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(opts.inputFilename, &error);
  if (!input)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser printed the diagnostic

  // Lower with the named pipeline, exactly as tile-opt would.
  if (opts.lowerMode == "always" ||
      (opts.lowerMode == "auto" && findUnlowered(*module))) {
    std::string pipeline =
        "tile-to-ptx-pipeline{chip=" + opts.chip + " format=" + opts.gpuFormat +
        (opts.features.empty() ? "" : " features=" + opts.features) +
        (opts.debugWaitLimit
             ? " debug-wait-limit=" + std::to_string(opts.debugWaitLimit)
             : "") +
        "}";
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return 1;
    if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
      return fail("cannot build '" + pipeline + "'");
    if (failed(pm.run(*module)))
      return fail("lowering failed; reproduce with: tile-opt " +
                  opts.inputFilename + " --pass-pipeline='builtin.module(" +
                  pipeline + ")'");
  }
  if (opts.dumpLowered)
    module->print(llvm::outs());

  // Refuse what the JIT cannot translate, naming the first offending op.
  Operation *unlowered = findUnlowered(*module);
  if (unlowered) {
    unlowered->emitError() << "'" << unlowered->getName()
                           << "' is not lowered to the LLVM dialect; run "
                              "tile-to-ptx-pipeline (or drop --lower=never)";
    return 1;
  }
  auto entry = module->lookupSymbol<LLVM::LLVMFuncOp>(opts.entryPoint);
  if (!entry || entry.isExternal())
    return fail("no function '" + opts.entryPoint +
                "' with a body in the module");
  LLVM::LLVMFunctionType entryType = entry.getFunctionType();
  if (entryType.getNumParams() != 0 ||
      !isa<LLVM::LLVMVoidType>(entryType.getReturnType())) {
    std::string type;
    llvm::raw_string_ostream os(type);
    os << entryType;
    return fail("entry point '" + opts.entryPoint +
                "' must take no arguments and return nothing, got " + type);
  }

  // A module with GPU code needs a driver and a device: say so in one line.
  bool usesGpu = !module->getOps<gpu::BinaryOp>().empty();
  char why[512];
  if (usesGpu && tileRtProbe(why, sizeof(why)))
    return fail(llvm::Twine("no CUDA GPU: ") + why);
  if (usesGpu && (opts.device < 0 || opts.device >= tileRtDeviceCount()))
    return fail("no CUDA device " + llvm::Twine(int(opts.device)) +
                ": the driver reports " + llvm::Twine(tileRtDeviceCount()));
  if (usesGpu)
    tileRtSetDefaultDevice(opts.device);
  tileRtEnableKernelTiming(opts.timeKernels);

  ExecutionEngineOptions options;
  auto transformer = makeOptimizingTransformer(opts.hostOptLevel, 0, nullptr);
  options.transformer = transformer;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(
      std::min<unsigned>(opts.hostOptLevel, 3));
  SmallVector<StringRef> libs(opts.sharedLibs.begin(), opts.sharedLibs.end());
  options.sharedLibPaths = libs;

  // The watchdog also covers module loading, which runs in global ctors.
  Watchdog watchdog(opts.timeoutSeconds, opts.entryPoint);
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return fail("cannot JIT the module: " + llvm::toString(engine.takeError()));
  (*engine)->registerSymbols(runtimeSymbols);
  // Global ctors load the GPU modules (mgpuModuleLoad*): run them now that
  // every mgpu* symbol resolves.
  (*engine)->initialize();
  auto function = (*engine)->lookupPacked(opts.entryPoint);
  if (!function)
    return fail("cannot find '" + opts.entryPoint +
                "' in the JIT: " + llvm::toString(function.takeError()));

  std::vector<double> milliseconds;
  for (unsigned i = 0; i < std::max(1u, unsigned(opts.repeat)); ++i) {
    auto start = std::chrono::steady_clock::now();
    (*function)(nullptr);
    auto stop = std::chrono::steady_clock::now();
    milliseconds.push_back(
        std::chrono::duration<double, std::milli>(stop - start).count());
  }
  std::fflush(stdout);
  if (usesGpu)
    tileRtSynchronize();
  if (opts.timeKernels)
    tileRtPrintKernelTimes();
  if (opts.printTime) {
    std::vector<double> sorted = milliseconds;
    std::sort(sorted.begin(), sorted.end());
    std::printf("tile-run: %s: %zu invocations, median %.3f ms, min %.3f ms\n",
                opts.entryPoint.c_str(), sorted.size(),
                sorted[sorted.size() / 2], sorted.front());
  }
  std::fflush(stdout);
  return 0;
}
