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

/// One per family of ops, each in the file named after it.
void attachControlFlowRules(MLIRContext *ctx);
void attachMapRules(MLIRContext *ctx);
void attachMemletRules(MLIRContext *ctx);
void attachSortingRules(MLIRContext *ctx);
void attachBLASRules(MLIRContext *ctx);
void attachFactorisationRules(MLIRContext *ctx);
void attachCustomCallRules(MLIRContext *ctx);
/// TangentOpInterface (forward mode) on the library ops (Tangents.cpp).
void attachTangentRules(MLIRContext *ctx);
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

/// A located error unless `v` has a static shape.
LogicalResult requireStatic(Operation *op, Value v);

} // namespace detail
} // namespace sdfg
} // namespace mlir

#endif // SDFG_LIB_AUTODIFF_IMPLEMENTATIONS_RULEUTILS_H
