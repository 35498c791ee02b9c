// RUN: sdfg-translate -O0 %s | FileCheck %s --check-prefix=LLVM
// RUN: sdfg-translate %s -emit=shared -o %t.so && llvm-nm -D %t.so | FileCheck %s --check-prefix=SO
// RUN: sdfg-opt %s --sdfg-autodiff | FileCheck %s --check-prefix=REV
// RUN: not sdfg-translate %s --target=gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU

// Each print appends {site, -1, 0} and then, per value, {site, position,
// bytes} and the bytes to the calling thread's log (sdfg_print_data,
// sdfg_print_size), which the caller reads after the call.
// LLVM-LABEL: define {{.*}}@f.guarded(
// LLVM: call void @__sdfg_print(i64 3, i64 -1, ptr null, i64 0)
// LLVM: call void @__sdfg_print(i64 3, i64 0, ptr %{{.*}}, i64 8)
// LLVM: call void @__sdfg_print(i64 3, i64 1, ptr %{{.*}}, i64 24)
// LLVM: call void @__sdfg_print(i64 4, i64 -1, ptr null, i64 0)
// SO-DAG: sdfg_print_data
// SO-DAG: sdfg_print_size
// A gradient program prints in its forward sweep, once, and gives the
// print no derivative.
// REV-LABEL: sdfg.sdfg @f_grad(
// REV: sdfg.print site 3 (%__return0, %x : memref<f64>, memref<3xf64>)
// REV-NEXT: sdfg.print site 4
// REV-NOT: sdfg.print
// REV: }
// GPU: error: 'sdfg.print' op is not supported on the GPU
sdfg.sdfg @f(%x: memref<3xf64> {sdfg.name = "x"},
             %__return0: memref<f64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<3xf64>
      %d = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %m = arith.mulf %a, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %d, %__return0[] wcr(add) : memref<f64>
    }
  }
  sdfg.state {
    sdfg.print site 3 (%__return0, %x : memref<f64>, memref<3xf64>)
    sdfg.print site 4
  }
}
