"""The Belote Arena bot SDK: write one method, ``decide``, and serve it.

A bot in a few lines (``bot.py`` in the bot's folder, beside its ``bot.toml``)::

    from belote_arena_sdk import Bot, pb, serve

    class MyBot(Bot):
        def decide(self, request: pb.DecideRequest) -> pb.Action:
            return self.rng.choice(list(request.legal_actions))

    if __name__ == "__main__":
        raise SystemExit(serve(MyBot()))

Run it: ``python bot.py --listen /tmp/mybot/bot.sock --seed 7``. The request
holds the seat's observation (RULES.md §9) and the legal actions; return one of
the legal actions unchanged. Helpers: :mod:`.cards` (text form, trick order and
points per trump mode, the master of a trick), :mod:`.actions` (text form, finding
legal actions), :mod:`.observation` (outstanding cards, known voids, the
master of the trick), :mod:`.server` (addresses, readiness, shutdown).
"""

from __future__ import annotations

from belote_arena_sdk.proto import bot_pb2 as pb

from .actions import (
    action_str, call_of, declaration, declaration_points, find, kind_of, legal_cards, parse_action, play_of,
)
from .bot import PROTOCOL_VERSION, RULESET_NAMES, Bot, BotInfo, Clock, read_manifest
from .cards import (
    RANKS,
    SUITS,
    Trump,
    card,
    card_key,
    card_str,
    cards,
    cards_str,
    partner_of,
    suit_str,
    team_of,
)
from .observation import is_partner, known_voids, master_seat, outstanding_cards, seat_count
from .server import LISTEN_ENV, READY_PREFIX, SEED_ENV, parse_listen, serve, start_server

__all__ = [
    "PROTOCOL_VERSION",
    "RANKS",
    "READY_PREFIX",
    "RULESET_NAMES",
    "LISTEN_ENV",
    "SEED_ENV",
    "SUITS",
    "Bot",
    "BotInfo",
    "Clock",
    "Trump",
    "action_str",
    "call_of",
    "card",
    "card_key",
    "card_str",
    "cards",
    "cards_str",
    "declaration",
    "declaration_points",
    "is_partner",
    "known_voids",
    "master_seat",
    "outstanding_cards",
    "seat_count",
    "find",
    "kind_of",
    "legal_cards",
    "parse_action",
    "parse_listen",
    "partner_of",
    "pb",
    "play_of",
    "read_manifest",
    "serve",
    "start_server",
    "suit_str",
    "team_of",
]
