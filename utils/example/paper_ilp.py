"""The DaCe AD paper's store/recompute example (section "ILP example")."""

import numpy as np


def paper_ilp(C, D):
    A0 = np.multiply(C, D)
    sin0 = np.sin(A0)
    D = D * 6
    A1 = np.multiply(C, D)
    sin1 = np.sin(A1)
    D = D * 3
    A2 = np.multiply(C, D)
    sin2 = np.sin(A2)
    return np.sum(sin0 + sin1 + sin2)
