// Bad checkpoints= entries and loops that cannot be split: one located
// error each.
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=s=2" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=two" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=-1" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=1:" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=99999999999999999999" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=5,t=6" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=9223372036854775807 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=loop1=2" 2>&1 | FileCheck %s --check-prefix=DATA
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=loop1=binomial:2 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DATABIN
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=binomial:0" 2>&1 | FileCheck %s --check-prefix=BZERO
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=2,t=binomial:2" 2>&1 | FileCheck %s --check-prefix=BBOTH
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=binomial:2:3" 2>&1 | FileCheck %s --check-prefix=BTEXT

// TWICE: error: sdfg-checkpoint: checkpoints names loop 't' twice
// HUGE: remark: loop 't': 8 iterations, segments of 1, 7 snapshots of 32 B, 7 iterations run again
// NAME: loop-checkpoint-errors.mlir:[[@LINE+9]]:1: error: cannot checkpoint loop 's': the program has no such loop (those are: t, loop1)
// VALUE: error: sdfg-checkpoint: cannot read checkpoints entry 't={{.*}}' (expected LOOP=SNAPSHOTS, LOOP=S1:S2 for two levels, or LOOP=binomial:S, with non-negative integers)
// DATA: loop-checkpoint-errors.mlir:[[@LINE+7]]:1: error: cannot checkpoint loop 'loop1': its trip count is not bounded when compiling (a binomial schedule takes it at run time)
// BZERO: error: cannot checkpoint loop 't' binomially: it needs at least one snapshot
// BBOTH: error: sdfg-checkpoint: checkpoints names loop 't' twice
// BTEXT: error: sdfg-checkpoint: cannot read checkpoints entry 't=binomial:2:3'
// REPORT: remark: loop 't': 8 iterations, store every iteration (snapshot 32 B)
// REPORT: remark: loop 'loop1': trip count from data, store every iteration (cannot checkpoint: its trip count is not bounded when compiling; a binomial schedule takes it at run time)
// DATABIN: remark: loop 'loop1': trip count from data, binomial, 2 snapshots of 32 B, {{[0-9]+}} iterations run again (if it ran data-loop-capacity iterations)
sdfg.sdfg @f(%u: memref<4xf64> {sdfg.name = "u"}, %n: memref<1xindex> {sdfg.name = "n"},
             %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["u"]} {
  sdfg.loop %t = 0 to 8 step 1 attributes {sdfg.name = "t"} {
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
