"""The `council` executable (also `python -m council`)."""

import os
import signal


def main() -> None:
    # Until the command line has loaded, Ctrl-C ends council at once and quietly: a traceback
    # from inside an import helps nobody. From then on the commands handle it themselves.
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
    from council.cli import main as cli_main

    signal.signal(signal.SIGINT, signal.default_int_handler)
    cli_main()


if __name__ == "__main__":
    main()
