// REQUIRES: cuda-toolkit
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu --sdfg-gpu-device-memory | FileCheck %s
// RUN: sdfg-translate --target=gpu -emit=ptx %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

// argsort on the GPU target runs on the host between the kernels (launches
// are synchronous), one line after another (lines of 256: by radix sort),
// on containers in unified memory: the keys a kernel writes and the
// positions a kernel reads stay host-shared; the arguments, touched by
// kernels only, move to the device.
// CHECK-LABEL: func.func @sorted_squares
// CHECK: gpu.alloc async [%{{.*}}] () : memref<4x256xf64>
// CHECK: %[[KEYS:.*]] = gpu.alloc host_shared () : memref<4x256xf64>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[KEYS]]
// CHECK: gpu.terminator
// CHECK: %[[POS:.*]] = gpu.alloc host_shared () : memref<4x256xi64>
// CHECK-NOT: gpu.launch
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: memref.load %[[KEYS]]
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK: memref.store %{{.*}}, %[[POS]]
// CHECK: gpu.launch
// CHECK: memref.load %[[POS]]
// CHECK: gpu.terminator
sdfg.sdfg @sorted_squares(%x: memref<4x256xf64>, %y: memref<4x256xf64>) {
  %k = sdfg.alloc() : memref<4x256xf64>
  %p = sdfg.alloc() : memref<4x256xi64>
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 256) step (1, 1) schedule(cpu_multicore) {
      %v = sdfg.load %x[%i, %j] : memref<4x256xf64>
      %w = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %m = arith.mulf %a, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %w, %k[%i, %j] : memref<4x256xf64>
    }
  }
  sdfg.state {
    sdfg.argsort %k axis 1 -> %p : memref<4x256xf64> -> memref<4x256xi64>
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 256) step (1, 1) schedule(cpu_multicore) {
      %q = sdfg.load %p[%i, %j] : memref<4x256xi64>
      %c = sdfg.tasklet(%q) : (i64) -> index {
      ^bb0(%a: i64):
        %r = arith.index_cast %a : i64 to index
        sdfg.yield %r : index
      }
      %v = sdfg.load %k[%i, %c] : memref<4x256xf64>
      sdfg.store %v, %y[%i, %j] : memref<4x256xf64>
    }
  }
}

// searchsorted likewise: on the host over unified memory, without
// scf.parallel even where the CPU target would fork (4096 values), between
// the kernel that writes the values and the one that gathers by the
// positions.
// CHECK-LABEL: func.func @binned
// CHECK: %[[V:.*]] = gpu.alloc host_shared () : memref<4096xf64>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[V]]
// CHECK: gpu.terminator
// CHECK: %[[POS:.*]] = gpu.alloc host_shared () : memref<4096xi64>
// CHECK-NOT: gpu.launch
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: memref.load %[[V]]
// CHECK: scf.while
// CHECK: memref.store %{{.*}}, %[[POS]]
// CHECK: gpu.launch
// CHECK: memref.load %[[POS]]
// CHECK: gpu.terminator
sdfg.sdfg @binned(%x: memref<4096xf64>, %edges: memref<64xf64>,
                  %rates: memref<65xf64>, %y: memref<4096xf64>) {
  %v = sdfg.alloc() : memref<4096xf64>
  %p = sdfg.alloc() : memref<4096xi64>
  sdfg.state {
    sdfg.map (%i) = (0) to (4096) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %x[%i] : memref<4096xf64>
      %w = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%b: f64):
        %m = arith.mulf %b, %b : f64
        sdfg.yield %m : f64
      }
      sdfg.store %w, %v[%i] : memref<4096xf64>
    }
  }
  sdfg.state {
    sdfg.searchsorted %v in %edges -> %p : memref<4096xf64> in memref<64xf64> -> memref<4096xi64>
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4096) step (1) schedule(cpu_multicore) {
      %q = sdfg.load %p[%i] : memref<4096xi64>
      %c = sdfg.tasklet(%q) : (i64) -> index {
      ^bb0(%a: i64):
        %r = arith.index_cast %a : i64 to index
        sdfg.yield %r : index
      }
      %r = sdfg.load %rates[%c] : memref<65xf64>
      sdfg.store %r, %y[%i] : memref<4096xf64>
    }
  }
}
