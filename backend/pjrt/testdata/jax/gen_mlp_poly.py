"""Makes mlp_poly.mlir: a jax.export program with a symbolic batch b (an
MLP with a tanh layer, a softmax and a sum over features; random weights,
seed 0) as JAX serializes it: @main checks b >= 1 (shape_assertion) and
calls the body with b, which broadcasts with dynamic_broadcast_in_dim.

    python3 -m venv /tmp/jax && /tmp/jax/bin/pip install jax
    /tmp/jax/bin/python backend/pjrt/testdata/jax/gen_mlp_poly.py > backend/pjrt/testdata/jax/mlp_poly.mlir

(made with jax 0.10.2)
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

rng = np.random.default_rng(0)
w1 = jnp.asarray(rng.standard_normal((16, 32)), jnp.float32)
b1 = jnp.asarray(rng.standard_normal((32,)), jnp.float32)
w2 = jnp.asarray(rng.standard_normal((32, 4)), jnp.float32)


def f(x):
    h = jnp.tanh(x @ w1 + b1)
    y = h @ w2
    return jax.nn.softmax(y, axis=-1), y.sum(axis=-1)


b, = export.symbolic_shape("b")
exp = export.export(jax.jit(f))(jax.ShapeDtypeStruct((b, 16), jnp.float32))
print(exp.mlir_module())
