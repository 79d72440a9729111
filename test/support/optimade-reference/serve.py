"""The reference OPTIMADE server (optimade-python-tools, with its test data and mongomock) on
127.0.0.1 and a port of the system's choosing, printed as its first line of stdout.

At start-up the reference server asks providers.optimade.org for the list of providers; here that
list is read from a closed local port, so the server starts without the network.
"""

import os
import socket
import sys
from pathlib import Path

import optimade
import optimade.utils

sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", 0))
port = sock.getsockname()[1]

config = Path(optimade.__file__).resolve().parent.parent / "optimade_config.json"
if config.exists():
    os.environ.setdefault("OPTIMADE_CONFIG_FILE", str(config))
os.environ["OPTIMADE_BASE_URL"] = f"http://127.0.0.1:{port}"
os.environ["OPTIMADE_INSERT_TEST_DATA"] = "true"
os.environ["OPTIMADE_DATABASE_BACKEND"] = "mongomock"
# Port 9 (discard) is closed here: the provider list fails at once and the server goes on.
optimade.utils.PROVIDER_LIST_URLS = ("http://127.0.0.1:9/v1/links",)

import uvicorn  # noqa: E402

from optimade.server.main import app  # noqa: E402

print(f"http://127.0.0.1:{port}", flush=True)
server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
server.run(sockets=[sock])
sys.exit(0)
