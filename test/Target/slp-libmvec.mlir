// LLVM 22's SLP vectoriser, given libmvec, turns this n-body step's exp
// calls into AVX2 vector calls and leaves a use before its definition
// (`opt -O3 -vector-library=LIBMVEC` on the -O0 output reports "Instruction
// does not dominate all uses"); the object ran garbage, silently (fuzz
// round 8). sdfg-translate verifies the optimised module and optimises
// again without SLP: the module is valid.
// RUN: sdfg-translate %s -emit=llvm -O3 --mcpu=x86-64-v3 -o %t.ll
// RUN: opt -passes=verify -disable-output %t.ll
// RUN: FileCheck %s < %t.ll
// CHECK: define void @f(ptr

sdfg.sdfg @f(%pos: memref<4x3xf64> {sdfg.name = "pos"},
    %mass: memref<4xf64> {sdfg.name = "mass"},
    %dt: memref<f64> {sdfg.name = "dt"}) {
  %T2 = sdfg.alloc() {name = "d"} : memref<4x4x3xf64>
  %T12 = sdfg.alloc() {name = "sum"} : memref<4x4xf64>
  %T26 = sdfg.alloc() {name = "inv"} : memref<4x4xf64>
  %T33 = sdfg.alloc() {name = "sum_1"} : memref<4x3xf64>
  sdfg.loop %i1 = 0 to 2 step 1 {
    sdfg.state {
      sdfg.map (%p3, %p4, %p5) = (0, 0, 0) to (4, 4, 3) step (1, 1, 1) schedule(sequential) {
        %l6 = sdfg.load %pos[%p4, %p5] : memref<4x3xf64>
        %l7 = sdfg.load %pos[%p3, %p5] : memref<4x3xf64>
        %t8 = sdfg.tasklet(%l6, %l7) : (f64, f64) -> f64 {
        ^bb0(%a9: f64, %a10: f64):
          %x11 = arith.subf %a9, %a10 : f64
          sdfg.yield %x11 : f64
        }
        sdfg.store %t8, %T2[%p3, %p4, %p5] : memref<4x4x3xf64>
      }
    }
    sdfg.state {
      sdfg.map (%p13, %p14) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
        %t15 = sdfg.tasklet() : () -> f64 {
          %c16 = arith.constant 0.00000000000000000e+00 : f64
          sdfg.yield %c16 : f64
        }
        sdfg.store %t15, %T12[%p13, %p14] : memref<4x4xf64>
      }
      sdfg.map (%p17, %p18, %p19) = (0, 0, 0) to (4, 4, 3) step (1, 1, 1) schedule(sequential) {
        %l20 = sdfg.load %T2[%p17, %p18, %p19] : memref<4x4x3xf64>
        %t21 = sdfg.tasklet(%l20) : (f64) -> f64 {
        ^bb0(%a22: f64):
          %c23 = arith.constant 2 : i64
          %x24 = arith.sitofp %c23 : i64 to f64
          %x25 = arith.mulf %a22, %a22 : f64
          sdfg.yield %x25 : f64
        }
        sdfg.store %t21, %T12[%p17, %p18] wcr(add) : memref<4x4xf64>
      }
      sdfg.map (%p27, %p28) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
        %l29 = sdfg.load %T12[%p27, %p28] : memref<4x4xf64>
        %t30 = sdfg.tasklet(%l29) : (f64) -> f64 {
        ^bb0(%a31: f64):
          %x32 = math.exp %a31 : f64
          sdfg.yield %x32 : f64
        }
        sdfg.store %t30, %T26[%p27, %p28] : memref<4x4xf64>
      }
    }
    sdfg.state {
      sdfg.map (%p34, %p35) = (0, 0) to (4, 3) step (1, 1) schedule(sequential) {
        %t36 = sdfg.tasklet() : () -> f64 {
          %c37 = arith.constant 0.00000000000000000e+00 : f64
          sdfg.yield %c37 : f64
        }
        sdfg.store %t36, %T33[%p34, %p35] : memref<4x3xf64>
      }
      sdfg.map (%p38, %p39, %p40) = (0, 0, 0) to (4, 4, 3) step (1, 1, 1) schedule(sequential) {
        %l41 = sdfg.load %T26[%p38, %p39] : memref<4x4xf64>
        %l42 = sdfg.load %T2[%p38, %p39, %p40] : memref<4x4x3xf64>
        %l43 = sdfg.load %mass[%p39] : memref<4xf64>
        %t44 = sdfg.tasklet(%l41, %l42, %l43) : (f64, f64, f64) -> f64 {
        ^bb0(%a45: f64, %a46: f64, %a47: f64):
          %x48 = arith.mulf %a45, %a46 : f64
          %x49 = arith.mulf %x48, %a47 : f64
          sdfg.yield %x49 : f64
        }
        sdfg.store %t44, %T33[%p38, %p40] wcr(add) : memref<4x3xf64>
      }
      sdfg.map (%p50, %p51) = (0, 0) to (4, 3) step (1, 1) schedule(sequential) {
        %l52 = sdfg.load %pos[%p50, %p51] : memref<4x3xf64>
        %l53 = sdfg.load %dt[] : memref<f64>
        %l54 = sdfg.load %T33[%p50, %p51] : memref<4x3xf64>
        %t55 = sdfg.tasklet(%l52, %l53, %l54) : (f64, f64, f64) -> f64 {
        ^bb0(%a56: f64, %a57: f64, %a58: f64):
          %x59 = arith.mulf %a57, %a58 : f64
          %x60 = arith.addf %a56, %x59 : f64
          sdfg.yield %x60 : f64
        }
        sdfg.store %t55, %pos[%p50, %p51] : memref<4x3xf64>
      }
    }
  }
}
