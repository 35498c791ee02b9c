// REQUIRES: cuda-toolkit
// A checked kernel's compare-and-swap on the record is PTX ptxas accepts.
// RUN: sdfg-translate --target=gpu -emit=ptx %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s < %t.ptx
// CHECK: .entry gather_kernel
// CHECK: setp.{{[a-z]+}}.u64
// CHECK: atom.{{.*}}cas.b64
sdfg.sdfg @gather(%x: memref<5xf64>, %idx: memref<8xi64>, %y: memref<8xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (8) step (1) schedule(gpu_device) {
      %l = sdfg.load %idx[%i] : memref<8xi64>
      %j = sdfg.tasklet(%l) : (i64) -> index {
      ^bb0(%a: i64):
        %c = arith.index_cast %a : i64 to index
        sdfg.yield %c : index
      }
      %v = sdfg.load %x[%j] : memref<5xf64>
      sdfg.store %v, %y[%i] : memref<8xf64>
    }
  }
}
