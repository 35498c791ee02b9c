"""Functions a program calls to tell the compiler something about a value;
run by Python (NumPy, finite differences) they return it unchanged."""


def stop_gradient(x):
    """`x`, as a constant to differentiation (JAX's jax.lax.stop_gradient):
    sdfg.grad, sdfg.jvp and sdfg.hvp pass no derivative through it. In a
    compiled program the value is copied into a container that the AD
    passes never make active (an sdfg.alloc with `sdfg.stop_gradient`)."""
    return x
