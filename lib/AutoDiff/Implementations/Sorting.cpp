//===- Sorting.cpp - Reverse rules of argsort and searchsorted
//--------------===//
//
// Sorting ops produce integer positions, which carry no gradient (the
// gather that reads them does); their reverse only restores what they
// overwrote.
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

// The positions are integers: nothing to propagate (the gather that reads
// them, a sort, carries the gradient). What the op overwrote comes back
// from its tape: in a loop, the earlier iterations' gathers read their own
// positions.
static LogicalResult reverseArgsort(ArgsortOp op, ReverseBuilder &rb) {
  restoreWhole(rb, op, op.getResult());
  return success();
}

// As argsort's: integer positions, restored from the tape for the
// gathers of earlier loop iterations.
static LogicalResult reverseSearchsorted(SearchsortedOp op,
                                         ReverseBuilder &rb) {
  restoreWhole(rb, op, op.getResult());
  return success();
}

void mlir::sdfg::detail::attachSortingRules(MLIRContext *ctx) {
  ArgsortOp::attachInterface<ReverseRule<ArgsortOp, reverseArgsort>>(*ctx);
  SearchsortedOp::attachInterface<
      ReverseRule<SearchsortedOp, reverseSearchsorted>>(*ctx);
}
