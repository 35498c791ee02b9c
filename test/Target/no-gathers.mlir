// A map whose innermost dimension is short and constant (40 levels of a
// 3-D stencil): LLVM unrolls that loop fully and, allowed to, vectorises
// the loop around it across rows with a scatter or gather per element
// (1.6x slower than the unrolled body vectorised as it is contiguous).
// sdfg-translate tells the x86 backend to prefer neither; on a processor
// with AVX-512 gathers and scatters none is left.
// RUN: sdfg-translate %s -emit=llvm -O3 --mcpu=skylake-avx512 | FileCheck %s
// CHECK-LABEL: define void @fill_and_shift
// CHECK-NOT: llvm.masked.scatter
// CHECK-NOT: llvm.masked.gather
// CHECK: store <{{[0-9]+}} x double>
// CHECK-NOT: llvm.masked.scatter
// CHECK-NOT: llvm.masked.gather

sdfg.sdfg @fill_and_shift(%a: memref<64x64x40xf64> {sdfg.name = "a"},
    %b: memref<66x66x40xf64> {sdfg.name = "b"}) {
  sdfg.state {
    sdfg.map (%i, %j, %k) = (0, 0, 0) to (64, 64, 40) step (1, 1, 1) schedule(sequential) {
      %one = sdfg.tasklet() : () -> f64 {
        %c = arith.constant 1.0 : f64
        sdfg.yield %c : f64
      }
      sdfg.store %one, %a[%i, %j, %k] : memref<64x64x40xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j, %k) = (0, 0, 0) to (64, 64, 40) step (1, 1, 1) schedule(sequential) {
      %x = sdfg.load %b[%i + 1, %j + 2, %k] : memref<66x66x40xf64>
      %y = sdfg.load %b[%i, %j, %k] : memref<66x66x40xf64>
      %s = sdfg.tasklet(%x, %y) : (f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64):
        %d = arith.subf %u, %v : f64
        sdfg.yield %d : f64
      }
      sdfg.store %s, %a[%i, %j, %k] wcr(add) : memref<64x64x40xf64>
    }
  }
}
