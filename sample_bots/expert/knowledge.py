"""What a seat knows of the hidden hands during the card play, and deals drawn consistent with it.

Everything here is read from the seat's observation only (RULES.md §9): its own hand, the
turned card, the bids, the public part of the declarations, every card played with who
played it, the belote announcements. From those (:func:`knowledge`):

- **cards held for sure**: four players, the taker holds the turned card it picked up until
  it plays it (§3.2); two players, the seat that made the trump-7 exchange holds the turned
  card (§7); a declaration whose cards were made public (§6.1: the winning team's, after
  trick 1) shows cards its declarer still holds; a *belote* announced with one of the K+Q of
  trump shows the other (§5, Belote-rebelote).
- **cards held by nobody else**: a seat that did not follow the led suit holds none of it
  (§5 rule 1); a seat that had to trump and did not (an opponent master, §5 rule 3; always
  with two players, §7) holds no trump, or, when it only had to trump *higher* and played a
  lower trump or none where undertrumping is not forced, no trump above the trick's best
  (a *trump ceiling*); likewise a seat that followed a led trump (every suit in all-trumps,
  §5 rule 1 *monter*) below the best card holds none above it.
- **card counts**: every seat holds 8 cards (9 with two players) less those it played; two
  players: the cards neither holds (the undealt stock, §7) are the rest.

:func:`sample` then deals the unseen cards at random within those constraints. Cards are the
search's numbers, ``suit * 8 + natural rank`` (suit ♠ ♥ ♦ ♣ = 0..3, rank 7..A = 0..7), and a
set of cards is a 32-bit mask (:func:`card_index`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from belote_arena_sdk import Trump, pb, seat_count

def card_index(c: pb.Card) -> int:
    """The search's number of ``c`` (0..31): ``(suit - 1) * 8 + (rank - 7)`` in ``pb`` numbers."""
    return (c.suit - 1) * 8 + (c.rank - pb.RANK_SEVEN)


def index_card(i: int) -> pb.Card:
    """The ``pb.Card`` of search card number ``i`` (inverse of :func:`card_index`)."""
    return pb.Card(suit=(i >> 3) + 1, rank=(i & 7) + pb.RANK_SEVEN)


def mask_of(cards) -> int:
    """The 32-bit mask of ``pb.Card`` items."""
    m = 0
    for c in cards:
        m |= 1 << card_index(c)
    return m


def popcount(m: int) -> int:
    """Cards in a mask."""
    return bin(m).count("1")


SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))


@dataclass(frozen=True)
class PlayRules:
    """The card-play rules of a ruleset that the search and the inferences need (RULES.md §5, §7).

    Attributes:
        seats: 4 or 2.
        tricks: 8 or 9.
        monter: a led trump (every suit in all-trumps) must be followed higher when possible (§5 rule 1).
        must_overtrump: a seat that cannot follow must trump higher than the trick's best trump when able (§5 rule 3).
        undertrump: ... and must still trump with lower trumps only (classic, strict; two players always trump).
        vs_opponent: the trump obligation holds only when an opponent is master (§5 rule 2).
        dix_de_der: points of the last trick (10).
        capot_bonus: the capot's bonus (90; 0 with two players, §7).
    """

    seats: int
    tricks: int
    monter: bool
    must_overtrump: bool
    undertrump: bool
    vs_opponent: bool
    dix_de_der: int
    capot_bonus: int


_DEFAULT_RULES = {
    "classic": PlayRules(4, 8, True, True, True, True, 10, 90),
    "strict": PlayRules(4, 8, True, True, True, True, 10, 90),
    "all-trumps": PlayRules(4, 8, True, True, False, True, 10, 90),
    "two-player": PlayRules(2, 9, False, False, True, False, 10, 0),
}


def play_rules(obs: pb.Observation) -> PlayRules:
    """The play rules of the observation's ruleset: the defaults of RULES.md per ruleset name,
    overridden by the resolved options the referee sends (``options.values``: ``monter``,
    ``must_overtrump``, ``undertrump``, ``trump_only_against_opponent``, ``dix_de_der``,
    ``capot_bonus``, JSON text) when present."""
    seats = seat_count(obs)
    base = _DEFAULT_RULES.get(obs.ruleset) or _DEFAULT_RULES["classic" if seats == 4 else "two-player"]
    values = obs.options.values

    def flag(key: str, default: bool) -> bool:
        v = values.get(key)
        return default if v is None else v.strip().lower() in ("true", "1", '"on"', "on")

    def number(key: str, default: int) -> int:
        try:
            return int(values[key])
        except (KeyError, ValueError):
            return default

    return PlayRules(
        seats=seats, tricks=obs.options.trick_count or (8 if seats == 4 else 9),
        monter=flag("monter", base.monter), must_overtrump=flag("must_overtrump", base.must_overtrump),
        undertrump=flag("undertrump", base.undertrump),
        vs_opponent=flag("trump_only_against_opponent", base.vs_opponent),
        dix_de_der=number("dix_de_der", base.dix_de_der), capot_bonus=number("capot_bonus", base.capot_bonus),
    )


@dataclass(frozen=True)
class Knowledge:
    """The seat's knowledge of the hidden cards (see the module docstring). Masks are 32-bit.

    Attributes:
        seat: the observing seat; ``hand``: its cards.
        unseen: the cards the seat has not seen (held by another seat, or the stock).
        need: per seat, how many cards it holds now (the observing seat's included).
        fixed: per seat, unseen cards it holds for sure.
        excluded: per seat, unseen cards it cannot hold.
        stock: two players: how many unseen cards nobody holds (0 with four).
    """

    seat: int
    hand: int
    unseen: int
    need: tuple[int, ...]
    fixed: tuple[int, ...]
    excluded: tuple[int, ...]
    stock: int


def _above(trump: Trump, c: pb.Card) -> int:
    """Mask of the cards of ``c``'s suit stronger than ``c`` under ``trump`` (RULES.md §2)."""
    s = trump.strength(c)
    m = 0
    for r in range(pb.RANK_SEVEN, pb.RANK_ACE + 1):
        other = pb.Card(suit=c.suit, rank=r)
        if trump.strength(other) > s:
            m |= 1 << card_index(other)
    return m


def _trick_inferences(trick: pb.Trick, trump: Trump, rules: PlayRules, excluded: list[int]) -> None:
    """Add to ``excluded`` what each card of ``trick`` shows its player does not hold (RULES.md §5, §7)."""
    cards = trick.cards
    if not cards:
        return
    led = cards[0].card.suit
    suit_mode = trump.mode == pb.TRUMP_MODE_SUIT
    best = cards[0].card
    master = cards[0].seat
    for p in cards[1:]:
        c, s = p.card, p.seat
        if c.suit == led:
            led_is_trump = trump.is_trump(best) and best.suit == led
            if rules.monter and led_is_trump and not trump.beats(c, best, led):
                excluded[s] |= _above(trump, best)                       # §5 rule 1: monter
        else:
            excluded[s] |= SUIT_MASK[led - 1]                            # §5 rule 1: follow suit
            if suit_mode and (rules.seats == 2 or not rules.vs_opponent or (master - s) % 2):
                tmask = SUIT_MASK[trump.suit - 1]
                best_is_trump = trump.is_trump(best)
                if rules.seats == 2 or not rules.must_overtrump:
                    if not trump.is_trump(c):
                        excluded[s] |= tmask                             # §7: must trump
                elif not trump.is_trump(c):
                    if not best_is_trump or rules.undertrump:
                        excluded[s] |= tmask                             # §5 rule 3: couper / pisser
                    else:
                        excluded[s] |= _above(trump, best)               # no trump above the best
                elif best_is_trump and not trump.beats(c, best, led):
                    excluded[s] |= _above(trump, best)                   # undertrumped: none higher
        if trump.beats(c, best, led):
            best, master = c, s


def knowledge(obs: pb.Observation) -> Knowledge:
    """What the observing seat knows of the hidden hands during the card play (module docstring).

    Args:
        obs: an observation in ``PHASE_PLAY`` (the trump mode known).

    Returns:
        The :class:`Knowledge`; its constraints may be unsatisfiable only if the observation
        broke the rules (then :func:`sample` relaxes them).
    """
    rules = play_rules(obs)
    n = rules.seats
    trump = Trump.of(obs)
    hand = mask_of(obs.hand_cards)
    played = mask_of(p.card for p in obs.played_cards)
    seen = hand | played
    if obs.turned_card_on_table and obs.turned_card.rank:
        seen |= 1 << card_index(obs.turned_card)
    if obs.HasField("exchange"):
        seen |= 1 << card_index(obs.exchange.trump_seven)
    unseen = ((1 << 32) - 1) & ~seen
    per_seat = rules.tricks
    played_by = [0] * n
    for p in obs.played_cards:
        played_by[p.seat] += 1
    need = tuple(per_seat - played_by[s] for s in range(n))
    fixed = [0] * n
    if n == 4 and obs.HasField("taker") and not obs.turned_card_on_table and obs.turned_card.rank:
        fixed[obs.taker] |= 1 << card_index(obs.turned_card)                      # §3.2
    if obs.HasField("exchange"):
        fixed[obs.exchange.seat] |= 1 << card_index(obs.exchange.turned_card)      # §7
    for d in obs.declarations:
        fixed[d.seat] |= mask_of(d.cards)                                          # §6.1
    for p in obs.played_cards:
        if p.belote and p.card.rank in (pb.RANK_KING, pb.RANK_QUEEN):              # §5 belote
            other = pb.RANK_QUEEN if p.card.rank == pb.RANK_KING else pb.RANK_KING
            fixed[p.seat] |= 1 << card_index(pb.Card(suit=p.card.suit, rank=other))
    excluded = [0] * n
    if trump.mode != pb.TRUMP_MODE_UNSPECIFIED:
        for t in obs.tricks:
            _trick_inferences(t, trump, rules, excluded)
        _trick_inferences(obs.current_trick, trump, rules, excluded)
    fixed = [f & unseen for f in fixed]
    fixed[obs.seat] = 0
    excluded = [(e & unseen) & ~fixed[s] for s, e in enumerate(excluded)]
    others = sum(need[s] for s in range(n) if s != obs.seat)
    stock = max(0, popcount(unseen) - others)
    return Knowledge(seat=obs.seat, hand=hand, unseen=unseen, need=need, fixed=tuple(fixed),
                     excluded=tuple(excluded), stock=stock)


def _bits(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def _deal(k: Knowledge, rng: random.Random, use_excluded: bool) -> list[int] | None:
    n = len(k.need)
    hands = [0] * n
    hands[k.seat] = k.hand
    taken = 0
    for s in range(n):
        if s != k.seat:
            hands[s] = k.fixed[s]
            taken |= k.fixed[s]
    # holders: the other seats, and (two players) the stock as seat n
    cap = {s: k.need[s] - popcount(hands[s]) for s in range(n) if s != k.seat}
    if k.stock:
        cap[n] = k.stock
    if any(v < 0 for v in cap.values()):
        return None
    free = _bits(k.unseen & ~taken)
    if sum(cap.values()) != len(free):
        return None
    excl = {s: (k.excluded[s] if use_excluded and s < n else 0) for s in cap}
    excl[n] = 0
    allowed = {c: [s for s in cap if not excl[s] >> c & 1] for c in free}
    rng.shuffle(free)
    free.sort(key=lambda c: len(allowed[c]))  # the most constrained first (stable: random among equals)
    stock = 0
    for c in free:
        choices = [s for s in allowed[c] if cap[s] > 0]
        if not choices:
            return None
        total = sum(cap[s] for s in choices)
        x = rng.randrange(total)
        for s in choices:
            x -= cap[s]
            if x < 0:
                break
        cap[s] -= 1
        if s == n:
            stock |= 1 << c
        else:
            hands[s] |= 1 << c
    return hands


def sample(k: Knowledge, rng: random.Random, tries: int = 40) -> list[int] | None:
    """A deal of the unseen cards consistent with ``k``: per seat the mask of the cards it holds
    now (``k.hand`` at ``k.seat``; two players: the stock left out), every seat holding
    ``k.need`` cards, its ``k.fixed`` cards and none of its ``k.excluded``.

    Draws card by card, the most constrained first, each to a seat with room that may hold it
    (chances in proportion to the room left); after ``tries`` dead ends the exclusions are
    dropped (only an observation that broke the rules gets there). ``None`` when even the
    counts do not fit.
    """
    for _ in range(tries):
        hands = _deal(k, rng, True)
        if hands is not None:
            return hands
    return _deal(k, rng, False)


def consistent(k: Knowledge, hands: list[int]) -> bool:
    """Whether ``hands`` (per seat masks) fits ``k``: own hand unchanged, the counts, the fixed and
    excluded cards, every card at most once and only unseen cards dealt (for tests)."""
    if hands[k.seat] != k.hand:
        return False
    union = 0
    for s, h in enumerate(hands):
        if union & h:
            return False
        union |= h
        if s == k.seat:
            continue
        if popcount(h) != k.need[s] or h & ~k.unseen or (h & k.fixed[s]) != k.fixed[s] or h & k.excluded[s]:
            return False
    return popcount(k.unseen & ~union) == k.stock
