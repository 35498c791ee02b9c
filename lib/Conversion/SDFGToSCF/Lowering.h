//===- Lowering.h - Shared state of the sdfg-to-std lowering ----*- C++ -*-===//
//
// Internal to lib/Conversion/SDFGToSCF.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_SDFGTOCPU_LOWERING_H
#define LIB_CONVERSION_SDFGTOCPU_LOWERING_H

#include "sdfg/Conversion/SDFGToSCF/LoopNests.h"
#include "sdfg/Dialect/SDFG/Analysis/Factorisation.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace sdfg {
namespace detail {

/// A WCR store whose partial results a map's loops from `level` inward
/// carry in registers.
struct RegisterReduction {
  StoreOp store;
  unsigned level;
};

using StoreSet = llvm::SmallPtrSet<Operation *, 8>;

/// A container the chunks of a parallel map accumulate into privately:
/// `buffer` holds one copy per chunk (memref<64 x shape>).
struct PrivateCopy {
  Value container;
  /// What `container` lowers to outside the map.
  Value original;
  Value buffer;
  WCRKind kind;
};

/// Whether iterations with distinct values of `param` (a map parameter)
/// write distinct elements of `s`'s container (SDFGToSCF.cpp).
bool separatedBy(StoreOp s, Value param);

/// The entry block of the function around `b`'s insertion point
/// (IndexChecks.cpp).
Block *entryBlock(OpBuilder &b);

/// The source line of `loc` (its first file location), or -1
/// (IndexChecks.cpp).
int64_t sourceLine(Location loc);

/// Frees a unified-memory buffer in program order (SDFGToSCF.cpp).
void freeShared(OpBuilder &b, Location loc, Value memref);

/// The exported, zero-initialised i64 global `name` of `shape` through
/// which a compiled program reports a failure to its caller (created once).
memref::GlobalOp errorGlobal(ModuleOp module, StringRef name,
                             ArrayRef<int64_t> shape);

/// `sdfg_index_error`: {source line, index, axis, extent} of the first
/// access whose data-derived index was outside its container (line 0:
/// none). Documented in docs/c-abi.md.
inline constexpr llvm::StringLiteral kIndexError = "sdfg_index_error";

/// One bounds check of an access: `ok` holds when `index` is within
/// [0, `extent`) along `axis`.
struct IndexCheck {
  Value ok, index, extent;
  int64_t axis;
  /// The access's source line when the check is not at the access (0: the
  /// line of the report's location).
  int64_t line = 0;
};

/// The LU factors of the last matrix the solves on one container
/// factorised (LinearSolve.cpp): solves with the same matrix, bit for bit,
/// reuse them (an implicit time loop factorises once, and the gradient's
/// transposed solves reuse the forward's factors).
struct SolveCache {
  Value matrix;  // copy of the matrix factorised
  Value factors; // LAPACK's LU of it (column-major view: of its transpose)
  Value pivots;  // i32 pivot indices
  Value info;    // getrf's info for it (memref<i32>)
  Value valid;   // i8: 0 until the first factorisation
};

/// The eigendecomposition of the last matrix the `sdfg.eigh`s on one
/// container computed (LinearSolve.cpp): the values' and vectors' ops of
/// one `np.linalg.eigh`, and their reverse rules, which recompute each
/// other's result, share one syevd.
struct EigenCache {
  Value matrix;  // copy of the matrix decomposed
  Value vectors; // syevd's column-major result (the eigenvectors)
  Value values;  // the eigenvalues, ascending
  Value info;    // syevd's info for it (memref<i32>)
  Value state;   // i8: 0 empty, 1 values only, 2 values and vectors
};

/// The QR decomposition of the last matrix the `sdfg.qr`s on one container
/// computed: the Q and R ops of one `np.linalg.qr`, and their reverse
/// rules, which recompute each other's result, share one geqrf (and one
/// orgqr).
struct QRCache {
  Value matrix;  // copy of the matrix decomposed
  Value factors; // geqrf's column-major result (R above the diagonal)
  Value tau;     // geqrf's reflector scalars
  Value q;       // orgqr's column-major Q
  Value state;   // i8: 0 empty, 1 factors, 2 factors and Q
};

/// The singular value decomposition of the last matrix the `sdfg.svd`s on
/// one container computed (U, s and Vh of one `np.linalg.svd` and their
/// reverse rules share one gesdd).
struct SVDCache {
  Value matrix; // copy of the matrix decomposed
  Value values; // the singular values, descending
  Value u, vt;  // gesdd's column-major U and Vh
  Value info;   // gesdd's info for it (memref<i32>)
  Value state;  // i8: 0 empty, 1 values only, 2 values and vectors
};

/// The WCR stores of a map body split into groups that are lowered as
/// separate loops (AccumulationNests.cpp).
struct AccumulationPlan {
  /// Each group's WCR stores.
  SmallVector<StoreSet> nests;
  /// With `gather`, each group's offset along the innermost dimension,
  /// ascending: the groups share one loop over the element they write.
  /// Otherwise each group is a loop nest of its own.
  SmallVector<int64_t> shifts;
  bool gather = false;
  /// The body's plain stores, lowered after every group.
  StoreSet plainStores;

  bool empty() const { return nests.empty(); }
};

/// Translates the body of one sdfg.sdfg into a func.func, structurally:
/// each sdfg op is emitted at the builder's insertion point with its
/// operands looked up in `mapping`. A structural walk (rather than a
/// dialect-conversion pattern set) keeps the enclosing parallel context at
/// hand, which decides whether a WCR store must be atomic.
class Lowering {
public:
  Lowering(ModuleOp module, OpBuilder &builder, bool gpu = false,
           bool checkIndices = false)
      : module(module), b(builder), gpu(gpu), checkIndices(checkIndices) {}
  virtual ~Lowering() = default;

  /// Whether this lowers for the GPU (the GPU lowering, SDFGToGPU).
  bool targetsGPU() const { return gpu; }

  LogicalResult lowerRegion(Region &region);
  LogicalResult lowerOp(Operation *op);

  /// Library ops (LibraryOps.cpp).
  /// BLAS and LAPACK take 32-bit integers (Debian's OpenBLAS is LP64):
  /// an extent of an operand of a library call past 2^31-1 is a located
  /// error when static, and reported at run time (axis -4 of the index
  /// record, ValueError in Python) when dynamic.
  LogicalResult checkLibraryExtents(Operation *op);
  LogicalResult lowerMatmul(MatmulOp op);
  LogicalResult lowerGemv(GemvOp op);
  LogicalResult lowerGer(GerOp op);
  /// cblas_?gemm (sdfg_gpu_cblas_?gemm on the GPU) for element type `elt`.
  func::FuncOp declareGemm(Location loc, Type elt);
  LogicalResult lowerDot(DotOp op);
  LogicalResult lowerCustomCall(CustomCallOp op);
  LogicalResult lowerPrint(PrintOp op);
  LogicalResult lowerTranspose(TransposeOp op);
  LogicalResult lowerReduce(ReduceOp op);
  LogicalResult lowerSolve(SolveOp op);
  /// Allocates / frees the factorisation cache of `m` at the insertion
  /// point.
  void allocFactorisationCache(Location loc, const FactorisedMatrix &m);
  void freeFactorisationCache(Location loc, const FactorisedMatrix &m);

  /// Index values of `map`'s results over the (mapped) `operands`.
  SmallVector<Value> expandMap(Location loc, AffineMap map,
                               ValueRange operands);

  /// Which results of `map` over the sdfg `operands` depend on data; empty
  /// when none do or checks are off (IndexChecks.cpp).
  SmallVector<bool> dataResults(AffineMap map, ValueRange operands);
  /// Bounds checks of the dimensions of an access (`map` over the sdfg
  /// `operands`, expanded to `idx`) whose index depends on data; none when
  /// checks are off (IndexChecks.cpp).
  SmallVector<IndexCheck> elementChecks(Operation *op, Value memref,
                                        AffineMap map, ValueRange operands,
                                        ArrayRef<Value> idx);
  /// For a loop whose bounds are data (`first` iterate, `trips` count):
  /// the checks, once before it, of the accesses in its body that index a
  /// dimension with its iterator plus a constant; those dimensions are
  /// then not checked at the access.
  SmallVector<IndexCheck> loopChecks(LoopOp loop, Value first, Value trips);
  /// `0 <= index < extent`, as one unsigned compare.
  Value inBounds(Location loc, Value index, Value extent);
  /// The check of a range of `count` elements from `first` by `step`
  /// along `axis`: its first and last element, when it has one.
  IndexCheck rangeCheck(Location loc, Value first, Value count, int64_t step,
                        Value extent, int64_t axis);
  /// Emits `access` where every check holds; otherwise reports the first
  /// failing check and yields zero of `resultType` (null: no result).
  Value guardAccess(Location loc, ArrayRef<IndexCheck> checks, Type resultType,
                    function_ref<Value()> access);
  /// Records the first failing check in `sdfg_index_error` unless an
  /// earlier failure did.
  void reportBadIndex(Location loc, ArrayRef<IndexCheck> checks);
  /// Reports `check` where it fails, when checks are on (the check ops).
  void reportUnless(Location loc, const IndexCheck &check);
  /// NumPy's broadcast of two run-time extents; a pair that does not
  /// broadcast is reported like a failed index check (IndexChecks.cpp).
  LogicalResult lowerBroadcastExtent(BroadcastExtentOp op);
  /// An index checked against a view's extent (IndexChecks.cpp).
  LogicalResult lowerCheckIndex(CheckIndexOp op);
  /// At the function's exit: reports the failure the sequential code kept
  /// in its stack slot, if any.
  void reportFailedIndexAtExit(Location loc);
  /// Field `k` of a {line, index, axis, extent} record (failedIndex or
  /// kernelFailedIndex).
  Value recordField(Location loc, Value record, int64_t k);
  /// Inside a GPU kernel: claims the kernels' record for the first failure
  /// with a compare-and-swap on its line and writes the other `fields`.
  void reportInKernel(Location loc, ArrayRef<Value> fields);

  /// Combines `cur` and `val` with the WCR operation.
  Value combine(Location loc, WCRKind kind, Value cur, Value val);

  /// Writes `val` into `memref[indices]`, combining with `wcr` if set;
  /// atomically when inside a parallel map.
  void emitWrite(Location loc, Value val, Value memref, ValueRange indices,
                 std::optional<WCRKind> wcr);

  /// Combines a register reduction's stored value into its accumulator.
  Value accumulate(Location loc, StoreOp s, Value acc);
  /// Atomically applies `kind` with a compare-and-swap loop.
  void emitCompareAndSwap(Location loc, WCRKind kind, Value val, Value memref,
                          ValueRange indices);

  IRMapping mapping;
  /// Whether the sdfg being lowered calls BLAS or LAPACK (isSmallWork).
  bool callsLibrary = false;
  /// Factorisation caches by (sdfg) matrix container.
  DenseMap<Value, SolveCache> solveCaches;
  DenseMap<Value, EigenCache> eigenCaches;
  DenseMap<Value, QRCache> qrCaches;
  DenseMap<Value, SVDCache> svdCaches;

  /// WCR stores of `map`'s body that can accumulate in a register across
  /// the map's inner loops: they sit directly in the body, their element
  /// does not depend on the parameters from `level` on, and the map
  /// touches their container only with WCR stores of the same kind
  /// (MapReductions.cpp).
  static SmallVector<RegisterReduction> findRegisterReductions(MapOp map);
  /// The containers a parallel map distributed over its first parameter
  /// touches only with WCR stores of one kind that its threads may share
  /// (not told apart by that parameter), small enough for one copy per
  /// chunk, with their kinds (MapReductions.cpp).
  SmallVector<PrivateCopy> findPrivatizable(MapOp map);
  /// Allocates the chunk copies (before the parallel loop).
  void allocatePrivateCopies(Location loc, MutableArrayRef<PrivateCopy> copies);
  /// Inside chunk `chunk`: fills its copies with the identity and lowers
  /// stores to the containers into them.
  void usePrivateCopies(Location loc, ArrayRef<PrivateCopy> copies,
                        Value chunk);
  /// After the loop: combines the first `chunks` copies into the
  /// containers in chunk order, and frees them.
  void combinePrivateCopies(Location loc, ArrayRef<PrivateCopy> copies,
                            Value chunks);

  /// How to lower the loops of a map from `firstLoop` inward (those one
  /// thread runs) when WCR stores into neighbouring elements along the
  /// innermost parameter would chain its iterations through memory; empty
  /// when one loop nest is best or the body does not allow another
  /// (AccumulationNests.cpp).
  static AccumulationPlan planAccumulations(MapOp map, unsigned firstLoop);

protected:
  LogicalResult lowerLoop(LoopOp op);
  LogicalResult lowerIf(IfOp op, unsigned branch);
  LogicalResult lowerWhile(WhileOp op);
  LogicalResult lowerMap(MapOp op);
  /// lowerMap's work once the map's bounds are expanded and whether it
  /// forks threads is decided.
  LogicalResult lowerMapAs(MapOp op, bool parallel, SmallVector<Value> lbs,
                           SmallVector<Value> ubs, SmallVector<Value> steps);
  /// Whether a parallel map does too little work (statically known) to be
  /// worth forking threads for on the CPU.
  bool isSmallWork(MapOp op);
  /// Where the work of a parallel map is not known when compiling only
  /// because its own bounds are not constants (a size read at run time):
  /// the i1 value "it is worth forking threads for", computed from its
  /// trip counts with the same thresholds as isSmallWork. Null otherwise.
  Value forkWorthIt(Location loc, MapOp op, ArrayRef<Value> lbs,
                    ArrayRef<Value> ubs, ArrayRef<Value> steps);
  /// The GPU target's hooks (SDFGToGPU/GPUKernels.cpp overrides them; on
  /// the CPU no op runs on one thread and no map is a kernel).
  /// Whether `op` (a state or control op at host level) is better run as
  /// a one-thread kernel: it touches containers and holds no kernel or
  /// cuBLAS call of its own.
  virtual bool runsOnOneThread(Operation *op) { return false; }
  /// Lowers `op` inside a one-thread gpu.launch.
  virtual LogicalResult lowerOnOneThread(Operation *op);
  /// Lowers an outermost gpu_device map to a gpu.launch.
  virtual LogicalResult lowerGPUMap(MapOp op, ArrayRef<Value> lbs,
                                    ArrayRef<Value> ubs, ArrayRef<Value> steps);
  /// Lowers a map with register reductions: loops carry one accumulator
  /// per reduction, combined into memory once after them (once per chunk,
  /// atomically, when the map runs in parallel).
  LogicalResult lowerReductionMap(MapOp op,
                                  ArrayRef<RegisterReduction> reductions,
                                  bool parallel, SmallVector<Value> lbs,
                                  SmallVector<Value> ubs,
                                  ArrayRef<Value> steps);
  /// Opens nested loops over `op`'s parameters [from, to) at the insertion
  /// point and leaves it inside the innermost.
  void openLoops(MapOp op, unsigned from, unsigned to, ArrayRef<Value> lbs,
                 ArrayRef<Value> ubs, ArrayRef<Value> steps);
  /// Lowers `op`'s body at the insertion point with only the stores in
  /// `only` (all if null).
  LogicalResult lowerBodyKeeping(MapOp op, const StoreSet *only);
  /// Lowers `op`'s body inside new loops over its parameters from `from`
  /// on, with only the stores in `only` (all if null).
  LogicalResult lowerBodyInLoops(MapOp op, unsigned from, ArrayRef<Value> lbs,
                                 ArrayRef<Value> ubs, ArrayRef<Value> steps,
                                 const StoreSet *only);
  /// Lowers `op`'s loops from `first` inward as `plan` says.
  LogicalResult lowerAccumulations(MapOp op, const AccumulationPlan &plan,
                                   unsigned first, ArrayRef<Value> lbs,
                                   ArrayRef<Value> ubs, ArrayRef<Value> steps);
  LogicalResult lowerCopy(CopyOp op);
  /// The copy's loops and element moves, without checks.
  void lowerCopyLoops(CopyOp op, Value source, Value target,
                      ArrayRef<Value> srcB, ArrayRef<Value> dstB);
  /// Bounds checks of the data-derived dimensions of one side of a copy
  /// (`bounds`: two values per dimension, from `map`): an element index, or
  /// a range's first and last element.
  SmallVector<IndexCheck> subsetChecks(Location loc, Value memref,
                                       const Subset &subset, AffineMap map,
                                       ArrayRef<Value> bounds, CopyOp op);
  LogicalResult lowerTasklet(TaskletOp op);

  ModuleOp module;
  OpBuilder &b;
  /// Lowering for the GPU: gpu_device maps become kernels, library ops call
  /// the cuBLAS-backed runtime.
  bool gpu;
  /// Whether accesses with data-derived indices are bounds-checked.
  bool checkIndices;
  /// memref<4xi64> stack slot of the first failed check outside parallel
  /// maps ({line, index, axis, extent}; line 0: none); null until needed.
  Value failedIndex;
  /// The same record for GPU kernels, in unified memory (a kernel cannot
  /// write the host's global; the host reads this one at exit).
  Value kernelFailedIndex;
  /// (access, axis) pairs a loop checked before it ran (loopChecks).
  llvm::DenseSet<std::pair<Operation *, unsigned>> checkedBeforeLoop;
  /// Number of enclosing maps that run in parallel.
  unsigned parallelDepth = 0;
  /// Number of those whose wcr writes may collide (need atomics).
  unsigned atomicDepth = 0;
  /// The sdfg parameter the enclosing parallel map distributes over
  /// threads (its first); null outside parallel maps.
  Value distributed;
  /// Inside a GPU kernel: the parameters that tell its concurrent threads
  /// apart (those mapped to thread dimensions, less the first parameter of
  /// a disjoint_wcr map, whose distinct values write distinct elements).
  std::optional<SmallVector<Value, 3>> threadParams;
  /// Whether `s` writes elements no other thread writes: on the CPU the
  /// distributed parameter, in a GPU kernel every parameter of
  /// threadParams, appears plus a constant in the same index of every
  /// write to that container in the map.
  bool writesThreadPrivate(StoreOp s);
  /// While a map's body is lowered as one of several loop nests: the
  /// stores that nest keeps (the others are skipped).
  const StoreSet *nestStores = nullptr;
  /// Containers whose stores go to a chunk's private copy (see
  /// PrivateCopy); their mapping points at the copy meanwhile.
  llvm::DenseSet<Value> privatized;
  /// The running accumulator of each register reduction being lowered.
  llvm::DenseMap<Operation *, Value> accumulators;

  /// Declares (once) an external C function.
  func::FuncOp getOrDeclare(Location loc, StringRef name, FunctionType type);
  /// The aligned base pointer of a memref as an !llvm.ptr.
  Value basePointer(Location loc, Value memref);

  /// LAPACK's LU factors of the matrix `matrix` (an sdfg container) for one
  /// solve or determinant (LinearSolve.cpp): from its cache when it has
  /// one, else into scratch freed by the caller.
  struct LUFactors {
    Value factors, pivots;
    Value info;        // memref<i32>: getrf's info
    Value nRef, ldRef; // memref<i32>: n and the leading dimension
    SmallVector<Value> scratch;
  };
  LUFactors factorise(Location loc, Value matrix);
  /// Unless a cache whose i8 `state` is at least `need` holds the matrix
  /// `a` (its copy `cached` equal to `a`, bit for bit): copies `a` into
  /// `cached`, runs `refresh` (which fills the rest of the cache) and sets
  /// `state` to `need`.
  void refreshUnlessCached(Location loc, Value a, Value cached, Value state,
                           int64_t need, function_ref<void()> refresh);
  LogicalResult lowerDet(DetOp op);
  LogicalResult lowerCholesky(CholeskyOp op);
  LogicalResult lowerEigh(EighOp op);
  LogicalResult lowerQR(QROp op);
  /// `call(work, lwork)` once with lwork -1 (LAPACK's workspace query,
  /// the optimal size written to work[0]), then with a workspace of that
  /// many elements (at least `minWork`), as NumPy calls LAPACK.
  void withWorkspace(Location loc, Type elt, Value minWork,
                     function_ref<void(Value, Value)> call);
  /// A LAPACK routine taking (dims..., A, lda, tau, work, lwork, info) by
  /// reference, after its workspace query (LinearSolve.cpp).
  void callWithWorkspace(Location loc, StringRef name, ArrayRef<Value> dims,
                         Value f, Value ld, Value tau, Value info,
                         Value minWork);
  LogicalResult lowerSVD(SVDOp op);
  /// A stable merge sort of each line (Sort.cpp).
  LogicalResult lowerArgsort(ArgsortOp op);
  /// A binary search per value (Sort.cpp).
  LogicalResult lowerSearchsorted(SearchsortedOp op);
  /// Radix-2 or Bluestein transforms of each line (FFT.cpp).
  LogicalResult lowerFft(FftOp op);
};

/// Replaces math.log1p and math.expm1 under `root` by formulas exact to a
/// few ulps: math-to-llvm lowers them as log(1 + x) and exp(x) - 1, which
/// lose every digit for small x (NumPy's are exact).
void expandPreciseMath(Operation *root);

/// Makes the lowering of one sdfg.sdfg, whose function body `builder`
/// fills: the CPU's Lowering, or the GPU's (SDFGToGPU).
using LoweringFactory =
    function_ref<std::unique_ptr<Lowering>(ModuleOp, OpBuilder &)>;

/// Lowers every sdfg.sdfg of `module` to a function (the ABI of
/// docs/design/c-abi.md) with the lowerings `make` returns.
LogicalResult lowerSDFGs(ModuleOp module, LoweringFactory make);

} // namespace detail
} // namespace sdfg
} // namespace mlir

#endif // LIB_CONVERSION_SDFGTOCPU_LOWERING_H
