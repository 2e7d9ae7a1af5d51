"""Run the fake model server by hand: `cd tests && python -m fakemodel [--port N]`.

Prints the base URL, then one line per request until Ctrl-C. Point a CLI at
http://127.0.0.1:PORT/c/<name> (see clients.py for each CLI's settings).
"""

from __future__ import annotations

import argparse
import time

from fakemodel.server import FakeModelServer


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m fakemodel")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    args = parser.parse_args()
    with FakeModelServer(port=args.port) as server:
        print(f"fake model server on {server.url()}", flush=True)
        shown = 0
        try:
            while True:
                time.sleep(0.2)
                for entry in server.log[shown:]:
                    print(
                        f"{entry.client or '-'} {entry.method} {entry.path} {entry.status} "
                        f"{entry.outcome} {entry.prompt[:60]!r}",
                        flush=True,
                    )
                shown = len(server.log)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
