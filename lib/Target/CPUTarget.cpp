//===- CPUTarget.cpp - From sdfg IR to LLVM IR, objects, libraries --------===//

#include "sdfg/Target/CPUTarget.h"
#include "sdfg/Conversion/Passes.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Target/CallGuards.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

void mlir::sdfg::registerCPUTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

void mlir::sdfg::registerGPUTranslations(DialectRegistry &registry) {
  registerCPUTranslations(registry);
  registerGPUDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void mlir::sdfg::writeKernelAssembly(ModuleOp module, llvm::raw_ostream &os) {
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute a : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(a);
      os << "// gpu.binary @" << binary.getName() << " (" << object.getTarget()
         << ")\n"
         << object.getObject().getValue() << "\n";
    }
  });
}

/// NumPy's name for a scalar type.
static std::string dtypeName(Type t) {
  if (t.isIndex())
    return "int64";
  if (t.isInteger(1))
    return "bool";
  if (t.isSignlessInteger())
    return "int" + std::to_string(t.getIntOrFloatBitWidth());
  if (isa<FloatType>(t))
    return "float" + std::to_string(t.getIntOrFloatBitWidth());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// An attribute as JSON, for the attributes the passes leave for callers
/// (integers, floats, strings, booleans, arrays and dictionaries of them);
/// anything else as its MLIR spelling.
static llvm::json::Value attributeToJSON(Attribute attr) {
  if (auto b = dyn_cast<BoolAttr>(attr))
    return b.getValue();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getValue().getSExtValue();
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto str = dyn_cast<StringAttr>(attr))
    return str.getValue().str();
  if (auto arr = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array out;
    for (Attribute a : arr)
      out.push_back(attributeToJSON(a));
    return out;
  }
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object out;
    for (NamedAttribute a : dict)
      out[a.getName().strref()] = attributeToJSON(a.getValue());
    return out;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

void mlir::sdfg::writeABIDescription(ModuleOp module, llvm::raw_ostream &os) {
  llvm::json::Array functions;
  for (SDFGOp op : module.getOps<SDFGOp>()) {
    llvm::json::Array args;
    for (auto [i, t] : llvm::enumerate(op.getArgumentTypes())) {
      llvm::json::Object arg{{"name", op.getArgName(i)}};
      if (auto m = dyn_cast<MemRefType>(t)) {
        llvm::json::Array shape;
        for (int64_t s : m.getShape())
          shape.push_back(ShapedType::isDynamic(s) ? -1 : s);
        arg["kind"] = "array";
        arg["dtype"] = dtypeName(m.getElementType());
        arg["shape"] = std::move(shape);
        // Whether the program may write it: callers that must keep their
        // arrays (the Python gradient wrapper) copy exactly these.
        bool written = false;
        op.walk([&, i = i](Operation *inner) {
          written |= getWrittenContainer(inner) == op.getArgument(i);
        });
        arg["written"] = written;
      } else {
        arg["kind"] = t.isIndex() ? "symbol" : "scalar";
        arg["dtype"] = dtypeName(t);
      }
      args.push_back(std::move(arg));
    }
    llvm::json::Object function{{"name", op.getSymName().str()},
                                {"args", std::move(args)}};
    // Whether the program calls the BLAS routines that run on OpenBLAS's
    // thread pool (the caller shortens OpenMP's spin wait for them).
    function["calls_blas"] =
        static_cast<bool>(op.walk([](Operation *inner) {
                              return isa<MatmulOp, GemvOp, DotOp>(inner)
                                         ? WalkResult::interrupt()
                                         : WalkResult::advance();
                            }).wasInterrupted());
    // The store/recompute plan sdfg-checkpoint chose (its report).
    if (Attribute plan = op->getAttr("sdfg.checkpoint"))
      function["checkpoint"] = attributeToJSON(plan);
    functions.push_back(std::move(function));
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"functions", std::move(functions)}}))
     << "\n";
}

LogicalResult mlir::sdfg::lowerToLLVMDialect(ModuleOp module,
                                             bool checkIndices) {
  PassManager pm(module.getContext());
  buildLowerToCPUPipeline(pm, checkIndices);
  return pm.run(module);
}

LogicalResult
mlir::sdfg::lowerToLLVMDialectForGPU(ModuleOp module,
                                     const LowerToGPUOptions &options) {
  PassManager pm(module.getContext());
  buildLowerToGPUPipeline(pm, options);
  return pm.run(module);
}

LogicalResult mlir::sdfg::lowerToLLVMDialectForGPUEmulator(ModuleOp module,
                                                           bool checkIndices) {
  PassManager pm(module.getContext());
  buildLowerToGPUEmulatorPipeline(pm, checkIndices);
  return pm.run(module);
}

LogicalResult mlir::sdfg::checkTargetCPU(StringRef cpu, std::string &error) {
  if (cpu == "host")
    return success();
  llvm::InitializeNativeTarget();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return failure();
  // Asked of a generic subtarget: one built for an unknown name warns on
  // stderr instead of failing.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(triple, "generic", ""));
  if (generic && generic->isCPUStringValid(cpu))
    return success();
  error = ("'" + cpu + "' is not a processor of " + triple.str()).str();
  return failure();
}

/// A target machine for `cpu`: "host" is the machine compiling, with all
/// its features (the code is built for the machine it runs on, as a JIT
/// would); any other name is an LLVM processor (x86-64-v3, znver4, ...)
/// with that processor's features, for libraries run elsewhere.
static std::unique_ptr<llvm::TargetMachine> hostMachine(StringRef cpu,
                                                        std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    error = llvm::toString(builder.takeError());
    return nullptr;
  }
  if (cpu != "host") {
    if (failed(mlir::sdfg::checkTargetCPU(cpu, error)))
      return nullptr;
    builder->setCPU(cpu.str());
    builder->getFeatures() = llvm::SubtargetFeatures();
  }
  // On x86, LLVM fully unrolls a short innermost loop of constant length
  // (the 40 levels of a 3-D weather stencil) and then vectorises the loop
  // around it across rows, with a gather or scatter per element: 722 of
  // them in one stencil gradient, which ran 1.6x slower forward and 1.2x
  // backward than without (hdiff; softmax, gramschmidt and cavity_flow
  // alike; no kernel of the peer suite lost more than noise). Unrolled,
  // the contiguous body vectorises as straight-line code instead. Gathers
  // are also slow on Intel parts with the Downfall microcode mitigation.
  if (builder->getTargetTriple().isX86()) {
    builder->getFeatures().AddFeature("prefer-no-gather");
    builder->getFeatures().AddFeature("prefer-no-scatter");
  }
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  builder->setRelocationModel(llvm::Reloc::PIC_);
  // The JIT's default is emulated TLS; programs are shared libraries whose
  // thread-local error records (CallGuards.h) the caller finds by name.
  builder->getOptions().EmulatedTLS = false;
  auto tm = builder->createTargetMachine();
  if (!tm) {
    error = llvm::toString(tm.takeError());
    return nullptr;
  }
  return std::move(*tm);
}

/// glibc 2.35 added vector variants of these functions to libmvec, in
/// double and single precision, which LLVM's LIBMVEC table (written for
/// glibc 2.22) leaves out: without them a loop calling tanh stays scalar,
/// 7x slower than NumPy on a million doubles, 11x on floats (the vector
/// intrinsic is split into scalar tanhf calls). Each entry: the scalar
/// name (double precision) and its arity.
static constexpr std::pair<const char *, unsigned> kLibmvec235[] = {
    {"acos", 1},  {"acosh", 1}, {"asin", 1},  {"asinh", 1}, {"atan", 1},
    {"atanh", 1}, {"cbrt", 1},  {"cosh", 1},  {"erfc", 1},  {"exp10", 1},
    {"exp2", 1},  {"expm1", 1}, {"log10", 1}, {"log1p", 1}, {"log2", 1},
    {"sinh", 1},  {"tan", 1},   {"tanh", 1},  {"atan2", 2}, {"hypot", 2}};

namespace {
/// One vector variant: its names are built once, as VecDesc keeps
/// StringRefs to them.
struct LibmvecVariant {
  std::string scalar, vector, prefix;
  char isa;
  unsigned lanes;
};
} // namespace

/// Every variant of kLibmvec235, for both names LLVM may use: math-to-llvm
/// emits intrinsics (llvm.tanh.f64), math-to-libm calls (tanh).
static const std::vector<LibmvecVariant> &libmvec235Variants() {
  static const std::vector<LibmvecVariant> variants = [] {
    std::vector<LibmvecVariant> out;
    for (auto [base, arity] : kLibmvec235)
      for (bool single : {false, true})
        for (auto [isa, lanes] : {std::pair{'b', 2u}, {'d', 4u}, {'e', 8u}}) {
          // A register holds twice as many floats as doubles.
          unsigned n = single ? 2 * lanes : lanes;
          std::string name = (llvm::Twine(base) + (single ? "f" : "")).str();
          std::string params(arity, 'v');
          std::string vector = ("_ZGV" + llvm::Twine(isa) + "N" +
                                llvm::Twine(n) + params + "_" + name)
                                   .str();
          std::string prefix = ("_ZGV_LLVM_N" + llvm::Twine(n) + params).str();
          out.push_back({name, vector, prefix, isa, n});
          out.push_back(
              {("llvm." + llvm::Twine(base) + (single ? ".f32" : ".f64")).str(),
               vector, prefix, isa, n});
        }
    return out;
  }();
  return variants;
}

/// Registers the variants of kLibmvec235 the target's vector ISA can call
/// (SSE: 2 lanes, AVX2: 4, AVX-512: 8), where LLVM knows none already.
static void addNewerLibmvec(llvm::TargetLibraryInfoImpl &tlii,
                            const llvm::TargetMachine &tm) {
  llvm::StringRef features = tm.getTargetFeatureString();
  auto available = [&](char isa) {
    return isa == 'b' || (isa == 'd' && features.contains("+avx2")) ||
           (isa == 'e' && features.contains("+avx512f"));
  };
  SmallVector<llvm::VecDesc> descs;
  for (const LibmvecVariant &v : libmvec235Variants()) {
    llvm::ElementCount vf = llvm::ElementCount::getFixed(v.lanes);
    if (available(v.isa) && !tlii.isFunctionVectorizable(v.scalar, vf))
      descs.emplace_back(v.scalar, v.vector, vf, /*Masked=*/false, v.prefix,
                         std::nullopt);
  }
  tlii.addVectorizableFunctions(descs);
}

/// Runs LLVM's default pipeline at `optLevel` (>= 1) on `module`, with
/// glibc's vector math library (libmvec) so that loops calling exp, sin,
/// log... vectorise as NumPy's do; `slp` enables the SLP vectoriser.
static void optimize(llvm::Module &module, llvm::TargetMachine &tm,
                     unsigned optLevel, bool slp) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel > 1;
  tuning.SLPVectorization = slp && optLevel > 1;
  llvm::PassBuilder pb(&tm, tuning);
  llvm::TargetLibraryInfoImpl tlii(tm.getTargetTriple());
  tlii.addVectorizableFunctionsFromVecLib(llvm::VectorLibrary::LIBMVEC,
                                          tm.getTargetTriple());
  addNewerLibmvec(tlii, tm);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel == 1   ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

std::unique_ptr<llvm::Module>
mlir::sdfg::translateAndOptimize(ModuleOp module, llvm::LLVMContext &ctx,
                                 unsigned optLevel, StringRef cpu,
                                 bool guardCalls) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = hostMachine(cpu, error);
  if (!tm) {
    emitError(module.getLoc(), "cannot create a target machine: ") << error;
    return nullptr;
  }
  auto translate = [&]() -> std::unique_ptr<llvm::Module> {
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(module, ctx);
    if (!llvmModule) {
      module.emitError("translation to LLVM IR failed");
      return nullptr;
    }
    llvmModule->setDataLayout(tm->createDataLayout());
    llvmModule->setTargetTriple(tm->getTargetTriple());
    std::string guardError;
    if (guardCalls && !addCallGuards(*llvmModule, guardError)) {
      module.emitError(guardError);
      return nullptr;
    }
    return llvmModule;
  };
  std::unique_ptr<llvm::Module> llvmModule = translate();
  if (!llvmModule || optLevel == 0)
    return llvmModule;
  optimize(*llvmModule, *tm, optLevel, /*slp=*/true);
  // LLVM 22's SLP vectoriser can leave a use before its definition where it
  // turns calls into libmvec calls (an n-body step's exp over AVX2 lanes);
  // nothing checks the module after the pipeline, so the object would run
  // garbage. Such a module is optimised again without SLP.
  if (!llvm::verifyModule(*llvmModule, &llvm::nulls()))
    return llvmModule;
  llvmModule = translate();
  if (!llvmModule)
    return nullptr;
  optimize(*llvmModule, *tm, optLevel, /*slp=*/false);
  std::string broken;
  llvm::raw_string_ostream os(broken);
  if (llvm::verifyModule(*llvmModule, &os)) {
    module.emitError("LLVM's optimisation produced an invalid module (an "
                     "LLVM bug; -O0 avoids it): ")
        << broken;
    return nullptr;
  }
  return llvmModule;
}

LogicalResult mlir::sdfg::emitObjectFile(llvm::Module &module,
                                         llvm::raw_pwrite_stream &os,
                                         std::string &error, StringRef cpu) {
  std::unique_ptr<llvm::TargetMachine> tm = hostMachine(cpu, error);
  if (!tm)
    return failure();
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile)) {
    error = "the host target cannot emit object files";
    return failure();
  }
  pm.run(module);
  return success();
}

LogicalResult mlir::sdfg::linkSharedLibrary(StringRef objectPath,
                                            StringRef outputPath,
                                            std::string &error, bool gpu) {
  // OpenBLAS as CMake found it (CBLAS and LAPACK), libm for what the
  // math-to-libm conversion calls.
  SmallVector<StringRef> args = {
      SDFG_CLANG_PATH, "-shared",  "-fopenmp",        "-o",
      outputPath,      objectPath, SDFG_BLAS_LIBRARY, "-lm"};
#ifdef SDFG_GPU_RUNTIME_DIR
  // The runtime next to this tool (bin/../lib, in the build tree and in an
  // installed prefix alike), else where it was built.
  std::string runtimeDir = SDFG_GPU_RUNTIME_DIR;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  if (!exe.empty()) {
    SmallString<256> dir(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
    llvm::sys::path::append(dir, "lib");
    SmallString<256> lib(dir);
    llvm::sys::path::append(lib, "libsdfg_gpu_runtime.so");
    if (llvm::sys::fs::exists(lib))
      runtimeDir = std::string(dir);
  }
  std::string searchFlag = "-L" + runtimeDir;
  std::string rpathFlag = "-Wl,-rpath," + runtimeDir;
  if (gpu)
    args.append({searchFlag, "-lsdfg_gpu_runtime", rpathFlag});
#else
  if (gpu) {
    error = "this build has no GPU runtime (no CUDA toolkit at configure "
            "time)";
    return failure();
  }
#endif
  int rc = llvm::sys::ExecuteAndWait(SDFG_CLANG_PATH, args, std::nullopt, {}, 0,
                                     0, &error);
  if (rc != 0) {
    if (error.empty())
      error = "linker exited with status " + std::to_string(rc);
    return failure();
  }
  return success();
}
