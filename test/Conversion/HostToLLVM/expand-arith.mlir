// RUN: sdfg-opt %s --sdfg-expand-arith | FileCheck %s
// RUN: sdfg-opt %s --sdfg-expand-arith --convert-arith-to-llvm | FileCheck %s --check-prefix=LLVM

// Integer divisions that round up or down have no LLVM instruction and are
// expanded; float min/max are left for convert-arith-to-llvm, whose
// intrinsics LLVM's vectoriser reduces (arith-expand would turn them into
// compares and selects).
// CHECK-LABEL: func.func @ops
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.floordivsi
// CHECK: arith.divsi
// CHECK: %[[MAX:.*]] = arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK: %[[MIN:.*]] = arith.minimumf %[[MAX]], %{{.*}} : f32
// CHECK-NOT: arith.select {{.*}} : f32
// CHECK: return
// LLVM: llvm.intr.maximum(%{{.*}}, %{{.*}}) {fastmathFlags = #llvm.fastmath<reassoc>} : (f32, f32) -> f32
// LLVM: llvm.intr.minimum
func.func @ops(%a: index, %b: index, %x: f32, %y: f32) -> (index, index, f32) {
  %c = arith.ceildivsi %a, %b : index
  %f = arith.floordivsi %a, %b : index
  %m = arith.maximumf %x, %y fastmath<reassoc> : f32
  %n = arith.minimumf %m, %y : f32
  return %c, %f, %n : index, index, f32
}
