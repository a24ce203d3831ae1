"""``damas web``: serves the browser board on this machine.

    damas web [--host 127.0.0.1] [--port 8000] [--agent SPEC ...] [--rules FILE ...]

Open the address it prints. ``--agent`` offers a spec in the page's list; a spec that names
a file (``hub:PATH``, ``checkpoint:PATH``) is playable only if offered so. ``--rules`` offers
a rules YAML file by its ruleset's name. It binds 127.0.0.1 (this machine only) unless
``--host`` says otherwise; Ctrl-C stops it and a bad argument gives status 2.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from damas_agents.extras import require
from damas_agents.specs import spec_usage

__all__ = ["LOOPBACK", "build_parser", "main", "running"]

#: Hosts that serve this machine only.
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def build_parser() -> argparse.ArgumentParser:
    """Returns the parser of ``damas web``."""
    parser = argparse.ArgumentParser(
        prog="damas web",
        description="Serves a draughts board in the browser: play, watch and replay games.",
        epilog=f"agent specs: {spec_usage()}",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (8000; 0 picks a free one)")
    parser.add_argument(
        "--agent", action="append", default=[], metavar="SPEC", help="offer this agent spec"
    )
    parser.add_argument(
        "--rules",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="offer the ruleset of this rules YAML file",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``damas web`` until Ctrl-C; returns the exit status (2 on a bad argument)."""
    args = build_parser().parse_args(argv)
    try:
        require("starlette", "damas web")
        require("uvicorn", "damas web")
        from damas_agents.web.server import create_app

        if not 0 <= args.port <= 65535:
            raise ValueError(f"--port must be 0 to 65535, not {args.port}")
        local = args.host in LOOPBACK
        hosts = ("127.0.0.1", "localhost", "[::1]") if local else ("*",)
        app = create_app(args.agent, args.rules, hosts=hosts)
    except (ValueError, ImportError) as e:
        print(f"damas web: error: {e}", file=sys.stderr)
        return 2
    if not local:
        print(f"damas web: {args.host} is reachable from other machines", file=sys.stderr)
    try:
        return _serve(app, args.host, args.port)
    except OSError as e:
        print(f"damas web: error: cannot serve on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 2


def _bind(host: str, port: int) -> socket.socket:
    """Returns a socket bound to the address (port 0: a free one) and listening.

    Raises:
        OSError: the address cannot be bound (in use, not this machine's).
    """
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(128)  # connections wait from now on, before the server starts
    return sock


def _address(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def _serve(app: Any, host: str, port: int) -> int:
    """Binds the address, prints it and serves the app until Ctrl-C."""
    import uvicorn

    sock = _bind(host, port)
    print(f"damas web: serving on {_address(sock)} (Ctrl-C stops)", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    return 0


@contextmanager
def running(app: Any, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serves an app in a background thread while the block runs; yields its address.

        with running(create_app()) as url:
            urllib.request.urlopen(url + "api/meta")

    Raises:
        OSError: the address cannot be bound.
        RuntimeError: the server stopped before it started.
    """
    import uvicorn

    sock = _bind(host, port)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("damas web: the server stopped before it started")
        time.sleep(0.02)
    try:
        yield _address(sock)
    finally:
        server.should_exit = True
        thread.join()
        sock.close()
