#!/usr/bin/env bash
# Prints the Python interpreter keval should use: $KEVAL_PYTHON, else python3 when it already
# has torch and triton, else the venv made by install-deps.sh. With --no-create, prints nothing
# (exit 1) when none qualifies.
has_stack() { "$1" -c "import torch, triton" >/dev/null 2>&1; }
if [ -n "${KEVAL_PYTHON:-}" ]; then echo "$KEVAL_PYTHON"; exit 0; fi
# As root the venv lives in /opt (made from the system python): sandboxed jobs run under an
# unprivileged uid and must be able to read the interpreter, which a venv under /root is not.
default_venv="$HOME/.cache/keval-venv"
[ "$(id -u)" = 0 ] && default_venv=/opt/keval-venv
venv="${KEVAL_VENV:-$default_venv}"
if [ -x "$venv/bin/python" ] && has_stack "$venv/bin/python"; then echo "$venv/bin/python"; exit 0; fi
if command -v python3 >/dev/null && has_stack python3; then command -v python3; exit 0; fi
[ "${1:-}" = "--no-create" ] && exit 1
echo "$venv/bin/python"
