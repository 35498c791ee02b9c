// RUN: sdfg-opt --print-policy | FileCheck %s

// The policy the Python frontend reads instead of keeping copies
// (SchedulePolicy.h, the dialect's region rules): ops that need a state
// around them, by name in order, and the size from which a map runs on
// every core.
// CHECK: {"dataflow_only_ops":["sdfg.argsort","sdfg.cholesky","sdfg.copy",
// CHECK-SAME: "sdfg.custom_call","sdfg.det","sdfg.dot","sdfg.eigh","sdfg.fft",
// CHECK-SAME: "sdfg.gemv","sdfg.ger",
// CHECK-SAME: "sdfg.map","sdfg.matmul","sdfg.print","sdfg.qr","sdfg.reduce",
// CHECK-SAME: "sdfg.searchsorted","sdfg.solve","sdfg.store","sdfg.svd",
// CHECK-SAME: "sdfg.transpose"],"parallel_map_iterations":4096}
