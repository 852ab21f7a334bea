"""``dali-migrate mcp``: serve the tools over stdio (default) or streamable HTTP on loopback."""

from __future__ import annotations

import sys

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def add_arguments(parser) -> None:
    parser.add_argument("--root", default=".", help="workspace root; the server never reads or writes outside it")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (loopback only)")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port")


def run(args) -> int:
    try:
        from .mcp_server import build_server
    except ImportError as e:  # the mcp extra is not installed
        print(f"dali-migrate mcp: the MCP SDK is not installed ({e}); pip install 'dali-migrate[mcp]'",
              file=sys.stderr)
        return 2
    try:
        server = build_server(args.root)
    except ValueError as e:
        print(f"dali-migrate mcp: {e}", file=sys.stderr)
        return 2
    if args.http:
        if args.host not in LOOPBACK:
            print(f"dali-migrate mcp: refusing to serve on {args.host}: loopback only", file=sys.stderr)
            return 2
        server.run("streamable-http", host=args.host, port=args.port)
    else:
        server.run("stdio")
    return 0
