#!/usr/bin/env bash
# Creates benchmarks/.venv with the peers the suite compares against (JAX for
# CPU, PyTorch, matplotlib for the plots), from PyPI. The project's own tests
# never need them.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/../.venv"
if [ ! -x "$VENV/bin/python" ]; then
  /usr/bin/python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --upgrade pip
"$VENV/bin/pip" install -q "jax[cpu]" torch matplotlib numpy
"$VENV/bin/python" -c "import jax, torch, matplotlib, numpy; \
print('jax', jax.__version__, '| torch', torch.__version__, \
'| numpy', numpy.__version__)"
echo "Run: $VENV/bin/python benchmarks/peer_suite.py --size S"
