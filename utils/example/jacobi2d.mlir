// Jacobi-2D (PolyBench): a time loop around two parallel stencil maps.
// Compiled by utils/setup.sh as the bundled example.
sdfg.sdfg @jacobi2d(%A: memref<?x?xf64> {sdfg.name = "A"},
                    %B: memref<?x?xf64> {sdfg.name = "B"},
                    %N: index {sdfg.name = "N"},
                    %T: index {sdfg.name = "TSTEPS"}) {
  sdfg.loop %t = 1 to %T step 1 {
    sdfg.state "A_to_B" {
      sdfg.map (%i, %j) = (1, 1) to (%N - 1, %N - 1) step (1, 1) schedule(cpu_multicore) {
        %c = sdfg.load %A[%i, %j] : memref<?x?xf64>
        %w = sdfg.load %A[%i, %j - 1] : memref<?x?xf64>
        %e = sdfg.load %A[%i, %j + 1] : memref<?x?xf64>
        %s = sdfg.load %A[%i + 1, %j] : memref<?x?xf64>
        %n = sdfg.load %A[%i - 1, %j] : memref<?x?xf64>
        %r = sdfg.tasklet(%c, %w, %e, %s, %n) : (f64, f64, f64, f64, f64) -> f64 {
        ^bb0(%x0: f64, %x1: f64, %x2: f64, %x3: f64, %x4: f64):
          %s1 = arith.addf %x0, %x1 : f64
          %s2 = arith.addf %s1, %x2 : f64
          %s3 = arith.addf %s2, %x3 : f64
          %s4 = arith.addf %s3, %x4 : f64
          %k = arith.constant 0.2 : f64
          %m = arith.mulf %k, %s4 : f64
          sdfg.yield %m : f64
        }
        sdfg.store %r, %B[%i, %j] : memref<?x?xf64>
      }
    }
    sdfg.state "B_to_A" {
      sdfg.map (%i, %j) = (1, 1) to (%N - 1, %N - 1) step (1, 1) schedule(cpu_multicore) {
        %c = sdfg.load %B[%i, %j] : memref<?x?xf64>
        %w = sdfg.load %B[%i, %j - 1] : memref<?x?xf64>
        %e = sdfg.load %B[%i, %j + 1] : memref<?x?xf64>
        %s = sdfg.load %B[%i + 1, %j] : memref<?x?xf64>
        %n = sdfg.load %B[%i - 1, %j] : memref<?x?xf64>
        %r = sdfg.tasklet(%c, %w, %e, %s, %n) : (f64, f64, f64, f64, f64) -> f64 {
        ^bb0(%x0: f64, %x1: f64, %x2: f64, %x3: f64, %x4: f64):
          %s1 = arith.addf %x0, %x1 : f64
          %s2 = arith.addf %s1, %x2 : f64
          %s3 = arith.addf %s2, %x3 : f64
          %s4 = arith.addf %s3, %x4 : f64
          %k = arith.constant 0.2 : f64
          %m = arith.mulf %k, %s4 : f64
          sdfg.yield %m : f64
        }
        sdfg.store %r, %A[%i, %j] : memref<?x?xf64>
      }
    }
  }
}
