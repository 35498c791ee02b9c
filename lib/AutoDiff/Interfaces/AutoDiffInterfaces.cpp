//===- AutoDiffInterfaces.cpp - Reverse-mode AD rules ---------------------===//

#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.h"

using namespace mlir;
using namespace mlir::sdfg;

#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.cpp.inc"
