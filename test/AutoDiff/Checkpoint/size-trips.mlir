// A loop whose trip count is an index argument (a size symbol of the
// frontend) is told apart from one whose count is read from data: both
// take a binomial schedule at run time (the model sizes T up to 64), and
// the report names where the count comes from.
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="sizes=T=..64 strategy=store-all report=true" -o /dev/null 2>&1 | FileCheck %s
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="sizes=T=..64 strategy=store-all checkpoints=steps=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNIFORM
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="sizes=T=..64 strategy=store-all checkpoints=steps=binomial:2,loop1=binomial:2 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BINOMIAL

// CHECK: remark: loop 'steps': trip count from the call's sizes, store every iteration (cannot checkpoint: its trip count is a size only the call knows; a binomial schedule takes it at run time)
// CHECK: remark: loop 'loop1': trip count from data, store every iteration (cannot checkpoint: its trip count is not bounded when compiling; a binomial schedule takes it at run time)
// UNIFORM: error: cannot checkpoint loop 'steps': its trip count is a size only the call knows (a binomial schedule takes it at run time)
// BINOMIAL: remark: loop 'steps': trip count from the call's sizes, binomial, 2 snapshots of 32 B
// BINOMIAL: remark: loop 'loop1': trip count from data, binomial, 2 snapshots of 32 B
sdfg.sdfg @f(%u: memref<4xf64> {sdfg.name = "u"}, %T: index {sdfg.name = "T"},
             %n: memref<1xindex> {sdfg.name = "n"},
             %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["u"]} {
  sdfg.loop %t = 0 to %T step 1 attributes {sdfg.name = "steps"} {
    sdfg.state {
      sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
        %a = sdfg.load %u[%i] : memref<4xf64>
        %r = sdfg.tasklet(%a) : (f64) -> f64 {
        ^bb0(%x: f64):
          %s = math.sin %x : f64
          sdfg.yield %s : f64
        }
        sdfg.store %r, %u[%i] : memref<4xf64>
      }
    }
  }
  %m = sdfg.load %n[0] : memref<1xindex>
  sdfg.loop %k = 0 to %m step 1 {
    sdfg.state {
      %a = sdfg.load %u[0] : memref<4xf64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%x: f64):
        %s = math.cos %x : f64
        sdfg.yield %s : f64
      }
      sdfg.store %r, %u[0] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %u[%i] : memref<4xf64>
      sdfg.store %v, %out[] wcr(add) : memref<f64>
    }
  }
}
