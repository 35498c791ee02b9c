// RUN: sdfg-translate %s | FileCheck %s --check-prefix=LLVM
// RUN: sdfg-translate %s -emit=obj -o %t.o && llvm-nm %t.o | FileCheck %s --check-prefix=OBJ
// RUN: sdfg-translate %s -emit=shared -o %t.so && llvm-nm -D %t.so | FileCheck %s --check-prefix=SO
// RUN: sdfg-translate %s -o /dev/null --abi=%t.json && FileCheck %s --check-prefix=ABI < %t.json
// RUN: sdfg-translate -O0 %s | FileCheck %s --check-prefix=O0
// RUN: sdfg-translate --mcpu=x86-64-v2 %s | FileCheck %s --check-prefix=V2

// One exported C function per sdfg.sdfg, with the documented ABI.
// LLVM: define void @axpy(ptr {{[^,]*}}, i64 {{[^,]*}}, ptr {{[^,]*}}, double {{[^,]*}})
// The parallel map forks OpenMP threads (4096 iterations: enough work).
// LLVM: call void {{.*}}@__kmpc_fork_call
// The contiguous inner loop of the sequential map is vectorised.
// LLVM: define void @scale_rows
// LLVM: fmul <{{[0-9]+}} x double>
// Calls to math functions in vectorised loops use glibc's libmvec.
// LLVM: define void @waves
// LLVM: call <{{[0-9]+}} x double> @_ZGV{{.*}}_sin
// So do those glibc 2.35 added, which LLVM's own table lacks (a scalar
// tanh made np.tanh 7x slower than NumPy's).
// LLVM: define void @smooth_waves
// LLVM-DAG: call <{{[0-9]+}} x double> @_ZGV{{[bde]}}N{{[248]}}v_tanh
// LLVM-DAG: call <{{[0-9]+}} x double> @_ZGV{{[bde]}}N{{[248]}}vv_atan2
// And their single-precision variants (twice the lanes; a float32 np.tanh
// was split into scalar tanhf calls, 70x slower than with them).
// LLVM: define void @smooth_waves_f32
// LLVM-DAG: call <{{[0-9]+}} x float> @_ZGV{{[bde]}}N{{4|8|16}}v_tanhf
// LLVM-DAG: call <{{[0-9]+}} x float> @_ZGV{{[bde]}}N{{4|8|16}}vv_atan2f
// LLVM-DAG: call <{{[0-9]+}} x float> @_ZGV{{[bde]}}N{{4|8|16}}v_sinhf
// The runtime's exports follow the programs (design/c-abi.md).
// LLVM-DAG: define void @sdfg_release_memory()
// LLVM-DAG: define ptr @sdfg_alloc_result(i64
// LLVM-DAG: define void @sdfg_free_result(ptr
// LLVM-NOT: define void @
// A named processor bounds the vectors to its registers (SSE: 2 doubles),
// whatever the machine compiling has.
// V2: define void @scale_rows
// V2: fmul <2 x double>
// V2-NOT: fmul <4 x double>
// V2-NOT: fmul <8 x double>
// O0: define void @axpy
// O0-NOT: <{{[0-9]+}} x double>

// OBJ-DAG: T axpy
// OBJ-DAG: T scale_rows
// OBJ-DAG: T waves
// OBJ-DAG: U __kmpc_fork_call
// SO-DAG: T axpy
// SO-DAG: T scale_rows
// SO-DAG: T sdfg_alloc_result
// SO-DAG: T sdfg_free_result

// Arrays say whether the program may write them (x is read only).
// ABI: "dtype": "float64",
// ABI-NEXT: "kind": "array",
// ABI-NEXT: "name": "x",
// ABI-NEXT: "shape": [
// ABI-NEXT: -1
// ABI-NEXT: ],
// ABI-NEXT: "written": false
// ABI: "name": "arg1",
// ABI-NEXT: "shape": [
// ABI-NEXT: 4096
// ABI-NEXT: ],
// ABI-NEXT: "written": true
// ABI: "dtype": "float64",
// ABI-NEXT: "kind": "scalar",
// ABI-NEXT: "name": "a"
// ABI: "calls_blas": false,
// ABI-NEXT: "name": "axpy"
// ABI: "dtype": "int64",
// ABI-NEXT: "kind": "symbol",
// ABI-NEXT: "name": "arg1"
// ABI: "name": "scale_rows"

sdfg.sdfg @axpy(%x: memref<?xf64> {sdfg.name = "x"}, %y: memref<4096xf64>,
                %a: f64 {sdfg.name = "a"}) {
  sdfg.state {
    sdfg.map (%i) = (0) to (4096) step (1) schedule(cpu_multicore) {
      %xv = sdfg.load %x[%i] : memref<?xf64>
      %yv = sdfg.load %y[%i] : memref<4096xf64>
      %r = sdfg.tasklet(%a, %xv, %yv) : (f64, f64, f64) -> f64 {
      ^bb0(%s: f64, %u: f64, %v: f64):
        %m = arith.mulf %s, %u : f64
        %p = arith.addf %m, %v : f64
        sdfg.yield %p : f64
      }
      sdfg.store %r, %y[%i] : memref<4096xf64>
    }
  }
}

sdfg.sdfg @scale_rows(%A: memref<?x?xf64>, %N: index, %M: index) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (%N, %M) step (1, 1) schedule(sequential) {
      %v = sdfg.load %A[%i, %j] : memref<?x?xf64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%u: f64):
        %c = arith.constant 3.0 : f64
        %m = arith.mulf %u, %c : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %A[%i, %j] : memref<?x?xf64>
    }
  }
}

sdfg.sdfg @waves(%A: memref<1024xf64>, %B: memref<1024xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (1024) step (1) schedule(sequential) {
      %a = sdfg.load %A[%i] : memref<1024xf64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%x: f64):
        %y = math.sin %x : f64
        sdfg.yield %y : f64
      }
      sdfg.store %r, %B[%i] : memref<1024xf64>
    }
  }
}

sdfg.sdfg @smooth_waves(%A: memref<1024xf64>, %B: memref<1024xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (1024) step (1) schedule(sequential) {
      %a = sdfg.load %A[%i] : memref<1024xf64>
      %b = sdfg.load %B[%i] : memref<1024xf64>
      %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
      ^bb0(%x: f64, %y: f64):
        %t = math.tanh %x : f64
        %u = math.atan2 %x, %y : f64
        %s = arith.addf %t, %u : f64
        sdfg.yield %s : f64
      }
      sdfg.store %r, %B[%i] : memref<1024xf64>
    }
  }
}

sdfg.sdfg @smooth_waves_f32(%A: memref<1024xf32>, %B: memref<1024xf32>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (1024) step (1) schedule(sequential) {
      %a = sdfg.load %A[%i] : memref<1024xf32>
      %b = sdfg.load %B[%i] : memref<1024xf32>
      %r = sdfg.tasklet(%a, %b) : (f32, f32) -> f32 {
      ^bb0(%x: f32, %y: f32):
        %t = math.tanh %x : f32
        %u = math.atan2 %x, %y : f32
        %l = math.sinh %u : f32
        %s = arith.addf %t, %l : f32
        sdfg.yield %s : f32
      }
      sdfg.store %r, %B[%i] : memref<1024xf32>
    }
  }
}
