"""A fake model server for running the real vendor CLIs offline (see server.py), and the
setup that points each CLI at it (clients.py)."""

from fakemodel.behaviour import Behaviour, parse_markers
from fakemodel.clients import CLIENTS, ClientSetup, client_setup
from fakemodel.replies import reply_for
from fakemodel.server import FakeModelServer, LoggedRequest

__all__ = [
    "CLIENTS",
    "Behaviour",
    "ClientSetup",
    "FakeModelServer",
    "LoggedRequest",
    "client_setup",
    "parse_markers",
    "reply_for",
]
