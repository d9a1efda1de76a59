"""Issue 9 / secret boards: what bots are told about a match contains nothing of its seed.

``referee.secret`` derives the bots' match id, RNG seeds and deal numbers by HMAC
from the match's seed; here its values are pinned and checked (ranges, one-to-one
deal numbers, independence from the board number), then a real match is played
against in-process recording bots over gRPC and every request the referee sent is
searched for the seed, the board numbers and the match's own name.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading

import pytest

from arena.play.schedule import suit_permutation
from belote_arena_sdk.proto import bot_pb2 as pb
from referee import match as match_module
from referee import secret
from referee.match import Entrant, MatchConfig, play_match
from referee.rules import RULESETS, make_board
from belote_arena_sdk import Bot, start_server

#: A 256-bit seed, as a tournament draws one (fixed here so the test is reproducible).
SEED = 20734800394496820048751618048450118963562555764565284141143570986193185527354
MATCH = "secret-cup/recA@1~recB@1"


# ------------------------------------------------------------------ the derivations
def test_pinned_values():
    """The derivations of referee/secret.py, pinned: a change would change every bot's
    randomness, so results of the same seed would no longer replay."""
    key = secret.bot_key(1)
    assert key.hex() == "c8cbedf84459e3f83e7ec2fb0df104e967cd26a418ada9ca870c01b483e6e360"
    assert secret.public_match_id(key, "demo/a@1~b@1") == "m-42a0f115681e45ff15776fc9a6fe8bd7"
    assert secret.process_seed(key, "demo/a@1~b@1", 1, 0, 0) == 3318253459259099876
    assert [secret.deal_number(key, "demo/a@1~b@1", t, b) for b in range(3) for t in (1, 2)] == [
        1522022641, 1528780490, 1288469288, 3210761069, 3760508638, 4250835293]


def test_bot_key_is_an_hmac_of_the_seed():
    key = secret.bot_key(SEED)
    assert key == hmac.new(str(SEED).encode(), b"belote-arena/bot-key/v1", hashlib.sha256).digest()
    assert len(key) == 32 and key != secret.bot_key(SEED + 1)
    for bad in ("7", 7.0, True, None):
        with pytest.raises(ValueError, match="integer"):
            secret.bot_key(bad)


def test_deal_numbers_are_one_to_one_and_do_not_name_the_board():
    """Issue 9 / secret boards: within a match every (board, table) has its own deal number in
    1..2^32-1 (the two tables of a board differ); it is not the board number, and another
    match's numbers for the same boards are unrelated."""
    key = secret.bot_key(SEED)
    n = 2000
    numbers = {(b, t): secret.deal_number(key, MATCH, t, b) for b in range(n) for t in (1, 2)}
    assert len(set(numbers.values())) == 2 * n  # one-to-one: no two deals of the match share a number
    assert all(1 <= d < 2**32 for d in numbers.values())
    assert all(numbers[(b, 1)] != numbers[(b, 2)] for b in range(n))
    assert not [b for b in range(n) if {numbers[(b, 1)], numbers[(b, 2)]} & {b, b + 1, b + 2}]
    # consecutive boards at a table are not consecutive numbers (the old 1, 2, 3, ...)
    assert sum(numbers[(b + 1, 1)] - numbers[(b, 1)] == 1 for b in range(n - 1)) == 0
    other = {secret.deal_number(key, "secret-cup/recA@1~recC@1", t, b) for b in range(n) for t in (1, 2)}
    assert len(other & set(numbers.values())) <= 2  # chance level (~0.004 expected), not the same numbers
    assert secret.deal_number(secret.bot_key(SEED + 1), MATCH, 1, 0) != numbers[(0, 1)]
    assert secret.deal_number(key, MATCH, 1, secret.MAX_BOARD) >= 1
    for table, board in ((0, 0), (3, 0), (1, -1), (1, secret.MAX_BOARD + 1), (1, True)):
        with pytest.raises(ValueError):
            secret.deal_number(key, MATCH, table, board)


def test_process_seeds_are_keyed_and_distinct():
    key = secret.bot_key(SEED)
    seeds = {secret.process_seed(key, MATCH, t, s, g) for t in (1, 2) for s in range(4) for g in range(5)}
    assert len(seeds) == 2 * 4 * 5 and all(0 <= x < 2**63 for x in seeds)
    # not the unkeyed SHA-256 of earlier releases (which a bot could recompute from a guessed seed)
    old = hashlib.sha256(f"belote-arena/bot/v1/{SEED}/{MATCH}/1/0/0".encode()).digest()
    assert secret.process_seed(key, MATCH, 1, 0, 0) != int.from_bytes(old[:8], "big") >> 1
    assert secret.process_seed(secret.bot_key(SEED + 1), MATCH, 1, 0, 0) != secret.process_seed(key, MATCH, 1, 0, 0)


def test_public_match_id_is_opaque():
    key = secret.bot_key(SEED)
    public = secret.public_match_id(key, MATCH)
    assert re.fullmatch(r"m-[0-9a-f]{32}", public)
    assert public != secret.public_match_id(key, "secret-cup/recA@1~recC@1")
    assert public != secret.public_match_id(secret.bot_key(SEED + 1), MATCH)


# ------------------------------------------------------------------ a real match
class Recorder(Bot):
    """Plays a random legal action and keeps every request it gets (from any seat)."""

    author = "tests"
    rulesets = ("classic",)

    def __init__(self, name: str):
        super().__init__()
        self.name, self.version = name, "1"
        self.requests: list = []
        self.lock = threading.Lock()

    def on_start_match(self, request: pb.StartMatchRequest) -> None:
        with self.lock:
            self.requests.append(request)

    def on_end_match(self, request: pb.EndMatchRequest) -> None:
        with self.lock:
            self.requests.append(request)

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        with self.lock:
            self.requests.append(request)
        return self.rng.choice(request.legal_actions)


@pytest.mark.guard(60)
def test_no_request_a_bot_gets_contains_the_seed_the_board_or_the_match_name(monkeypatch):
    """Issue 9 / secret boards: a 3-board match between in-process recording bots. The match id
    they are told is opaque; no request holds the seed (decimal or hex), the match's name, the
    tournament's or entrants' names; their deal numbers are referee.secret's, not board numbers,
    different at the two tables of a board; their RNG seeds are the keyed process seeds."""
    handed: list[int] = []  # the BELOTE_BOT_SEED of every bot client the referee makes
    real_client = match_module.BotClient

    class SeedRecordingClient(real_client):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            handed.append(kwargs["seed"])

    monkeypatch.setattr(match_module, "BotClient", SeedRecordingClient)
    bots = {name: Recorder(name) for name in ("recA", "recB")}
    servers = {name: start_server(bot, "127.0.0.1:0", max_workers=16) for name, bot in bots.items()}
    try:
        a, b = (Entrant(key=f"{name}@1", endpoint=servers[name][1]) for name in ("recA", "recB"))
        rs = RULESETS["classic"]
        boards = [make_board(SEED, k, rs.seats) for k in range(3)]
        results = play_match(MATCH, a, b, boards, MatchConfig(ruleset=rs, seed=SEED),
                             permutations=lambda k: suit_permutation(SEED, k))
    finally:
        for server, _ in servers.values():
            server.stop(None).wait()
    assert [r.board for r in results] == [0, 1, 2] and not [f for r in results for f in r.faults]
    assert any(t.outcome.contract != "passed" for r in results for t in r.tables)  # cards were played

    key = secret.bot_key(SEED)
    public = secret.public_match_id(key, MATCH)
    requests = [r for bot in bots.values() for r in bot.requests]
    starts = [r for r in requests if isinstance(r, pb.StartMatchRequest)]
    ends = [r for r in requests if isinstance(r, pb.EndMatchRequest)]
    decides = [r for r in requests if isinstance(r, pb.DecideRequest)]
    assert len(starts) == len(ends) == 8 and len(decides) > 3 * 2 * 8
    assert {r.match_id for r in starts + ends} == {public}
    assert re.fullmatch(r"m-[0-9a-f]{32}", public)

    forbidden = [str(SEED), format(SEED, "x"), MATCH, "secret-cup", "recA", "recB"]
    for r in requests:
        data, text = r.SerializeToString(), str(r)
        for word in forbidden:
            assert word.encode() not in data and word not in text, (word, type(r).__name__)

    # deal numbers: referee.secret's, one per (board, table), not the board numbers
    told = {r.observation.deal_number for r in decides}
    expected = {(k, t): secret.deal_number(key, MATCH, t, k) for k in range(3) for t in (1, 2)}
    assert told == set(expected.values())
    assert len(told) == 6 and not told & {0, 1, 2, 3}
    for k in range(3):
        assert expected[(k, 1)] != expected[(k, 2)]  # the two tables of a board

    # the bots' RNG seeds (BELOTE_BOT_SEED): one keyed process seed per seat of each table
    assert sorted(handed) == sorted(secret.process_seed(key, MATCH, t, s, 0) for t in (1, 2) for s in range(4))
    assert len(set(handed)) == 8
    assert not {SEED, SEED % 2**63, SEED >> 193} & set(handed)
