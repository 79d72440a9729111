#!/usr/bin/env bash
# Builds the venv of the reference OPTIMADE implementation that test/optimade-reference runs:
# optimade-python-tools v1.5.0, mongomock 4.1.3 and sentinels from their sources (none is in
# the local pip index), and pydantic 2, fastapi, uvicorn, pymongo, lark, httpx2 and friends from
# the index. The sources are source trees (git checkouts or archives):
#
#   scripts/optimade-reference-venv.sh OPTIMADE_SRC MONGOMOCK_SRC SENTINELS_SRC [VENV]
#
# VENV defaults to /tmp/matframe-optimade-venv (where the tests look; MATFRAME_OPTIMADE_VENV
# names another). The three packages are put on the venv's path with a .pth file and given a
# minimal dist-info each: mongomock reads its own version from its metadata, and building
# wheels would need pbr and a git history, which archives lack.
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,12p' "$0" >&2
  exit 1
fi
OPTIMADE_SRC=$(cd "$1" && pwd)
MONGOMOCK_SRC=$(cd "$2" && pwd)
SENTINELS_SRC=$(cd "$3" && pwd)
VENV=${4:-/tmp/matframe-optimade-venv}

grep -q '__version__ = "1.5.0"' "$OPTIMADE_SRC/optimade/__init__.py" ||
  echo "warning: $OPTIMADE_SRC is not optimade-python-tools 1.5.0" >&2

python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet \
  "lark~=1.1" "pydantic[email]~=2.2" "pydantic-settings~=2.0" "requests~=2.28" "pyyaml~=6.0" \
  fastapi uvicorn "pymongo~=4.0" httpx2 rich click packaging pytz
SITE=$("$VENV/bin/python" -c "import site; print(site.getsitepackages()[0])")
printf '%s\n' "$OPTIMADE_SRC" "$MONGOMOCK_SRC" "$SENTINELS_SRC" > "$SITE/matframe-optimade-reference.pth"
for package in optimade:1.5.0 mongomock:4.1.3 sentinels:1.0.0; do
  name=${package%%:*}
  version=${package##*:}
  mkdir -p "$SITE/$name-$version.dist-info"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$name" "$version" > "$SITE/$name-$version.dist-info/METADATA"
  : > "$SITE/$name-$version.dist-info/RECORD"
done
"$VENV/bin/python" -c "import optimade, optimade.client, optimade.validator, mongomock, uvicorn, fastapi; print('optimade', optimade.__version__, 'ready in', '$VENV')"
