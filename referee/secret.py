"""What a bot may be told about its match, derived from the match's secret seed.

A match is played under a seed: in a tournament the tournament seed, which
deals every board (``referee.rules.make_board(seed, k)``) and is 256 random
bits unless given with ``--seed``. Nothing a bot can see contains that seed or
derives invertibly from it (issue 9, "secret boards"). Every value a bot is
told about its match is an HMAC-SHA256 keyed by the **bot key**:

``bot_key(seed) = HMAC-SHA256(key = ASCII decimal digits of seed, msg = b"belote-arena/bot-key/v1")``

and of parts encoded unambiguously (:func:`_mac`: a domain tag, then each part
as ``\\0``, a type letter ``i``/``s``, its UTF-8 length in decimal, ``:`` and its
UTF-8 text; ints in decimal). From it:

- :func:`public_match_id`: the ``match_id`` of StartMatch/EndMatch, ``"m-"`` and
  32 hex digits; names neither the tournament, the entrants, the boards nor the seed.
- :func:`process_seed`: ``BELOTE_BOT_SEED``, 63 bits, per (match, table, seat,
  start of the seat's process).
- :func:`deal_number`: ``Observation.deal_number``, a keyed permutation of
  1 … 2³²−1: different for every deal of a match (so the two tables of a board
  never share one) and unrelated to the board's number or to other matches.

All three are functions of (seed, match, table, board/seat) only, so a match
cut into runs of boards, or resumed, tells the bots the same values: bots that
seed their randomness per deal play the same (``tests/arena/test_workers.py``).

A seed is only as secret as it is unguessable: with a small seed given by hand
(``--seed 7``), a bot can try every small seed against what it is told. Such
seeds are for reproducible local runs; a tournament's default seed has 256
random bits, beyond any search.
"""

from __future__ import annotations

import hashlib
import hmac

__all__ = ["MAX_BOARD", "bot_key", "deal_number", "process_seed", "public_match_id"]

#: The highest board number :func:`deal_number` numbers (``2 * board + table`` fits 32 bits).
MAX_BOARD = 2**31 - 2

_TAG = b"belote-arena/"


def bot_key(seed: int) -> bytes:
    """The 32-byte key of everything bots are told about a match played under ``seed``.

    ``HMAC-SHA256(key = ASCII decimal digits of seed, msg = b"belote-arena/bot-key/v1")``.

    Raises:
        ValueError: ``seed`` is not an int.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"a seed is an integer, got {seed!r}")
    return hmac.new(str(seed).encode("ascii"), _TAG + b"bot-key/v1", hashlib.sha256).digest()


def _mac(key: bytes, domain: str, *parts: int | str) -> bytes:
    """HMAC-SHA256 under ``key`` of ``b"belote-arena/" + domain + b"/v1"`` and the parts,
    each written as ``\\0``, ``i`` or ``s``, its UTF-8 length, ``:`` and its UTF-8 text."""
    msg = bytearray(_TAG + domain.encode() + b"/v1")
    for part in parts:
        if isinstance(part, bool) or not isinstance(part, (int, str)):
            raise ValueError(f"parts must be ints or strings, got {part!r}")
        text = (str(part) if isinstance(part, int) else part).encode("utf-8")
        msg += b"\0" + (b"i" if isinstance(part, int) else b"s") + str(len(text)).encode() + b":" + text
    return hmac.new(key, bytes(msg), hashlib.sha256).digest()


def public_match_id(key: bytes, match_id: str) -> str:
    """The match id told to bots for the match named ``match_id``: ``"m-"`` + 32 hex digits
    (the first 16 bytes of ``_mac(key, "match-id", match_id)``). The same for every process
    of the match, and when it is resumed."""
    return "m-" + _mac(key, "match-id", match_id)[:16].hex()


def process_seed(key: bytes, match_id: str, table: int, seat: int, generation: int) -> int:
    """``BELOTE_BOT_SEED`` of a bot process: the first 63 bits (big-endian) of
    ``_mac(key, "bot-seed", match_id, table, seat, generation)``.

    Args:
        key: :func:`bot_key` of the match's seed.
        match_id: the match's own name (never told to the bot).
        table: 1 or 2; seat: 0..3; generation: the referee passes 0 for every process of a
            seat (:class:`referee.match.DuplicateMatch`: a deal's play then does not depend
            on when its process started).

    Returns:
        An int in 0 … 2⁶³−1.
    """
    return int.from_bytes(_mac(key, "bot-seed", match_id, table, seat, generation)[:8], "big") >> 1


def _permute(round_key: bytes, x: int) -> int:
    """A keyed permutation of 0 … 2³²−1: an 8-round Feistel network on 16-bit halves whose
    round function is the first 2 bytes of HMAC-SHA256(round_key, round ‖ right half)."""
    left, right = x >> 16, x & 0xFFFF
    for r in range(8):
        f = hmac.new(round_key, bytes([r]) + right.to_bytes(2, "big"), hashlib.sha256).digest()
        left, right = right, left ^ int.from_bytes(f[:2], "big")
    return (left << 16) | right


def deal_number(key: bytes, match_id: str, table: int, board: int) -> int:
    """``Observation.deal_number`` of board ``board`` at ``table`` of the match ``match_id``.

    ``x = 2·board + table`` (1 … 2³²−1) is sent through :func:`_permute` keyed by
    ``_mac(key, "deal-number", match_id)``, again while the result is 0 (cycle walking),
    so the map is one-to-one on 1 … 2³²−1: within a match every (board, table) gets its
    own number, the two tables of a board different ones; without the key a number
    says nothing about the board, and numbers of different matches are unrelated.

    Returns:
        An int in 1 … 2³²−1.

    Raises:
        ValueError: table not 1 or 2, board outside 0 … :data:`MAX_BOARD`.
    """
    if table not in (1, 2):
        raise ValueError(f"table must be 1 or 2, got {table!r}")
    if isinstance(board, bool) or not isinstance(board, int) or not 0 <= board <= MAX_BOARD:
        raise ValueError(f"board must be an int in 0..{MAX_BOARD}, got {board!r}")
    round_key = _mac(key, "deal-number", match_id)
    y = _permute(round_key, 2 * board + table)
    while y == 0:
        y = _permute(round_key, y)
    return y
