//===- TangentBuilder.h - State of one forward-mode AD run ------*- C++ -*-===//
//
// Private to lib/AutoDiff/Transforms: the builder of one tangent program
// (sdfg-forward-diff). ForwardDiff.cpp holds the pass, the names and the
// tangent containers; TangentWrites.cpp the tangent of each write.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_AUTODIFF_TRANSFORMS_TANGENTBUILDER_H
#define SDFG_AUTODIFF_TRANSFORMS_TANGENTBUILDER_H

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <string>

namespace mlir {
namespace sdfg {
namespace detail {

inline bool isFloatContainer(Value v) {
  auto m = dyn_cast<MemRefType>(v.getType());
  return m && isa<FloatType>(m.getElementType());
}

/// Builds the tangent program of one sdfg.sdfg.
class TangentBuilder {
public:
  TangentBuilder(SDFGOp fwd, ArrayRef<std::string> wrt,
                 ArrayRef<std::string> outputs, StringRef suffix)
      : fwd(fwd), b(fwd.getContext()), rb(b), wrtOpt(wrt), outOpt(outputs),
        suffix(suffix) {}

  LogicalResult run();

private:
  LogicalResult resolveNames();
  void findVaried();
  void findVariedFrom();
  void collectFloatReads(Value v, llvm::SetVector<Value> &out);
  LogicalResult createTangentContainers();
  void setInsertionPointAfterAllocs();
  LogicalResult rewrite(Operation *op);
  Value tangentOf(Value v);
  LogicalResult differentiateTasklet(TaskletOp task);
  Value zeroSource(Value like, Location loc);
  Value transientLike(Value like, Location loc, StringRef name);
  LogicalResult chooserTangent(StoreOp s, Value tc);
  void forEachElement(Value container, Location loc,
                      function_ref<void(ValueRange, AffineMap)> body);

  SDFGOp fwd, jvp;
  OpBuilder b;
  ReverseBuilder rb;
  ArrayRef<std::string> wrtOpt, outOpt;
  StringRef suffix;
  SmallVector<std::string> wrtNames, outNames;
  /// Containers that depend on the differentiated inputs.
  llvm::SetVector<Value> varied;
  /// Container -> its tangent container.
  llvm::DenseMap<Value, Value> tangent;
  /// The tangent containers (written in maps beside their primals).
  llvm::DenseSet<Value> tangentContainers;
  /// Scalar -> its tangent (null: zero).
  llvm::DenseMap<Value, Value> scalar;
  /// Element type -> a transient of zeros, the source of copies whose
  /// values have no tangent.
  llvm::DenseMap<Type, Value> zeros;
  bool failedRule = false;
};

} // namespace detail
} // namespace sdfg
} // namespace mlir

#endif // SDFG_AUTODIFF_TRANSFORMS_TANGENTBUILDER_H
