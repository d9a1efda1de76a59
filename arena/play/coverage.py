"""The conformance check's positions: every kind of decision a bot will meet, asked on purpose
(issue 24 item 4).

A match dealt at random may never ask a bot to name a trump, to surcontre or to announce
belote; a bot that fails only there passes a check that plays a few random boards.  So the
check also asks chosen **positions**: for every ruleset the bot claims, under every value of
each RULES.md §6.4 option (:func:`option_configs`), the rules engine plays random deals by
itself (every seat, the bot's included: no bot is asked) until it has met each
:func:`situation` the ruleset has (:func:`expected_situations`), and keeps the first position
of each, from the seat the bot will play.  The bot then answers each position once, over the
protocol exactly as in a match (``StartMatch``, then one ``DecideRequest`` per position, each a
whole observation of RULES.md §9), and every answer is judged as the referee judges one in a
match (:func:`referee.match.judge_answer`).

Situations are named by what the seat must do, from its legal actions (RULES.md §4–§7):
bids by round, the schmeiss answer, naming a trump, the trump-7 exchange, declaring, contre
and surcontre, and for a card: leading, following suit, following with the obligation to beat
(monter, §5.1), ruffing, overtrumping and undertrumping (§5.3), discarding, and a card that
may announce belote (§5).  A position is asked only when it has two legal actions or more: a
forced decision is never asked (docs/PROTOCOL.md).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import random
import secrets
import signal
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import grpc
from google.protobuf import text_format

from belote_arena_sdk.proto import bot_pb2 as pb
from referee import wire
from referee.botproc import BotClient, BotStartError
from referee.manifest import Manifest
from referee.match import RESTART_AFTER, decide_request, fault_from_rpc, judge_answer
from referee.records import FaultKind, printable
from referee.rules import CARDS, RULESETS, DealState, Phase, Play, Ruleset, TrumpMode, observe
from referee.rules.cards import CARD_TEXT
from referee.rules.ruleset import TRUMP_STRENGTH
from referee.sandbox import Limits

#: Every situation, in the order a report lists them (RULES.md §4–§7).
SITUATIONS = (
    "bid, round 1", "bid, round 2", "bid, round 3", "schmeiss answer", "name trump", "trump-7 exchange",
    "contre", "surcontre", "declaration",
    "card: lead", "card: follow suit", "card: follow, must beat", "card: ruff", "card: overtrump",
    "card: undertrump", "card: discard", "card: may announce belote",
)

#: Random deals the engine plays at most to find a ruleset's situations (~100 on average, ~400 at most in 1,400 searches).
MAX_DEALS = 5000


def situation(state: DealState, legal: list) -> str:
    """The name (one of :data:`SITUATIONS`) of the decision of ``state.to_act`` at ``state``,
    whose legal actions are ``legal``.

    Cards: a position where a legal card may announce belote is "may announce belote" (§5);
    else, with an empty trick "lead"; holding the led suit "follow suit", or "follow, must beat"
    when some of that suit may not be played (monter, §5.1); void in it, "discard" when any card
    may be played, else the trumps asked are "overtrump" when lower trumps held are refused,
    "undertrump" when none beats the trick's trump, "ruff" otherwise (§5.2–§5.3, §7).

    Raises:
        ValueError: the deal is over (no decision).
    """
    phase = state.phase
    if phase is Phase.BIDDING:
        return f"bid, round {state.bidding_round + 1}"
    if phase is Phase.CONTREE:
        return "contre" if state.multiplier == 1 else "surcontre"
    simple = {Phase.SCHMEISS_ANSWER: "schmeiss answer", Phase.NAME_TRUMP: "name trump",
              Phase.EXCHANGE: "trump-7 exchange", Phase.DECLARATION: "declaration"}
    if phase in simple:
        return simple[phase]
    if phase is not Phase.PLAY:
        raise ValueError("the deal is over: no decision")
    if any(isinstance(a, Play) and a.belote for a in legal):
        return "card: may announce belote"
    if not state.trick:
        return "card: lead"
    hand = state.hands[state.to_act]
    legal_mask = state.legal_card_mask()
    led = state.trick[0][1] >> 3
    follow = hand & (0xFF << (8 * led))
    if follow:
        return "card: follow suit" if legal_mask == follow else "card: follow, must beat"
    if legal_mask == hand:
        return "card: discard"
    trump = int(state.trump)  # a trump obligation: a suit contract
    trumps = hand & (0xFF << (8 * trump))
    played = [c for _, c in state.trick if c >> 3 == trump]
    if not played:
        return "card: ruff"
    best = max(TRUMP_STRENGTH[c & 7] for c in played)
    higher = sum(1 << c for c in CARDS if trumps >> c & 1 and TRUMP_STRENGTH[c & 7] > best)
    if not higher:
        return "card: undertrump"
    return "card: overtrump" if legal_mask == higher != trumps else "card: ruff"


def expected_situations(ruleset: Ruleset) -> tuple[str, ...]:
    """The situations a bot meets in ``ruleset`` (with its options), in :data:`SITUATIONS`
    order, from the ruleset's fields: its bidding rounds, schmeiss (§7), the trump-7 exchange
    (§7), the contrée calls and declarations options (§6.4), monter and the trump obligations
    (§5.1–§5.3)."""
    r = ruleset
    has = {f"bid, round {i + 1}" for i in range(len(r.bidding_rounds))}
    if any(b.schmeiss for b in r.bidding_rounds):
        has.add("schmeiss answer")
    if len(r.bidding_rounds) > 1 and r.bidding_rounds[1].schmeiss:
        has.add("name trump")  # after a refused round-2 schmeiss (§7)
    if r.exchange_trump_seven:
        has.add("trump-7 exchange")
    if r.contree:
        has |= {"contre", "surcontre"}
    if r.declarations is not None:
        has.add("declaration")
    has |= {"card: lead", "card: follow suit", "card: ruff", "card: discard", "card: may announce belote"}
    if r.monter:
        has.add("card: follow, must beat")
    if r.must_overtrump:
        has.add("card: overtrump")
    if r.undertrump and r.seats > 2:  # two players: a trick never holds a trump before a ruff
        has.add("card: undertrump")
    return tuple(s for s in SITUATIONS if s in has)


def option_configs(name: str) -> list[Ruleset]:
    """The configurations of ruleset ``name`` the check covers: every combination of the values
    of its §6.4 options, its defaults first (``classic``: 4; ``two-player``: 2; ``all-trumps``: 1),
    so that a bot wrong only when two options are on together is asked too."""
    base = RULESETS[name]
    options = list(base.variant_options())
    out = [base]
    for values in itertools.product((True, False), repeat=len(options)):
        config = base.with_options(**dict(zip(options, values)))
        if config not in out:
            out.append(config)
    return out


def config_label(ruleset: Ruleset) -> str:
    """``"classic (declarations=on, contree=off)"``; a ruleset without §6.4 options: its name."""
    values = ruleset.variant_options()
    return ruleset.name + (" (" + ", ".join(f"{k}={v}" for k, v in values.items()) + ")" if values else "")


@dataclass(frozen=True)
class Position:
    """A decision of ``seat`` in a deal of ``ruleset``: the deck (32 cards, index 0 on top),
    the dealer and every action taken before it (by any seat), re-playable by the engine."""

    ruleset: Ruleset
    deck: tuple[int, ...]
    dealer: int
    actions: tuple
    seat: int
    situation: str

    def state(self) -> DealState:
        """The deal at this position (its ``to_act`` is :attr:`seat`)."""
        state = DealState(self.ruleset, self.deck, self.dealer)
        for a in self.actions:
            state.apply(a)
        return state


def _steer(state: DealState, legal: list, rng: random.Random):
    """The engine's own choice at a position: mostly passing in the bidding (so later rounds
    are reached), otherwise any legal action."""
    if state.phase is Phase.BIDDING and rng.random() < 0.7:
        return legal[0]  # pass
    return rng.choice(legal[1:] if state.phase is Phase.BIDDING else legal)


def find_positions(ruleset: Ruleset, seat: int, rng: random.Random, *, max_deals: int = MAX_DEALS) -> list[Position]:
    """One position of ``seat`` for each situation of ``ruleset``, found by random deals the
    engine plays alone (at most ``max_deals``; it stops once every situation of
    :func:`expected_situations` is found), in :data:`SITUATIONS` order.  Only decisions with
    two legal actions or more count (forced ones are never asked).  A decision met at another
    seat is made ``seat``'s by moving the dealer: the deal is dealt from eldest (RULES.md §3.1)
    and actions name no seat, so the same cards and actions put ``seat`` in its place.
    Deterministic for a given ``rng`` state."""
    wanted = set(expected_situations(ruleset))
    found: dict[str, Position] = {}
    for _ in range(max_deals):
        deck = list(CARDS)
        rng.shuffle(deck)
        dealer = rng.randrange(ruleset.seats)
        state = DealState(ruleset, deck, dealer)
        actions: list = []
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) > 1:
                name = situation(state, legal)
                if name not in found:  # dealt with the dealer moved, the same cards and actions are ``seat``'s
                    moved = (dealer + seat - state.to_act) % ruleset.seats
                    found[name] = Position(ruleset, tuple(deck), moved, tuple(actions), seat, name)
            action = _steer(state, legal, rng)
            actions.append(action)
            state.apply(action)
        if wanted <= found.keys():
            break
    return [found[s] for s in SITUATIONS if s in found]


@dataclass
class Answer:
    """The bot's answer to one position: ``ms`` (wall time, ms), and for a wrong one the
    fault's ``kind`` (:class:`referee.records.FaultKind`), ``detail`` and ``shown`` (the
    observation, the legal actions and the answer, in words)."""

    config: str
    situation: str
    seat: int
    ms: float = 0.0
    kind: str | None = None
    detail: str = ""
    shown: str = ""

    @property
    def ok(self) -> bool:
        return self.kind is None


def _cards(cards: Iterable[int]) -> str:
    return " ".join(CARD_TEXT[c] for c in cards) or "-"


def describe(state: DealState, legal: list, response: pb.DecideResponse | None) -> str:
    """The position and the answer in words, for a report: what the seat saw (RULES.md §9), its
    legal actions, and what it answered (bot-supplied text made printable)."""
    obs = observe(state, state.to_act)
    trump = ("all trumps" if obs.trump_mode is TrumpMode.ALL_TRUMPS else "no trumps"
             if obs.trump_mode is TrumpMode.NO_TRUMPS else obs.trump.symbol if obs.trump is not None else "not yet")
    lines = [
        f"observation: seat {obs.seat} (team {obs.team}), dealer {obs.dealer}, phase {obs.phase.value}, "
        f"bidding round {obs.bidding_round + 1}, hand {_cards(sorted(obs.hand))}, turned card "
        f"{CARD_TEXT[obs.turned_card]}, trump {trump}"
        + (f", taker {obs.taker}" if obs.taker is not None else ""),
        "  bids: " + (", ".join(f"{s}: {a}" for s, a in obs.bids) or "none")
        + (" · calls: " + ", ".join(f"{s}: {a}" for s, a in obs.calls) if obs.calls else "")
        + (f" · tricks done: {len(obs.tricks)}, this trick: "
           + (", ".join(f"{s}: {CARD_TEXT[c]}" for s, c in obs.trick) or "empty") if obs.phase is Phase.PLAY else ""),
        "legal actions: " + ", ".join(map(str, legal)),
    ]
    if isinstance(response, pb.DecideResponse):
        said = text_format.MessageToString(response.action, as_one_line=True) or "(an empty action)"
        lines.append("answer: " + printable(said, 300))
    else:
        lines.append("answer: bytes that are not a DecideResponse")
    return "\n".join(lines)


#: Faults that cost a restart (a timeout, a crash, a failed start, a lost connection): after
#: :data:`MAX_COSTLY_FAULTS` of them the check asks no more positions (a bot that sleeps on
#: every one would hold it for minutes).
COSTLY = frozenset(RESTART_AFTER | {FaultKind.START})
MAX_COSTLY_FAULTS = 3


async def _ask_all(manifest: Manifest, ruleset: Ruleset, positions: list[Position], *, limits: Limits,
                   decision_ms: int, starter: ThreadPoolExecutor, seed: int, costly: list[int],
                   client: BotClient | None) -> list[Answer]:
    """Ask ``positions`` (all of one seat) of one bot process, restarted after a fault that
    stops it (a crash, a timeout, a lost connection), as the referee does in a match, until
    ``costly[0]`` (counted across calls) reaches :data:`MAX_COSTLY_FAULTS`."""
    loop = asyncio.get_running_loop()
    options = wire.ruleset_options_pb(ruleset, board_count=len(positions))
    label = config_label(ruleset)
    seat = positions[0].seat
    numbers = random.Random(seed)  # the deal numbers told: the same for the same seed (a bot seeding per deal)
    start = pb.StartMatchRequest(match_id="m-%032x" % numbers.getrandbits(128), ruleset=ruleset.name, options=options,
                                 seat=seat)
    out: list[Answer] = []

    def started() -> BotClient:
        c = BotClient(manifest, seed=seed, startup_s=10, limits=limits)
        try:
            c.start()
            c.start_match(start, loop=loop)  # the decision channel dialled before the lock
        except BaseException:
            c.close()
            raise
        return c

    try:
        if client is not None:  # started, not yet told StartMatch
            try:
                await loop.run_in_executor(starter, functools.partial(client.start_match, start, loop=loop))
            except grpc.RpcError:
                await loop.run_in_executor(starter, client.close)
                client = None  # started again below, with the fault charged there if it fails again
        for p in positions:
            if costly[0] >= MAX_COSTLY_FAULTS:
                break
            for again in (False, True):  # a timeout is asked once more (of a new process): a loaded machine's
                answer = Answer(label, p.situation, seat)  # hiccup is not charged, a slow bot's second one is
                if client is None:
                    try:
                        client = await loop.run_in_executor(starter, started)
                    except BotStartError as e:
                        answer.kind, answer.detail = FaultKind.START, printable(str(e))
                        costly[0] += 1
                        break
                    except grpc.RpcError as e:
                        answer.kind = FaultKind.START
                        answer.detail = printable(f"StartMatch failed: {e.code().name} {e.details()}")
                        costly[0] += 1
                        break
                state = p.state()
                legal = state.legal_actions()
                request = decide_request(state, legal, options=options, deal_number=1 + numbers.randrange(2**32 - 1),
                                         deadline_ms=decision_ms)
                t0 = time.perf_counter()
                try:
                    response = await client.decide_async(request, decision_ms / 1000)
                except grpc.RpcError as err:
                    if asyncio.current_task().cancelling():  # Ctrl-C (asyncio.run cancels us): no fault of the
                        raise asyncio.CancelledError from None  # bot's; it was taken for one and the check went on
                    answer.kind, detail = await loop.run_in_executor(starter, fault_from_rpc, err, client,
                                                                      f"{decision_ms:,} ms (--decision-ms)")
                    answer.detail = printable(detail)  # it may quote the bot's own text
                    answer.shown = describe(state, legal, None).rsplit("\n", 1)[0] + f"\nanswer: none ({answer.kind})"
                    if answer.kind in RESTART_AFTER:  # as in a match: a new process for the next position
                        await client.aclose_aio()
                        await loop.run_in_executor(starter, client.close)
                        client = None
                        if answer.kind == FaultKind.TIMEOUT and not again:
                            continue
                        costly[0] += 1
                    break
                answer.ms = (time.perf_counter() - t0 - client.last_thaw_s) * 1000
                _, answer.kind, detail = judge_answer(response, state, legal)
                answer.detail = printable(detail)
                if answer.kind is not None:
                    answer.shown = describe(state, legal, response)
                break
            out.append(answer)
    finally:
        if client is not None:
            await client.aclose_aio()
            await loop.run_in_executor(starter, client.close)
    return out


def ask_positions(manifest: Manifest, ruleset: Ruleset, positions: list[Position], *, limits: Limits,
                  decision_ms: int = 1000, seed: int = 0, costly: list[int] | None = None,
                  started: BotClient | None = None) -> list[Answer]:
    """Start the bot of ``manifest`` for the seat of ``positions`` (one seat) under ``ruleset``
    (``StartMatch``), ask each position once within ``decision_ms`` ms, and judge each answer
    as a match would (:func:`referee.match.judge_answer`).  One :class:`Answer` per position,
    in order; a bot that does not start gets a ``start`` fault at each.  Never raises on what
    the bot does.  ``costly``: ``[n]``, the faults that cost a restart so far, counted on; it
    stops asking at :data:`MAX_COSTLY_FAULTS` (fewer answers than positions).  ``started``: a
    process of the bot already started and not yet told ``StartMatch``, used first (and
    closed here, whatever happens)."""
    if not positions:
        if started is not None:
            started.close()
        return []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="check-start") as starter:
        return _run_interruptible(_ask_all(manifest, ruleset, positions, limits=limits, decision_ms=decision_ms,
                                           starter=starter, seed=seed, costly=costly if costly is not None else [0],
                                           client=started))


def _run_interruptible(coro):
    """``asyncio.run(coro)``, but a Ctrl-C (SIGINT in the main thread) always ends in
    ``KeyboardInterrupt``: ``asyncio.run`` cancels its task and raises it only if the task
    ends cancelled, and a cancellation that meets a decision's deadline is taken by
    ``asyncio.timeout`` for its own (Python 3.11), so the check went on as if nothing had
    been pressed (a fresh clone at load 8: the whole check and tournament ran after Ctrl-C).

    Raises:
        KeyboardInterrupt: SIGINT came while it ran (after the task is cancelled and done).
    """
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(coro)
    pressed: list[bool] = []
    with asyncio.Runner() as runner:
        task: list[asyncio.Task] = []

        async def main():
            task.append(asyncio.current_task())
            if pressed:  # pressed before the task began
                coro.close()
                raise asyncio.CancelledError
            return await coro

        def on_sigint(signum, frame) -> None:
            pressed.append(True)
            if task:
                runner.get_loop().call_soon_threadsafe(task[0].cancel)

        previous = signal.signal(signal.SIGINT, on_sigint)  # asyncio.Runner then installs none of its own
        try:
            result = runner.run(main())
        except asyncio.CancelledError:
            if pressed:
                raise KeyboardInterrupt from None
            raise
        finally:
            signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt
    return result


def cover(manifest: Manifest, rulesets: list[Ruleset], *, limits: Limits, decision_ms: int = 1000,
          rng: random.Random | None = None, started: BotClient | None = None) -> list[Answer]:
    """Ask the bot every situation of every ruleset configuration in ``rulesets``, the i-th from
    seat ``i mod 2`` (so both teams, or both players, are met): :func:`find_positions` then
    :func:`ask_positions` for each, until :data:`MAX_COSTLY_FAULTS` timeouts, crashes or failed
    starts (then fewer answers than situations).  ``rng``: the positions' randomness (default:
    a secret one).  ``started``: a process of the bot already started (``GetBotInfo`` asked) and
    not yet told ``StartMatch``: it plays the first configuration; closed here in any case."""
    rng = rng or random.Random(secrets.randbits(64))
    out: list[Answer] = []
    costly = [0]
    try:
        for i, ruleset in enumerate(rulesets):
            if costly[0] >= MAX_COSTLY_FAULTS:
                break
            positions = find_positions(ruleset, i % 2, rng)
            first, started = started, None
            out.extend(ask_positions(manifest, ruleset, positions, limits=limits, decision_ms=decision_ms,
                                     seed=rng.getrandbits(63), costly=costly, started=first))
    finally:
        if started is not None:
            started.close()
    return out


__all__ = ["Answer", "COSTLY", "MAX_COSTLY_FAULTS", "MAX_DEALS", "Position", "SITUATIONS", "ask_positions", "config_label", "cover", "describe",
           "expected_situations", "find_positions", "option_configs", "situation"]
