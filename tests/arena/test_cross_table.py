"""An entrant's processes never hold both sides of one board at once (issue 19 item 1).

Every match of a tournament plays the same boards, at two tables with the seats swapped:
an entrant's process holding a hand at one table holds, at the other table or in another
match, an opponent's hand of the same board.  Through anything processes that run at the
same time share (kernel counters, the CPU's pace, here a socket folder the test binds
into every sandbox as a stand-in), they could pass it on: the round-3 ``xtable`` attack
received the opponent's exact hand 21 times in 24.  The referee plays one table at a
time in blocks (its processes stopped before the other table's start) and the arena
never plays two matches of one entrant at once.

Attacked by effect: ``attack_xtable`` (tests/bots/attack_xtable) publishes its hand at
every decision to every live process of its entrant; a reception counts when the cards
received are, up to the renaming of suits, an opponent's hand of a board its receiver
plays.  In a tournament (3 entrants, `--workers 2`): none in every decision of the
entrant.  Control: the same two matches of the entrant played at once, by hand, with
the entrant on different sides: receptions on most boards.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from arena.play import tournament
from arena.play.schedule import suit_permutation
from arena.store import Store, match_id
from arena.play.submit import submit
from referee import secret, wire
from referee.botproc import Limits
from referee.manifest import load_manifest
from referee.match import Entrant, MatchConfig, play_match
from referee.rules import get_ruleset, make_board
from tests.referee import conftest as referee_conftest

from .conftest import SAMPLES, copy_bot

_time_guard = referee_conftest._time_guard

pytestmark = pytest.mark.clearing  # as the arena plays visitors by default (tests/conftest.py)

BOARDS = 6
SEED = 7


def hands(record) -> dict[int, frozenset[str]]:
    """Each seat's 8 cards at a table, as the bot writes them (``f"{rank}{suit}"`` of the
    protocol's enums: suits 1..4), from the cards it played."""
    out: dict[int, set[str]] = {}
    for seat, action in record.actions:
        card = getattr(action, "card", None)
        if card is not None:
            c = wire.card_pb(card)
            out.setdefault(seat, set()).add(f"{c.rank}{c.suit}")
    return {s: frozenset(v) for s, v in out.items()}


def opponent_hands_received(out: Path, tables_by_match: dict[str, list], min_cards: int = 1) -> tuple[int, int]:
    """(receptions of an opponent's hand, receptions in all) in the attack's logs under ``out``.

    Deal numbers tell where each end was (``referee.secret.deal_number``); the cards received are
    taken from the sender's table to the receiver's (table 2's suits renamed by the board's
    permutation) and compared with the hands of that board at the receiver's table: a leak is
    a hand of the receiver's opponents there (exactly: not by chance).  Receptions in a match
    not listed (the bots check at submission) are not counted; one without ``from_deal`` is
    taken as from the other table of the receiver's board.  A reception of fewer than
    ``min_cards`` cards is not counted (a channel read through timing noise finds a card or
    two by chance: one card lies in an opponent's hand one time in four)."""
    key = secret.bot_key(SEED)
    where = {secret.deal_number(key, mid, t.table, t.board): (mid, t.table, t.board)
             for mid, ts in tables_by_match.items() for t in ts}
    seats = {(mid, t.table, t.board): hands(t.record) for mid, ts in tables_by_match.items() for t in ts}
    leaks = total = 0
    for log in out.glob("*.recv.jsonl"):
        for line in log.read_text().splitlines():
            e = json.loads(line)
            if e["deal"] not in where or e.get("from_deal", e["deal"]) not in where:
                continue
            mid, table, board = where[e["deal"]]
            if "from_deal" in e:
                _, from_table, board = where[e["from_deal"]]
            else:  # a reception of the same board's other table (tests/arena/test_page_cache.py)
                from_table = 3 - table
            perm = suit_permutation(SEED, board)
            got = set()
            for c in e["got"]:
                rank, suit = c[:-1], int(c[-1]) - 1  # the protocol's suit 1..4: ours 0..3
                if from_table == 2:
                    suit = perm.index(suit)
                if table == 2:
                    suit = perm[suit]
                got.add(f"{rank}{suit + 1}")
            if len(got) < min_cards:
                continue
            total += 1
            there = seats[(mid, table, board)]
            leaks += any(got <= cards for s, cards in there.items() if s % 2 != e["seat"] % 2)
    return leaks, total


def attacker(tmp_path: Path, out: Path) -> Path:
    folder = copy_bot(Path(__file__).parents[1] / "bots" / "attack_xtable", tmp_path / "xtable", "1.0.0")
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text().replace('command = ["python", "bot.py"]',
                                             f'command = ["python", "bot.py", "--out", "{out}"]'))
    return folder


def out_folder(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir(mode=0o1777)
    out.chmod(0o1777)  # the bots run as other uids
    return out


@pytest.mark.guard(240)  # a tournament of visiting bots, the caches cleared before each turn: past 90 s at load 8
def test_no_hand_crosses_between_tables_or_matches_in_a_tournament(tmp_path):
    out = out_folder(tmp_path)
    db = tmp_path / "results" / "arena.duckdb"
    store = Store.open(db)
    rs = get_ruleset("classic")
    store.create_tournament("t", rs.name, rs.options(), SEED, BOARDS)
    limits = Limits(writable=(str(out),))
    for bot in (attacker(tmp_path, out), SAMPLES / "random", SAMPLES / "greedy"):
        submit(store, bot, store_root=tmp_path / "results" / "bots", tournament="t", limits=limits)
    summary = tournament.run(store, "t", workers=2, limits=limits)
    assert not summary.errors and summary.played == 3 * BOARDS and not summary.faults
    key = "attack_xtable@1.0.0"
    by_match = {}
    for other in ("random@1.0.0", "greedy@1.0.0"):
        mid = next(m for m in (match_id("t", key, other), match_id("t", other, key))
                   if store.con.execute("SELECT 1 FROM matches WHERE match_id = ?", [m]).fetchall())
        by_match[mid] = store.deal_records(mid)
    decisions = store.con.execute("SELECT count(*) FROM entrant_actions WHERE entrant = ? AND ms > 0",
                                  [key]).fetchall()[0][0]
    store.close()
    leaks, received = opponent_hands_received(out, by_match)
    assert decisions >= 100, decisions  # every one of them an attempt to send, and to receive
    assert received > 0  # the channel works: partners at one table hear each other
    assert leaks == 0, (leaks, received)


def test_control_two_matches_of_an_entrant_at_once_leak_hands(tmp_path):
    """The control: what the arena never does — the entrant's two matches played at the same
    time, on different sides of the same boards (NS at table 1 of one, EW at table 1 of the
    other).  The channel then carries opponents' hands."""
    out = out_folder(tmp_path)
    rs = get_ruleset("classic")
    x = load_manifest(attacker(tmp_path, out))
    r, g = load_manifest(SAMPLES / "random"), load_manifest(SAMPLES / "greedy")
    config = MatchConfig(ruleset=rs, seed=SEED, limits=Limits(writable=(str(out),)))
    boards = [make_board(SEED, k, rs.seats) for k in range(BOARDS)]
    results: dict[str, list] = {}
    barrier = threading.Barrier(2)

    def one(mid, a, b):
        barrier.wait()
        results[mid] = [t for bp in play_match(mid, Entrant(a.key, a), Entrant(b.key, b), boards, config,
                                                  permutations=lambda k: suit_permutation(SEED, k))
                        for t in bp.tables]

    threads = [threading.Thread(target=one, args=("x-r", x, r)), threading.Thread(target=one, args=("g-x", g, x))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    leaks, received = opponent_hands_received(out, results)
    assert leaks >= 0.8 * BOARDS, (leaks, received)
