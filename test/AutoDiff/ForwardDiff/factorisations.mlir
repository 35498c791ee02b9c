// RUN: sdfg-opt %s --sdfg-forward-diff | FileCheck %s
// RUN: sdfg-opt %s --sdfg-forward-diff --sdfg-lower-to-cpu -o /dev/null

// Cholesky, A = L L^T: tL = L Phi(L^-1 S L^-T), S the symmetric matrix of
// tA's lower triangle, Phi the lower triangle with its diagonal halved.
sdfg.sdfg @chol(%A: memref<3x3xf64> {sdfg.name = "A"},
                %__return0: memref<3x3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.cholesky %A -> %__return0 : memref<3x3xf64> -> memref<3x3xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @chol_jvp(
// CHECK-SAME: %[[A:[^:]*]]: memref<3x3xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[L:[^:]*]]: memref<3x3xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TA:[^:]*]]: memref<3x3xf64> {sdfg.name = "t_A"}
// CHECK-SAME: %[[TL:[^:]*]]: memref<3x3xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[XT:.*]] = sdfg.alloc() {name = "t_cholesky_xt"}
// CHECK-DAG: %[[X:.*]] = sdfg.alloc() {name = "t_cholesky_x"}
// CHECK: sdfg.cholesky %[[A]] -> %[[L]]
// CHECK: sdfg.load %[[TA]][%[[I:.*]], %[[J:.*]]]
// CHECK-NEXT: sdfg.load %[[TA]][%[[J]], %[[I]]]
// CHECK: arith.cmpi sge
// CHECK-NEXT: arith.select
// CHECK: sdfg.store %{{.*}}, %[[X]]
// CHECK: sdfg.solve %[[L]], %[[X]] -> %[[X]] :
// CHECK-NEXT: sdfg.transpose %[[X]] -> %[[XT]]
// CHECK-NEXT: sdfg.solve %[[L]], %[[XT]] -> %[[XT]] :
// CHECK: arith.constant 5.000000e-01
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi sgt
// CHECK: sdfg.store %{{.*}}, %[[XT]]
// CHECK: sdfg.matmul %[[L]], %[[XT]] -> %[[TL]] :

// eigh values: tw = diag(V^T S V), the vectors computed again.
sdfg.sdfg @eigvals(%A: memref<3x3xf64> {sdfg.name = "A"},
                   %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.eigh values %A -> %__return0 : memref<3x3xf64> -> memref<3xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @eigvals_jvp(
// CHECK-SAME: %[[A:[^:]*]]: memref<3x3xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[TW:[^:]*]]: memref<3xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[SV:.*]] = sdfg.alloc() {name = "t_eigh_sv"}
// CHECK-DAG: %[[P:.*]] = sdfg.alloc() {name = "t_eigh_p"}
// CHECK-DAG: %[[V:.*]] = sdfg.alloc() {name = "t_eigh_vectors"}
// CHECK: sdfg.eigh values %[[A]]
// CHECK-NEXT: sdfg.eigh vectors %[[A]] -> %[[V]]
// CHECK: arith.cmpi sge
// CHECK: sdfg.store %{{.*}}, %[[P]]
// CHECK: sdfg.matmul %[[P]], %[[V]] -> %[[SV]] :
// CHECK-NEXT: sdfg.matmul %[[V]], %[[SV]] -> %[[P]] {transpose_a}
// CHECK: %[[D:.*]] = sdfg.load %[[P]][%[[K:.*]], %[[K]]]
// CHECK-NEXT: sdfg.store %[[D]], %[[TW]][%[[K]]]

// eigh vectors: tV = V (F o V^T S V), F[i, j] = 1 / (w[j] - w[i]) off the
// diagonal, the values computed again.
sdfg.sdfg @eigvecs(%A: memref<3x3xf64> {sdfg.name = "A"},
                   %__return0: memref<3x3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.eigh vectors %A -> %__return0 : memref<3x3xf64> -> memref<3x3xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @eigvecs_jvp(
// CHECK-SAME: %[[A:[^:]*]]: memref<3x3xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[V:[^:]*]]: memref<3x3xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TV:[^:]*]]: memref<3x3xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[W:.*]] = sdfg.alloc() {name = "t_eigh_values"}
// CHECK-DAG: %[[SV:.*]] = sdfg.alloc() {name = "t_eigh_sv"}
// CHECK-DAG: %[[P:.*]] = sdfg.alloc() {name = "t_eigh_p"}
// CHECK: sdfg.eigh vectors %[[A]] -> %[[V]]
// CHECK: sdfg.matmul %[[P]], %[[V]] -> %[[SV]] :
// CHECK-NEXT: sdfg.matmul %[[V]], %[[SV]] -> %[[P]] {transpose_a}
// CHECK-NEXT: sdfg.eigh values %[[A]] -> %[[W]]
// CHECK: sdfg.load %[[W]][%[[I:[a-z0-9]+]]]
// CHECK-NEXT: sdfg.load %[[W]][%[[J:[a-z0-9]+]]]
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[PIJ:.*]]: f64, %[[WI:.*]]: f64, %[[WJ:.*]]: f64):
// CHECK-NEXT: %[[GAP:.*]] = arith.subf %[[WJ]], %[[WI]]
// CHECK-NEXT: arith.divf %[[PIJ]], %[[GAP]]
// CHECK: arith.cmpi eq
// CHECK: sdfg.store %{{.*}}, %[[P]]
// CHECK: sdfg.matmul %[[V]], %[[P]] -> %[[TV]] :

// QR (m >= n): Y = tA R^-1 (a transposed solve on R), X = Q^T Y,
// M = tR R^-1 (0 below the diagonal, X[i, i] on it, X[i, j] + X[j, i]
// above), tQ = Y - Q M.
sdfg.sdfg @qr_q(%A: memref<5x3xf64> {sdfg.name = "A"},
                %__return0: memref<5x3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.qr q %A -> %__return0 : memref<5x3xf64> -> memref<5x3xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @qr_q_jvp(
// CHECK-SAME: %[[A:[^:]*]]: memref<5x3xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[Q:[^:]*]]: memref<5x3xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TA:[^:]*]]: memref<5x3xf64> {sdfg.name = "t_A"}
// CHECK-SAME: %[[TQ:[^:]*]]: memref<5x3xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[X:.*]] = sdfg.alloc() {name = "t_qr_x"} : memref<3x3xf64>
// CHECK-DAG: %[[YT:.*]] = sdfg.alloc() {name = "t_qr_yt"} : memref<3x5xf64>
// CHECK-DAG: %[[R:.*]] = sdfg.alloc() {name = "t_qr_r"} : memref<3x3xf64>
// CHECK: sdfg.qr q %[[A]] -> %[[Q]]
// CHECK-NEXT: sdfg.qr r %[[A]] -> %[[R]]
// CHECK-NEXT: sdfg.transpose %[[TA]] -> %[[YT]]
// CHECK-NEXT: sdfg.solve %[[R]], %[[YT]] -> %[[YT]] {transpose}
// CHECK-NEXT: sdfg.matmul %[[Q]], %[[YT]] -> %[[X]] {transpose_a, transpose_b}
// CHECK: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index, %[[XIJ:.*]]: f64, %[[XJI:.*]]: f64):
// CHECK-NEXT: %[[EQ:.*]] = arith.cmpi eq, %[[I]], %[[J]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[XIJ]], %[[XJI]]
// CHECK-NEXT: %[[UP:.*]] = arith.select %[[EQ]], %[[XIJ]], %[[SUM]]
// CHECK-NEXT: %[[GT:.*]] = arith.cmpi sgt, %[[I]], %[[J]]
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.0
// CHECK-NEXT: arith.select %[[GT]], %[[Z]], %[[UP]]
// CHECK: sdfg.store %{{.*}}, %[[X]]
// CHECK: sdfg.transpose %[[YT]] -> %[[TQ]]
// CHECK-NEXT: sdfg.matmul %[[Q]], %[[X]] -> %[[TQ]] {accumulate, alpha = -1.0

// QR's R: tR = M R, Q computed again.
sdfg.sdfg @qr_r(%A: memref<5x3xf64> {sdfg.name = "A"},
                %__return0: memref<3x3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.qr r %A -> %__return0 : memref<5x3xf64> -> memref<3x3xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @qr_r_jvp(
// CHECK-SAME: %[[A:[^:]*]]: memref<5x3xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[R:[^:]*]]: memref<3x3xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TR:[^:]*]]: memref<3x3xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[X:.*]] = sdfg.alloc() {name = "t_qr_x"}
// CHECK-DAG: %[[Q:.*]] = sdfg.alloc() {name = "t_qr_q"} : memref<5x3xf64>
// CHECK: sdfg.qr r %[[A]] -> %[[R]]
// CHECK-NEXT: sdfg.qr q %[[A]] -> %[[Q]]
// CHECK: sdfg.solve %[[R]], %{{.*}} {transpose}
// CHECK-NEXT: sdfg.matmul %[[Q]], %{{.*}} -> %[[X]] {transpose_a, transpose_b}
// CHECK: sdfg.store %{{.*}}, %[[X]]
// CHECK: sdfg.matmul %[[X]], %[[R]] -> %[[TR]] :

// QR of a wide matrix (Q square, R = [R1 R2]): X = Q^T tA1 R1^-1 from the
// first columns, Omega its strictly lower triangle minus the transpose,
// tR = Q^T tA - Omega R (tQ = Q Omega).
sdfg.sdfg @qr_wide(%A: memref<3x5xf64> {sdfg.name = "A"},
                   %__return0: memref<3x5xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.qr r %A -> %__return0 : memref<3x5xf64> -> memref<3x5xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @qr_wide_jvp(
// CHECK-SAME: %[[A:[^:]*]]: memref<3x5xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[R:[^:]*]]: memref<3x5xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TA:[^:]*]]: memref<3x5xf64> {sdfg.name = "t_A"}
// CHECK-SAME: %[[TR:[^:]*]]: memref<3x5xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[X:.*]] = sdfg.alloc() {name = "t_qr_x"} : memref<3x3xf64>
// CHECK-DAG: %[[YT:.*]] = sdfg.alloc() {name = "t_qr_yt"} : memref<3x3xf64>
// CHECK-DAG: %[[R1:.*]] = sdfg.alloc() {name = "t_qr_r1"} : memref<3x3xf64>
// CHECK-DAG: %[[Q:.*]] = sdfg.alloc() {name = "t_qr_q"} : memref<3x3xf64>
// CHECK: sdfg.qr r %[[A]] -> %[[R]]
// CHECK-NEXT: sdfg.qr q %[[A]] -> %[[Q]]
// CHECK: sdfg.load %[[R]][%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]]
// CHECK: sdfg.store %{{.*}}, %[[R1]][%[[I]], %[[J]]]
// CHECK: sdfg.load %[[TA]][%[[J2:[a-z0-9]+]], %[[I2:[a-z0-9]+]]]
// CHECK: sdfg.store %{{.*}}, %[[YT]][%[[I2]], %[[J2]]]
// CHECK: sdfg.solve %[[R1]], %[[YT]] -> %[[YT]] {transpose}
// CHECK-NEXT: sdfg.matmul %[[Q]], %[[YT]] -> %[[X]] {transpose_a, transpose_b}
// CHECK: ^bb0(%[[II:.*]]: index, %[[JJ:.*]]: index, %[[XIJ:.*]]: f64, %[[XJI:.*]]: f64):
// CHECK-NEXT: %[[EQ:.*]] = arith.cmpi eq, %[[II]], %[[JJ]]
// CHECK: %[[NEG:.*]] = arith.negf %[[XJI]]
// CHECK-NEXT: %[[UP:.*]] = arith.select %[[EQ]], %{{.*}}, %[[NEG]]
// CHECK-NEXT: %[[GT:.*]] = arith.cmpi sgt, %[[II]], %[[JJ]]
// CHECK-NEXT: arith.select %[[GT]], %[[XIJ]], %[[UP]]
// CHECK: sdfg.store %{{.*}}, %[[X]]
// CHECK: sdfg.matmul %[[Q]], %[[TA]] -> %[[TR]] {transpose_a}
// CHECK-NEXT: sdfg.matmul %[[X]], %[[R]] -> %[[TR]] {accumulate, alpha = -1.0

// SVD's U (tall): P = U^T tA V, Omega_U = F o (P diag(s) + diag(s) P^T),
// F[i, j] = 1 / (s[j]^2 - s[i]^2), tU = U Omega_U + (tA V - U P) diag(1/s).
sdfg.sdfg @svd_u(%A: memref<5x3xf64> {sdfg.name = "A"},
                 %__return0: memref<5x3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.svd u %A -> %__return0 : memref<5x3xf64> -> memref<5x3xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @svd_u_jvp(
// CHECK-SAME: %[[A:[^:]*]]: memref<5x3xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[U:[^:]*]]: memref<5x3xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TA:[^:]*]]: memref<5x3xf64> {sdfg.name = "t_A"}
// CHECK-SAME: %[[TU:[^:]*]]: memref<5x3xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[OM:.*]] = sdfg.alloc() {name = "t_svd_omega"} : memref<3x3xf64>
// CHECK-DAG: %[[P:.*]] = sdfg.alloc() {name = "t_svd_p"} : memref<3x3xf64>
// CHECK-DAG: %[[Y:.*]] = sdfg.alloc() {name = "t_svd_y"} : memref<5x3xf64>
// CHECK-DAG: %[[VH:.*]] = sdfg.alloc() {name = "t_svd_vh"} : memref<3x3xf64>
// CHECK-DAG: %[[S:.*]] = sdfg.alloc() {name = "t_svd_s"} : memref<3xf64>
// CHECK: sdfg.svd u %[[A]] -> %[[U]]
// CHECK-NEXT: sdfg.svd s %[[A]] -> %[[S]] {with_vectors}
// CHECK-NEXT: sdfg.svd vh %[[A]] -> %[[VH]]
// CHECK-NEXT: sdfg.matmul %[[TA]], %[[VH]] -> %[[Y]] {transpose_b}
// CHECK-NEXT: sdfg.matmul %[[U]], %[[Y]] -> %[[P]] {transpose_a}
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[PIJ:.*]]: f64, %[[PJI:.*]]: f64, %[[SI:.*]]: f64, %[[SJ:.*]]: f64):
// CHECK-NEXT: %[[A1:.*]] = arith.mulf %[[SJ]], %[[PIJ]]
// CHECK-NEXT: %[[A2:.*]] = arith.mulf %[[SI]], %[[PJI]]
// CHECK-NEXT: %[[NUM:.*]] = arith.addf %[[A1]], %[[A2]]
// CHECK-NEXT: %[[SJ2:.*]] = arith.mulf %[[SJ]], %[[SJ]]
// CHECK-NEXT: %[[SI2:.*]] = arith.mulf %[[SI]], %[[SI]]
// CHECK-NEXT: %[[GAP:.*]] = arith.subf %[[SJ2]], %[[SI2]]
// CHECK-NEXT: arith.divf %[[NUM]], %[[GAP]]
// CHECK: sdfg.store %{{.*}}, %[[OM]]
// CHECK: sdfg.matmul %[[U]], %[[P]] -> %[[Y]] {accumulate, alpha = -1.0
// CHECK: sdfg.load %[[Y]]
// CHECK-NEXT: sdfg.load %[[S]][%[[J:[a-z0-9]+]]]
// CHECK: arith.divf
// CHECK: sdfg.store %{{.*}}, %[[TU]]
// CHECK: sdfg.matmul %[[U]], %[[OM]] -> %[[TU]] {accumulate}

// SVD's s: ts = diag(U^T tA V), the vectors computed again.
sdfg.sdfg @svd_s(%A: memref<5x3xf64> {sdfg.name = "A"},
                 %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.svd s %A -> %__return0 : memref<5x3xf64> -> memref<3xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @svd_s_jvp(
// CHECK-SAME: %[[TS:[^:]*]]: memref<3xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[P:.*]] = sdfg.alloc() {name = "t_svd_p"}
// CHECK: sdfg.svd u
// CHECK-NEXT: sdfg.svd vh
// CHECK: sdfg.matmul %{{.*}}, %{{.*}} -> %[[P]] {transpose_a}
// CHECK: %[[D:.*]] = sdfg.load %[[P]][%[[K:.*]], %[[K]]]
// CHECK-NEXT: sdfg.store %[[D]], %[[TS]][%[[K]]]

// SVD's Vh (wide): Omega_V = F o (diag(s) P + P^T diag(s)),
// tVh = Omega_V^T Vh + diag(1/s) (U^T tA - P Vh).
sdfg.sdfg @svd_vh(%A: memref<3x5xf64> {sdfg.name = "A"},
                  %__return0: memref<3x5xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.svd vh %A -> %__return0 : memref<3x5xf64> -> memref<3x5xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @svd_vh_jvp(
// CHECK-SAME: %[[A:[^:]*]]: memref<3x5xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[VH:[^:]*]]: memref<3x5xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TA:[^:]*]]: memref<3x5xf64> {sdfg.name = "t_A"}
// CHECK-SAME: %[[TVH:[^:]*]]: memref<3x5xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[OM:.*]] = sdfg.alloc() {name = "t_svd_omega"}
// CHECK-DAG: %[[P:.*]] = sdfg.alloc() {name = "t_svd_p"}
// CHECK-DAG: %[[S:.*]] = sdfg.alloc() {name = "t_svd_s"} : memref<3xf64>
// CHECK-DAG: %[[U:.*]] = sdfg.alloc() {name = "t_svd_u"} : memref<3x3xf64>
// CHECK: sdfg.svd vh %[[A]] -> %[[VH]]
// CHECK-NEXT: sdfg.svd u %[[A]] -> %[[U]]
// CHECK-NEXT: sdfg.svd s %[[A]] -> %[[S]] {with_vectors}
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[PIJ:.*]]: f64, %[[PJI:.*]]: f64, %[[SI:.*]]: f64, %[[SJ:.*]]: f64):
// CHECK-NEXT: %[[A1:.*]] = arith.mulf %[[SI]], %[[PIJ]]
// CHECK-NEXT: %[[A2:.*]] = arith.mulf %[[SJ]], %[[PJI]]
// CHECK: sdfg.store %{{.*}}, %[[OM]]
// CHECK: sdfg.matmul %[[U]], %[[TA]] -> %[[TVH]] {transpose_a}
// CHECK-NEXT: sdfg.matmul %[[P]], %[[VH]] -> %[[TVH]] {accumulate, alpha = -1.0
// CHECK: sdfg.load %[[TVH]]
// CHECK-NEXT: sdfg.load %[[S]][%[[I:[a-z0-9]+]]]
// CHECK: arith.divf
// CHECK: sdfg.store %{{.*}}, %[[TVH]]
// CHECK: sdfg.matmul %[[OM]], %[[VH]] -> %[[TVH]] {accumulate, transpose_a}

// A max reduction (the reverse rule of qr emits one, so a Hessian through
// qr differentiates it): the mean of the tangents of the elements equal
// to the maximum, a tangent sum and a tie count (wcr add), then a division.
sdfg.sdfg @rowmax(%x: memref<4x3xf64> {sdfg.name = "x"},
                  %__return0: memref<4xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.reduce max %x -> %__return0 axes [1] : memref<4x3xf64> -> memref<4xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @rowmax_jvp(
// CHECK-SAME: %[[X:[^:]*]]: memref<4x3xf64> {sdfg.name = "x"}
// CHECK-SAME: %[[M:[^:]*]]: memref<4xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TX:[^:]*]]: memref<4x3xf64> {sdfg.name = "t_x"}
// CHECK-SAME: %[[TM:[^:]*]]: memref<4xf64> {sdfg.name = "t___return0"}
// CHECK: %[[TIES:.*]] = sdfg.alloc() {name = "t_ties"} : memref<4xf64>
// CHECK: sdfg.reduce max %[[X]] -> %[[M]]
// CHECK: sdfg.load %[[X]][%[[I:.*]], %[[J:.*]]]
// CHECK-NEXT: sdfg.load %[[M]][%[[I]]]
// CHECK-NEXT: sdfg.load %[[TX]][%[[I]], %[[J]]]
// CHECK: arith.cmpf oeq
// CHECK: sdfg.store %[[C:.*]]#0, %[[TM]][%[[I]]] wcr(add)
// CHECK-NEXT: sdfg.store %[[C]]#1, %[[TIES]][%[[I]]] wcr(add)
// CHECK: arith.divf
// CHECK: sdfg.store %{{.*}}, %[[TM]][
