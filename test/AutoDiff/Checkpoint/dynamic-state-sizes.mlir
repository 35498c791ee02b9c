// A loop whose state is an argument of dynamic shape, without its extent
// in sizes=: not a candidate of the model (the report says which size it
// needs); an explicit schedule asks for it where its snapshots are
// measured. With the extent given, it is checkpointed.
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all report=true" -o /dev/null 2>&1 | FileCheck %s
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLICIT
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="report=true mem=5KiB sizes=x.0=100" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GIVEN

// CHECK: remark: loop 't': 10 iterations, store every iteration (cannot checkpoint: its state 'x' has a size not given ('x.0': sizes=NAME=VALUE))
// EXPLICIT: error: 'sdfg.alloc' op sdfg-checkpoint needs the size of this container: give its dynamic size 'x.0' a value with sizes=NAME=VALUE
// GIVEN: remark: loop 't': 10 iterations, {{segments|binomial}}{{.*}} of 800 B
// GIVEN: remark: peak memory {{.*}} (storing everything: 7.8 KiB; limit 5.0 KiB)
sdfg.sdfg @relax(%x: memref<?xf64> {sdfg.name = "x"}, %__return0: memref<f64> {sdfg.name = "__return0"})
    attributes {ad_output = "__return0", ad_wrt = ["x"]} {
  sdfg.loop %t = 0 to 10 step 1 attributes {sdfg.name = "t"} {
    sdfg.state {
      sdfg.map (%i) = (0) to (100) step (1) schedule(sequential) {
        %a = sdfg.load %x[%i] : memref<?xf64>
        %s = sdfg.tasklet(%a) : (f64) -> f64 {
        ^bb0(%u: f64):
          %q = math.sin %u : f64
          sdfg.yield %q : f64
        }
        sdfg.store %s, %x[%i] : memref<?xf64>
      }
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (100) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<?xf64>
      sdfg.store %v, %__return0[] wcr(add) : memref<f64>
    }
  }
}
