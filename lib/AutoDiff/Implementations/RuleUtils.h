//===- RuleUtils.h - Helpers shared by the reverse rules --------*- C++ -*-===//
//
// Private to AutoDiff/Implementations: the model that turns a rule function
// into a ReverseModeOpInterface external model, each family's attach
// function (Register.cpp calls them all), and the helpers several families
// use.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_LIB_AUTODIFF_IMPLEMENTATIONS_RULEUTILS_H
#define SDFG_LIB_AUTODIFF_IMPLEMENTATIONS_RULEUTILS_H

#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace mlir {
class DialectRegistry;
namespace sdfg {
namespace detail {

/// The reverse-mode model of `OpT`: its rule is the function `Rule`.
template <typename OpT, LogicalResult (*Rule)(OpT, ReverseBuilder &)>
struct ReverseRule
    : public ReverseModeOpInterface::ExternalModel<ReverseRule<OpT, Rule>,
                                                   OpT> {
  LogicalResult emitReverse(Operation *op, ReverseBuilder &rb) const {
    return Rule(cast<OpT>(op), rb);
  }
};

/// The forward-mode model of `OpT`: `Model::emit(op, builder, tangentOf,
/// zero)` writes the tangent of its output (Tangents.cpp,
/// FactorisationTangents.cpp).
using TangentOf = function_ref<Value(Value)>;
using Zero = function_ref<void(Value)>;
template <typename OpT, typename Model>
struct TangentModel
    : public TangentOpInterface::ExternalModel<TangentModel<OpT, Model>, OpT> {
  LogicalResult emitTangent(Operation *op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) const {
    return Model::emit(cast<OpT>(op), b, tangentOf, zero);
  }
};

/// One per family of ops, each in the file named after it.
void attachControlFlowRules(MLIRContext *ctx);
void attachMapRules(MLIRContext *ctx);
void attachMemletRules(MLIRContext *ctx);
void attachSortingRules(MLIRContext *ctx);
void attachBLASRules(MLIRContext *ctx);
void attachFactorisationRules(MLIRContext *ctx);
void attachCustomCallRules(MLIRContext *ctx);
/// Both modes of sdfg.fft (FFT.cpp).
void attachFFTRules(MLIRContext *ctx);
/// TangentOpInterface (forward mode) on the library ops (Tangents.cpp),
/// the factorisations' in FactorisationTangents.cpp.
void attachTangentRules(MLIRContext *ctx);
void attachFactorisationTangentRules(MLIRContext *ctx);
/// ScalarAdjointOpInterface on the arith and math ops (as extensions of
/// their dialects).
void attachArithMathAdjoints(DialectRegistry &registry);

/// Whether reversing `op` emits anything: it (or an op inside it) writes an
/// active container or restores a taped one.
bool needsReverse(ReverseBuilder &rb, Operation *op);

/// Index operands of a forward op, recomputed at the insertion point.
SmallVector<Value> recomputeAll(ReverseBuilder &rb, ValueRange vals);

/// A scalar computed by a tasklet over `inputs` in the backward program.
Value scalarTasklet(
    ReverseBuilder &rb, Location loc, ValueRange inputs, Type result,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn);

/// Checks that the loads feeding `value` still see, at `user`, the data
/// they read (recomputing them in the backward program relies on it).
LogicalResult checkRecomputable(Value value, Operation *user);

/// `container[idx] += value` where no other iteration of the enclosing map
/// touches the element: a plain read-modify-write, not an atomic wcr.
void accumulateUnique(ReverseBuilder &rb, Location loc, Value value,
                      Value container, AffineMap map, ValueRange operands);

/// Restores a library op's output from its tape (whole container).
void restoreWhole(ReverseBuilder &rb, Operation *op, Value container);

/// A new transient of `type` allocated at the top of the program being
/// built: scratch space of a rule (a state may not allocate).
Value allocateAtEntry(ReverseBuilder &rb, Location loc, MemRefType type);

/// The access maps of a 2-d map's inputs: (i, j), (j, i), (i) and (j).
struct Access2D {
  AffineMap id, swapped, row, col;
  explicit Access2D(MLIRContext *ctx);
};

/// `out[i, j] = fn(i, j, ins read at (i, j))` over out's (static) 2-d
/// shape, in a parallel map of the current state; each input has its
/// access map (Access2D). `out` may be an input read at (i, j) only.
void mapElementwise(
    OpBuilder &b, Location loc, Value out,
    ArrayRef<std::pair<Value, AffineMap>> ins,
    function_ref<Value(OpBuilder &, Value, Value, ArrayRef<Value>)> fn);

/// `num / gap` off the diagonal (i != j), 0 on it: the F matrix of the
/// spectral derivatives (eigh: gap = w[j] - w[i], svd: s[j]^2 - s[i]^2),
/// whose diagonal (1/0) does not enter them.
Value offDiagonalRatio(OpBuilder &ib, Location loc, Value i, Value j, Value num,
                       Value gap);

/// A located error unless `v` has a static shape.
LogicalResult requireStatic(Operation *op, Value v);

} // namespace detail
} // namespace sdfg
} // namespace mlir

#endif // SDFG_LIB_AUTODIFF_IMPLEMENTATIONS_RULEUTILS_H
