// The paper's example (section "ILP example"): C, D float32 3620x3620
// (50 MiB each). Storing everything needs 549.9 MiB of transients; at 500
// MiB the ILP recomputes A0 and stores A1 and A2 (the paper's choice), at
// 450 it also recomputes A1, at 400 all three, below that it is infeasible.
// D_1 (D * 6, then updated in place by D = D * 3) cannot be recomputed.
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=600 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=M600
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=500 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=M500
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=450" | FileCheck %s --check-prefix=M450
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=400MiB" | FileCheck %s --check-prefix=M400
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=399" 2>&1 | FileCheck %s --check-prefix=M399
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all" | FileCheck %s --check-prefix=STORE
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=recompute-all" | FileCheck %s --check-prefix=ALL
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="recompute=A2" | FileCheck %s --check-prefix=MANUAL
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=450" | sdfg-translate -o /dev/null --abi=%t.json && FileCheck %s --check-prefix=JSON < %t.json

// M600: remark: 'A0': 50.0 MiB, recompute cost 5.24e+07: store
// M600: remark: 'D_1': 50.0 MiB + 50.0 MiB of overwritten values, recompute cost {{.*}}: store (cannot recompute: a writer updates only part of it, or reads it first)
// M600: remark: 'A1': 50.0 MiB, recompute cost 5.24e+07: store
// M600: remark: 'A2': 50.0 MiB, recompute cost 5.24e+07: store
// M600: remark: peak memory 549.9 MiB (storing everything: 549.9 MiB; limit 600.0 MiB); ILP with 3 variables solved in

// M500: remark: 'A0': {{.*}}: recompute
// M500: remark: 'A1': {{.*}}: store
// M500: remark: 'A2': {{.*}}: store
// M500: remark: peak memory 499.9 MiB (storing everything: 549.9 MiB; limit 500.0 MiB)

// The recomputation runs just before the backward program reads A0 again,
// into a fresh container, from C and the restored D.
// M450: sdfg.sdfg @foo_grad
// M450-SAME: sdfg.checkpoint = {limit_bytes = 471859200 : i64, loops = [], model_peak_bytes = [[PEAK:[0-9]+]] : i64, peak_bytes = [[PEAK]] : i64, recompute = ["A0", "A1"], store = ["D_1", "A2"], store_all_peak_bytes = 576593604 : i64, strategy = "ilp"}
// M450: sdfg.alloc() {name = "A1.recomputed"}
// M450: sdfg.alloc() {name = "A0.recomputed"}
// M450: sdfg.state "recompute A1"
// M450: sdfg.state "recompute A0"
// M450-NEXT: sdfg.map
// M450-NEXT: sdfg.load %C
// M450-NEXT: sdfg.load %D

// M400: recompute = ["A0", "A1", "A2"]

// M399: error: sdfg-checkpoint: no store/recompute plan for @foo_grad fits in 399.0 MiB; the smallest feasible limit is 399.915 MiB (419340804 bytes; storing everything needs 549.9 MiB)

// STORE: strategy = "store-all"
// STORE-NOT: recompute A

// ALL: recompute = ["A0", "A1", "A2"], store = ["D_1"]

// MANUAL: recompute = ["A2"], store = ["A0", "D_1", "A1"], store_all_peak_bytes = 576593604 : i64, strategy = "manual"

sdfg.sdfg @foo(%C: memref<3620x3620xf32> {sdfg.name = "C"},
    %D: memref<3620x3620xf32> {sdfg.name = "D"},
    %__return0: memref<f32> {sdfg.name = "__return0"}) {
  %T1 = sdfg.alloc() {name = "A0"} : memref<3620x3620xf32>
  %T10 = sdfg.alloc() {name = "sin0"} : memref<3620x3620xf32>
  %T17 = sdfg.alloc() {name = "D_1"} : memref<3620x3620xf32>
  %T26 = sdfg.alloc() {name = "A1"} : memref<3620x3620xf32>
  %T35 = sdfg.alloc() {name = "sin1"} : memref<3620x3620xf32>
  %T50 = sdfg.alloc() {name = "A2"} : memref<3620x3620xf32>
  %T59 = sdfg.alloc() {name = "sin2"} : memref<3620x3620xf32>
  %T66 = sdfg.alloc() {name = "sum"} : memref<f32>
  sdfg.state {
    sdfg.map (%p2, %p3) = (0, 0) to (3620, 3620) step (1, 1) schedule(cpu_multicore) {
      %l4 = sdfg.load %C[%p2, %p3] : memref<3620x3620xf32>
      %l5 = sdfg.load %D[%p2, %p3] : memref<3620x3620xf32>
      %t6 = sdfg.tasklet(%l4, %l5) : (f32, f32) -> f32 {
      ^bb0(%a7: f32, %a8: f32):
        %x9 = arith.mulf %a7, %a8 : f32
        sdfg.yield %x9 : f32
      }
      sdfg.store %t6, %T1[%p2, %p3] : memref<3620x3620xf32>
    }
  }
  sdfg.state {
    sdfg.map (%p11, %p12) = (0, 0) to (3620, 3620) step (1, 1) schedule(cpu_multicore) {
      %l13 = sdfg.load %T1[%p11, %p12] : memref<3620x3620xf32>
      %t14 = sdfg.tasklet(%l13) : (f32) -> f32 {
      ^bb0(%a15: f32):
        %x16 = math.sin %a15 : f32
        sdfg.yield %x16 : f32
      }
      sdfg.store %t14, %T10[%p11, %p12] : memref<3620x3620xf32>
    }
  }
  sdfg.state {
    sdfg.map (%p18, %p19) = (0, 0) to (3620, 3620) step (1, 1) schedule(cpu_multicore) {
      %l20 = sdfg.load %D[%p18, %p19] : memref<3620x3620xf32>
      %t21 = sdfg.tasklet(%l20) : (f32) -> f32 {
      ^bb0(%a22: f32):
        %c23 = arith.constant 6 : i64
        %x24 = arith.sitofp %c23 : i64 to f32
        %x25 = arith.mulf %a22, %x24 : f32
        sdfg.yield %x25 : f32
      }
      sdfg.store %t21, %T17[%p18, %p19] : memref<3620x3620xf32>
    }
  }
  sdfg.state {
    sdfg.map (%p27, %p28) = (0, 0) to (3620, 3620) step (1, 1) schedule(cpu_multicore) {
      %l29 = sdfg.load %C[%p27, %p28] : memref<3620x3620xf32>
      %l30 = sdfg.load %T17[%p27, %p28] : memref<3620x3620xf32>
      %t31 = sdfg.tasklet(%l29, %l30) : (f32, f32) -> f32 {
      ^bb0(%a32: f32, %a33: f32):
        %x34 = arith.mulf %a32, %a33 : f32
        sdfg.yield %x34 : f32
      }
      sdfg.store %t31, %T26[%p27, %p28] : memref<3620x3620xf32>
    }
  }
  sdfg.state {
    sdfg.map (%p36, %p37) = (0, 0) to (3620, 3620) step (1, 1) schedule(cpu_multicore) {
      %l38 = sdfg.load %T26[%p36, %p37] : memref<3620x3620xf32>
      %t39 = sdfg.tasklet(%l38) : (f32) -> f32 {
      ^bb0(%a40: f32):
        %x41 = math.sin %a40 : f32
        sdfg.yield %x41 : f32
      }
      sdfg.store %t39, %T35[%p36, %p37] : memref<3620x3620xf32>
    }
  }
  sdfg.state {
    sdfg.map (%p42, %p43) = (0, 0) to (3620, 3620) step (1, 1) schedule(cpu_multicore) {
      %l44 = sdfg.load %T17[%p42, %p43] : memref<3620x3620xf32>
      %t45 = sdfg.tasklet(%l44) : (f32) -> f32 {
      ^bb0(%a46: f32):
        %c47 = arith.constant 3 : i64
        %x48 = arith.sitofp %c47 : i64 to f32
        %x49 = arith.mulf %a46, %x48 : f32
        sdfg.yield %x49 : f32
      }
      sdfg.store %t45, %T17[%p42, %p43] : memref<3620x3620xf32>
    }
  }
  sdfg.state {
    sdfg.map (%p51, %p52) = (0, 0) to (3620, 3620) step (1, 1) schedule(cpu_multicore) {
      %l53 = sdfg.load %C[%p51, %p52] : memref<3620x3620xf32>
      %l54 = sdfg.load %T17[%p51, %p52] : memref<3620x3620xf32>
      %t55 = sdfg.tasklet(%l53, %l54) : (f32, f32) -> f32 {
      ^bb0(%a56: f32, %a57: f32):
        %x58 = arith.mulf %a56, %a57 : f32
        sdfg.yield %x58 : f32
      }
      sdfg.store %t55, %T50[%p51, %p52] : memref<3620x3620xf32>
    }
  }
  sdfg.state {
    sdfg.map (%p60, %p61) = (0, 0) to (3620, 3620) step (1, 1) schedule(cpu_multicore) {
      %l62 = sdfg.load %T50[%p60, %p61] : memref<3620x3620xf32>
      %t63 = sdfg.tasklet(%l62) : (f32) -> f32 {
      ^bb0(%a64: f32):
        %x65 = math.sin %a64 : f32
        sdfg.yield %x65 : f32
      }
      sdfg.store %t63, %T59[%p60, %p61] : memref<3620x3620xf32>
    }
  }
  sdfg.state {
    %t67 = sdfg.tasklet() : () -> f32 {
      %c68 = arith.constant 0.000000000e+00 : f32
      sdfg.yield %c68 : f32
    }
    sdfg.store %t67, %T66[] : memref<f32>
    sdfg.map (%p69, %p70) = (0, 0) to (3620, 3620) step (1, 1) schedule(sequential) {
      %l71 = sdfg.load %T10[%p69, %p70] : memref<3620x3620xf32>
      %l72 = sdfg.load %T35[%p69, %p70] : memref<3620x3620xf32>
      %l73 = sdfg.load %T59[%p69, %p70] : memref<3620x3620xf32>
      %t74 = sdfg.tasklet(%l71, %l72, %l73) : (f32, f32, f32) -> f32 {
      ^bb0(%a75: f32, %a76: f32, %a77: f32):
        %x78 = arith.addf %a75, %a76 : f32
        %x79 = arith.addf %x78, %a77 : f32
        sdfg.yield %x79 : f32
      }
      sdfg.store %t74, %T66[] wcr(add) : memref<f32>
    }
    %l80 = sdfg.load %T66[] : memref<f32>
    sdfg.store %l80, %__return0[] : memref<f32>
  }
}

// The plan reaches callers through the ABI description (the Python
// runtime reads it there, never from the IR).
// JSON: "name": "foo"{{$}}
// JSON: "checkpoint": {
// JSON-NEXT: "limit_bytes": 471859200,
// JSON-NEXT: "loops": [],
// JSON-NEXT: "model_peak_bytes": 471758404,
// JSON-NEXT: "peak_bytes": 471758404,
// JSON-NEXT: "recompute": [
// JSON-NEXT: "A0",
// JSON-NEXT: "A1"
// JSON-NEXT: ],
// JSON-NEXT: "store": [
// JSON-NEXT: "D_1",
// JSON-NEXT: "A2"
// JSON-NEXT: ],
// JSON-NEXT: "store_all_peak_bytes": 576593604,
// JSON-NEXT: "strategy": "ilp"
// JSON-NEXT: },
// JSON-NEXT: "name": "foo_grad"
