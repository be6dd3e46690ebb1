# Sourced by the other scripts: make sure .venv holds skillc (editable) and its test extras.
# The virtual environment is rebuilt whenever pyproject.toml changes.
#
# skillc is installed in setuptools' strict editable mode: build/__editable__.skillc-*/skillc/
# holds a symbolic link to each file a wheel would hold, and nothing else, and a .pth file puts
# that folder on sys.path. So tests/ and bench/ are not importable as skillc.tests or
# skillc.bench, and mypy finds the package as it finds any installed one. Edits to a file show
# at once; a file added to or removed from a package folder needs new links, so the files'
# names are recorded and the links are made again (without rebuilding .venv) when they change.
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

# Two fingerprints, one a line: of pyproject.toml, and of the names of the files in the package
# folders ([tool.setuptools.package-dir]; the folder mapped to "." counts only its own files).
fingerprints() {
    "$1" - "$root" <<'PY'
import hashlib, os, sys, tomllib

root = sys.argv[1]
with open(os.path.join(root, "pyproject.toml"), "rb") as file:
    data = file.read()
print(hashlib.sha256(data).hexdigest())
folders = set(tomllib.loads(data.decode())["tool"]["setuptools"]["package-dir"].values())
names = set()
for folder in folders:
    top = os.path.normpath(os.path.join(root, folder))
    for here, subfolders, files in os.walk(top):
        subfolders[:] = [] if here == root else [name for name in subfolders if name != "__pycache__"]
        names.update(os.path.relpath(os.path.join(here, name), root) for name in files)
print(hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest())
PY
}

# Whether the editable install's .pth names a folder that holds the package's links.
linked() {
    local pth
    for pth in "$venv"/lib/python*/site-packages/__editable__.skillc-*.pth; do
        [ -f "$pth" ] && [ -f "$(head -n 1 "$pth")/skillc/__init__.py" ] && return 0
    done
    return 1
}

install_skillc() {
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --config-settings editable_mode=strict "$@"
}

python="$(find_python)"
prints="$(fingerprints "$python")"
want="${prints%%$'\n'*}"
files="${prints#*$'\n'}"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.skillc-installed" 2>/dev/null)" != "$want" ]; then
    echo "Setting up $venv ..." >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    install_skillc -e "$root[test]"
    echo "$want" > "$venv/.skillc-installed"
    echo "$files" > "$venv/.skillc-files"
elif [ "$(cat "$venv/.skillc-files" 2>/dev/null)" != "$files" ] || ! linked; then
    echo "Linking skillc's files for $venv again (a file was added or removed, or the links are gone) ..." >&2
    install_skillc --no-deps -e "$root"
    echo "$files" > "$venv/.skillc-files"
fi
export PATH="$venv/bin:$PATH"
