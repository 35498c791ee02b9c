// Bad options and inputs: one located diagnostic and a non-zero exit.
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=fast" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=lots" 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=-3" 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=inf" 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=nan" 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=1e30GiB" 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint 2>&1 | FileCheck %s --check-prefix=NOLIMIT
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=1 sizes=N" 2>&1 | FileCheck %s --check-prefix=SIZES
// RUN: not sdfg-opt %s --sdfg-checkpoint="mem=1" 2>&1 | FileCheck %s --check-prefix=NOGRAD
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="recompute=nope" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="recompute=acc" 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: sdfg-opt %s --sdfg-autodiff | sed -e 's/sdfg.sdfg @f(/sdfg.sdfg @renamed(/' | not sdfg-opt --sdfg-checkpoint="mem=1" 2>&1 | FileCheck %s --check-prefix=NOFWD
// RUN: sdfg-opt %s --sdfg-autodiff | sed -e 's/of = @f,/of = @f_grad,/' | not sdfg-opt --sdfg-checkpoint="mem=1" 2>&1 | FileCheck %s --check-prefix=SELF
// RUN: sdfg-opt %s --sdfg-autodiff | sed -e 's/wrt = \["x"\]/wrt = [1]/' | not sdfg-opt --sdfg-checkpoint="mem=1" 2>&1 | FileCheck %s --check-prefix=WRT

// STRATEGY: error: sdfg-checkpoint: unknown strategy 'fast' (expected ilp, store-all or recompute-all)
// MEM: error: sdfg-checkpoint: cannot read mem='{{.*}}' (expected a number of MiB, or a number with B, KiB, MiB or GiB)
// NOLIMIT: error: sdfg-checkpoint: strategy=ilp needs a memory limit (mem=<MiB>)
// SIZES: error: sdfg-checkpoint: cannot read sizes entry 'N' (expected NAME=VALUE or NAME=..MAX with a non-negative integer)
// NOGRAD: error: sdfg-checkpoint: no gradient program in the module; run --sdfg-autodiff first
// UNKNOWN: errors.mlir:[[# @LINE + 8]]:1: error: cannot recompute 'nope': it is not a transient the backward program reads (those are: acc, sq)
// PARTIAL: error: cannot recompute 'acc': a writer updates only part of it, or reads it first
// NOFWD: error: 'sdfg.sdfg' op sdfg-checkpoint needs the forward program @f in the module
// SELF: error: 'sdfg.sdfg' op sdfg.ad names the gradient program itself (@f_grad) as its forward program
// WRT: error: 'sdfg.sdfg' op sdfg-checkpoint: sdfg.ad `wrt` must list names (strings), not 1 : i64

// sq = x * x is recomputable; acc accumulates over a loop (each iteration
// reads what the previous one wrote).
sdfg.sdfg @f(%x: memref<4xf64> {sdfg.name = "x"},
             %y: memref<f64> {sdfg.name = "y"}) attributes {ad_output = "y"} {
  %sq = sdfg.alloc() {name = "sq"} : memref<4xf64>
  %acc = sdfg.alloc() {name = "acc"} : memref<f64>
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<4xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %m = arith.mulf %a, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %s, %sq[%i] : memref<4xf64>
    }
    %one = sdfg.tasklet() : () -> f64 {
      %c = arith.constant 1.0 : f64
      sdfg.yield %c : f64
    }
    sdfg.store %one, %acc[] : memref<f64>
  }
  sdfg.loop %k = 0 to 4 step 1 {
    sdfg.state {
      %a = sdfg.load %acc[] : memref<f64>
      %v = sdfg.load %sq[%k] : memref<4xf64>
      %r = sdfg.tasklet(%a, %v) : (f64, f64) -> f64 {
      ^bb0(%p: f64, %q: f64):
        %m = arith.mulf %p, %q : f64
        %e = math.sin %m : f64
        sdfg.yield %e : f64
      }
      sdfg.store %r, %acc[] : memref<f64>
    }
  }
  sdfg.state {
    %a = sdfg.load %acc[] : memref<f64>
    sdfg.store %a, %y[] : memref<f64>
  }
}
