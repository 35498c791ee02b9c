// A loss written in scf + memref: y = sum_i tanh(x[i]) * x[i].
func.func @loss(%x: memref<16xf64> {sdfg.name = "x"},
                %y: memref<f64> {sdfg.name = "y"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<16xf64>
    %t = math.tanh %v : f64
    %p = arith.mulf %t, %v : f64
    %n = arith.addf %acc, %p : f64
    scf.yield %n : f64
  }
  memref.store %s, %y[] : memref<f64>
  return
}
