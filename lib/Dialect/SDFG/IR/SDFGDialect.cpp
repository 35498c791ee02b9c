//===- SDFGDialect.cpp - The sdfg dialect ---------------------------------===//

#include "sdfg/Dialect/SDFG/IR/SDFGDialect.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::sdfg;

#include "sdfg/Dialect/SDFG/IR/LibraryOpInterface.cpp.inc"
#include "sdfg/Dialect/SDFG/IR/SDFGDialect.cpp.inc"

void SDFGDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sdfg/Dialect/SDFG/IR/SDFGOps.cpp.inc"
      >();
}

void mlir::sdfg::registerSDFGDialect(DialectRegistry &registry) {
  // Tasklet bodies hold arith and math ops, and containers are memrefs.
  registry.insert<SDFGDialect, arith::ArithDialect, math::MathDialect,
                  memref::MemRefDialect>();
}
