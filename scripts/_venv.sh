# Sourced by the other scripts: make sure .venv holds skillc (editable) and its test extras.
# The virtual environment is rebuilt whenever pyproject.toml changes.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"

find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3 python3.13 python3.12 python3.11 python; do
        [ -n "$candidate" ] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    echo "error: skillc needs Python 3.11 or newer; none was found (set PYTHON=/path/to/python3.11)" >&2
    return 1
}

python="$(find_python)"
want="$("$python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$root/pyproject.toml")"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.skillc-installed" 2>/dev/null)" != "$want" ]; then
    echo "Setting up $venv ..." >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root[test]"
    echo "$want" > "$venv/.skillc-installed"
fi
export PATH="$venv/bin:$PATH"
