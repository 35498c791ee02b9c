// An imported time loop (scf.for over memrefs, as an embedding compiler
// hands it over) is checkpointed by the ILP under a limit, in the
// checkpoint pass and in the one-call gradient pipeline.
// RUN: sdfg-opt %s --convert-to-sdfg --sdfg-autodiff="output=arg1 wrt=arg0" --sdfg-checkpoint="mem=20KiB report=true" -o /dev/null 2>&1 | FileCheck %s
// RUN: sdfg-opt %s --sdfg-gradient-pipeline="output=arg1 wrt=arg0 mem=20KiB" | FileCheck %s --check-prefix=PIPE

// CHECK: remark: loop 'loop0': 200 iterations, segments of {{[0-9]+}}, {{[0-9]+}} snapshots of 512 B, {{[0-9]+}} iterations run again
// CHECK: remark: loop 'loop1': 62 iterations, store every iteration
// CHECK: remark: peak memory {{.*}} (storing everything: 96.9 KiB; limit 20.0 KiB)
// PIPE: llvm.func @heat_grad(
func.func @heat(%u: memref<64xf64>, %out: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c200 = arith.constant 200 : index
  %k = arith.constant 0.1 : f64
  scf.for %t = %c0 to %c200 step %c1 {
    scf.for %i = %c1 to %c63 step %c1 {
      %im = arith.subi %i, %c1 : index
      %a = memref.load %u[%im] : memref<64xf64>
      %b = memref.load %u[%i] : memref<64xf64>
      %s = math.sin %a : f64
      %d = arith.mulf %k, %s : f64
      %n = arith.addf %b, %d : f64
      memref.store %n, %u[%i] : memref<64xf64>
    }
  }
  %z = arith.constant 0.0 : f64
  memref.store %z, %out[] : memref<f64>
  scf.for %i = %c0 to %c63 step %c1 {
    %v = memref.load %u[%i] : memref<64xf64>
    %o = memref.load %out[] : memref<f64>
    %sq = arith.mulf %v, %v : f64
    %r = arith.addf %o, %sq : f64
    memref.store %r, %out[] : memref<f64>
  }
  return
}
