"""What a bot is told (RULES.md §8 seat isolation, §9): the spy test.

Spies play spies (every seat of both tables is a spy process writing down every
request it receives) over 20 boards of each ruleset. Then, for every request:

* **ground truth** — the table's record is replayed with the rules engine, the
  asked decisions of each seat lined up with the spy's requests (the legal
  actions must match exactly), and every card anywhere in the request must be
  the seat's own hand (which must be exactly its true hand), a card already
  played, the turned card, a card of the trump-7 exchange, or a card of a
  declaration of the team whose declarations scored, once the first trick is over;
* **the spies' own view** — a card some other seat held (seen in that seat's own
  requests of the deal) may appear in a seat's request only as played by that
  seat, as the turned card or the exchange, or in that seat's declaration after
  the first trick;
* no message of the protocol has a field for a seed or the deck, and the bot's
  environment holds exactly the seven variables the referee sets, and PWD.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from arena.play.schedule import suit_permutation
from belote_arena_sdk.proto import bot_pb2 as pb
from referee import secret, wire
from referee.botproc import Limits
from referee.match import MatchConfig, play_match
from referee.rules import RULESETS, DealState, Declare, make_board

from .botkit import entrant, install_call_log, leftover_processes
from .spylog import read_spy_logs

BOARDS = 20
BOARD_SEED = 2024
ENV = {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONUNBUFFERED", "BELOTE_BOT_LISTEN", "BELOTE_BOT_SEED",
       "PWD"}  # PWD: bubblewrap sets it to the working folder, /arena/bot


def key(c) -> tuple[int, int]:
    """A card as (pb suit, pb rank), from an engine card or a ``pb.Card``."""
    if isinstance(c, pb.Card):
        return c.suit, c.rank
    return (c >> 3) + 1, (c & 7) + 7


def cards_in(msg, skip: tuple[str, ...] = ()) -> list[tuple[int, int]]:
    """Every ``pb.Card`` anywhere in ``msg`` (fields named in ``skip`` left out at the top level)."""
    out = []

    def walk(m, top):
        if isinstance(m, pb.Card):
            out.append(key(m))
            return
        for fd, value in m.ListFields():
            if top and fd.name in skip or fd.message_type is None:
                continue
            if fd.message_type.GetOptions().map_entry:
                continue
            for v in (value if fd.is_repeated else [value]):
                walk(v, False)

    walk(msg, True)
    return out


def field_names(descriptor, seen=None) -> set[str]:
    """Every field name of a message type and of the message types inside it."""
    seen = set() if seen is None else seen
    if descriptor.full_name in seen:
        return set()
    seen.add(descriptor.full_name)
    names = set()
    for fd in descriptor.fields:
        names.add(fd.name)
        if fd.message_type is not None:
            names |= field_names(fd.message_type, seen)
    return names


def test_no_message_has_a_field_for_a_seed_or_the_deck():
    for message in (pb.DecideRequest, pb.StartMatchRequest, pb.EndMatchRequest, pb.GetBotInfoRequest):
        names = field_names(message.DESCRIPTOR)
        assert not [n for n in names if "seed" in n or "deck" in n or "stock" in n or "undealt" in n], names
        assert not [n for n in names if "hand" in n and n != "hand_cards"], names


class Truth:
    """The engine's state at one asked decision of one seat."""

    def __init__(self, state: DealState, seat: int, revealed: set):
        self.seat = seat
        self.hand = {key(c) for c in state.hand(seat)}
        self.plays = [(s, key(c), b, r) for s, c, b, r in state.plays]
        self.turned = key(state.turned)
        self.exchange = set()
        if state.exchanged_by is not None:
            self.exchange = {key(state.turned), key(state.exchange_taken)}
        self.tricks = len(state.tricks)
        self.revealed = revealed if state.tricks else set()
        turned_suit = state.turned >> 3
        self.legal = [wire.action_pb(a, turned_suit) for a in state.legal_actions()]

    def public(self) -> set:
        return {p[1] for p in self.plays} | {self.turned} | self.exchange | self.revealed


def truths(table_result, ruleset) -> dict[int, list[Truth]]:
    """Replay a table's record; the asked decisions (more than one legal action) of each seat, in order."""
    record, outcome = table_result.record, table_result.outcome
    revealed = set()
    if outcome.declaration_team is not None and ruleset.seats == 4:
        for seat, action in record.actions:
            if isinstance(action, Declare) and seat % 2 == outcome.declaration_team:
                revealed |= {key(c) for d in action.declarations for c in d.cards}
    state = DealState(ruleset, record.deck, record.dealer, pot=record.pot)
    out = defaultdict(list)
    for seat, action in record.actions:
        assert state.to_act == seat
        if len(state.legal_actions()) > 1:
            out[seat].append(Truth(state, seat, revealed))
        state.apply(action)
    assert state.is_terminal()
    return out


@pytest.mark.guard(150)
@pytest.mark.parametrize("ruleset", ["classic", "strict", "all-trumps", "two-player"])
def test_a_seat_is_told_what_it_may_know_and_nothing_more(tmp_path, monkeypatch, ruleset):
    log = install_call_log(monkeypatch)
    out = tmp_path / "spy-out"
    out.mkdir(mode=0o1777)  # bound read-write into every bot's sandbox; the bots run as other uids
    out.chmod(0o1777)
    a = entrant(tmp_path, "spy", "--out", out, name="spyA")
    b = entrant(tmp_path, "spy", "--out", out, name="spyB")
    rs = RULESETS[ruleset]
    boards = [make_board(BOARD_SEED, k, rs.seats) for k in range(BOARDS)]
    config = MatchConfig(ruleset=rs, decision_ms=2000, seed=5, limits=Limits(writable=(str(out),)))
    results = play_match("spy-test", a, b, boards, config,
                         permutations=lambda k: suit_permutation(BOARD_SEED, k))
    assert not [f for r in results for f in r.faults]
    assert not leftover_processes(tmp_path)

    spies = read_spy_logs(out)
    where = {e[5]: (e[2], e[3]) for e in log.starts()}  # process id (its RNG seed) -> (table, seat)
    assert set(spies) == set(where) and len(where) == 2 * rs.seats

    # the environment: exactly what the referee sets, private folders, no board seed
    for spy in spies.values():
        assert set(spy.env) == ENV, sorted(set(spy.env) ^ ENV)
        assert (spy.env["HOME"], spy.env["TMPDIR"]) == ("/arena/work", "/tmp")  # private tmpfs folders
        assert spy.env["BELOTE_BOT_LISTEN"] == "/arena/work/bot.sock" and spy.env["PWD"] == "/arena/bot"
        assert (spy.env["LANG"], spy.env["PYTHONUNBUFFERED"]) == ("C.UTF-8", "1")
        assert int(spy.env["BELOTE_BOT_SEED"]) != BOARD_SEED

    requests = {}  # (table, seat, deal_number) -> the spy's requests, in order
    for pid, spy in spies.items():
        table, seat = where[pid]
        for r in spy.decides:
            requests.setdefault((table, seat, r.observation.deal_number), []).append(r)

    seen = Counter()
    bot_key = secret.bot_key(config.seed)
    for result in results:
        for t in result.tables:
            number = secret.deal_number(bot_key, "spy-test", t.table, result.board)  # the opaque deal number
            truth = truths(t, rs)
            held = defaultdict(set)  # the spies' own view: every card a seat held in this deal
            for seat in range(rs.seats):
                for r in requests.get((t.table, seat, number), []):
                    held[seat] |= {key(c) for c in r.observation.hand_cards}
            for seat in range(rs.seats):
                asked = requests.get((t.table, seat, number), [])
                expected = truth.get(seat, [])
                assert len(asked) == len(expected), (result.board, t.table, seat)
                for r, tr in zip(asked, expected):
                    where_ = (ruleset, result.board, t.table, seat)
                    obs = r.observation
                    assert list(r.legal_actions) == tr.legal, where_  # lined up with the engine
                    hand = [key(c) for c in obs.hand_cards]
                    assert len(hand) == len(set(hand)) and set(hand) == tr.hand, where_
                    assert set(cards_in(r, ("observation",))) <= tr.hand, where_  # legal actions: own cards only
                    told = cards_in(obs, ("hand_cards",))
                    assert set(told) <= tr.public(), (where_, set(told) - tr.public())
                    played = [(p.seat, key(p.card), p.belote, p.rebelote) for p in obs.played_cards]
                    assert played == tr.plays, where_
                    in_tricks = [p for t_ in [*obs.tricks, obs.current_trick] for p in t_.cards]
                    assert in_tricks == list(obs.played_cards) and len(obs.tricks) == tr.tricks, where_
                    assert key(obs.turned_card) == tr.turned, where_
                    for d in obs.declarations:
                        shown = {key(c) for c in d.cards}
                        assert shown <= tr.revealed, where_
                        if rs.seats == 4 and d.kind != pb.DECLARATION_KIND_CARRE and d.top_rank:
                            assert shown, where_  # a sequence's top card only with its cards
                        seen["declaration cards shown"] += bool(shown)
                        seen["declaration kinds only"] += not shown
                    # the spies' own view, card by card
                    played_by = {(p.seat, key(p.card)) for p in obs.played_cards}
                    exchange = {key(obs.exchange.trump_seven), key(obs.exchange.turned_card)} if obs.HasField(
                        "exchange") else set()
                    declared_by = {(d.seat, key(c)) for d in obs.declarations for c in d.cards} if obs.tricks else set()
                    for other in range(rs.seats):
                        if other == seat:
                            continue
                        for c in set(told) & held[other]:
                            ok = ((other, c) in played_by or c == key(obs.turned_card) or c in exchange
                                  or (other, c) in declared_by or c in held[seat])
                            assert ok, (where_, "sees", c, "of seat", other)
                    seen["requests"] += 1
                    seen["turned card picked up"] += not obs.turned_card_on_table
                    seen["exchanges"] += obs.HasField("exchange")
    print(f"\n{ruleset}: {dict(seen)}")
    assert seen["requests"] > 20 * BOARDS
    if ruleset in ("classic", "strict"):
        assert seen["declaration cards shown"] and seen["declaration kinds only"]
    if ruleset == "two-player":
        assert seen["exchanges"]
