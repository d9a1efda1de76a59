"""Bidding, schmeiss, contrée calls and declarations from sampled deals solved double dummy.

The card play's method (:mod:`.pimc`) applied to the decisions before the play: for each
option the seat has, deals of the cards it has not seen are drawn consistent with what it
knows, each deal is played out double dummy under the contract the option leads to, and the
deal's score margin for the seat's team is computed as the ruleset scores it (contract made,
dedans or litige, capot, declarations and their comparison, belote, contrée multipliers:
RULES.md §6.1–§6.4, §7). The option with the best mean margin is chosen; the deals are the
same for every option (common random numbers), so the comparison is paired.

- **Deals drawn** (RULES.md §3, §7 "Deal", §9): while bidding, the other seats' first packets
  (5 cards, two players 6) and the order of the rest of the deck, so that the hands of any
  contract can be completed as the referee does (§3.2: the taker receives the turned card and
  2 cards, the others 3, from eldest; two players 3 each and the trump-7 exchange). After the
  bidding, the deals of :func:`.knowledge.sample` (the taker holds the turned card).
  A seat's bids constrain its hand through a model of bidding (the heuristic bot's valuation,
  ``sample_bots/heuristic``, with a slack of ``SLACK`` points): a seat that passed is unlikely
  to hold a take, a taker a hopeless hand; up to ``TRIES`` draws are made to find such a deal.
- **Passing** (§4, §7): the bidding that would follow is played by the same model for every
  seat (this one included) on each drawn deal; the contract it reaches is solved and scored
  like the others (a deal passed out scores 0). So a take is compared with what passing would
  most likely lead to, not with a constant.
- **Schmeiss** (§7): the opponent's answer by the model (it refuses with a hand the heuristic
  values at ``REFUSE_SCHMEISS``); accepted scores 0, refused is the schmeisser's take.
- **Contrée calls** (§6.4): one solve per deal values the contract at ×1, ×2 and ×4; a
  contre is followed by the attackers' surcontre where the model would make it.
- **Declarations** (§6.1, §7): one solve per deal (the trick points do not depend on them),
  each legal choice scored with the other seats' declarations (public kinds, or the best
  choice of a hand not yet declared). Double dummy, information is worth nothing, so declaring
  more never loses by that count except where the rules make it cost points (``strict``: a
  dedans gives the defenders every declaration); see bench/RESULTS.md for how often it differs
  from the heuristic's "declare the most".

**Calibration.** Double dummy, the attackers take more than they do in play (the defence's
guesses, its first lead above all, are solved for it): ``TAKER_DD_EDGE`` trick points are taken
off the attackers' double-dummy points before a deal is scored (measured, bench/RESULTS.md).
The search of a deal stops once its margin is known within ``TOLERANCE`` points.

**The heuristic as a prior.** Double-dummy values on ~10 deals are noisy and a first-trick
solve costs 10–50 ms, so the evaluation is spent where the choice is close: a bid whose
heuristic value is more than ``BAND_LOW`` under the take threshold is not evaluated (pass),
nor one ``BAND_HIGH`` over it (the heuristic's take); at most ``MAX_CANDIDATES`` suits (the
heuristic's best) are evaluated beside passing; the heuristic's choice wins ties within
``PRIOR_BONUS`` points. With fewer than ``MIN_DEALS`` deals solved in the time budget, or
any error, the heuristic's choice is made.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field

from belote_arena_sdk import Trump, declaration_points, pb, seat_count
from belote_arena_sdk import dd
from sample_bots.heuristic.bot import (
    ALL_TRUMPS_THRESHOLD,
    NO_TRUMPS_THRESHOLD,
    REFUSE_SCHMEISS,
    SCHMEISS_BAND,
    SURCONTRE_THRESHOLD,
    all_trumps_value,
    no_trumps_value,
    suit_value,
    take_threshold,
)

try:
    from .knowledge import PlayRules, card_index, index_card, knowledge, mask_of, play_rules, popcount, sample
    from .knowledge import _bits as bits
except ImportError:  # run as a script from the bot's folder
    from knowledge import PlayRules, card_index, index_card, knowledge, mask_of, play_rules, popcount, sample
    from knowledge import _bits as bits

#: A seat's bid constrains its hand up to this slack (heuristic points) around the model's threshold.
SLACK = 6.0
#: Draws tried for a deal consistent with the bids before one is taken as it is.
TRIES = 25
#: Heuristic bid values this far under the threshold pass without evaluation; this far over it take.
BAND_LOW = 16.0
BAND_HIGH = 22.0
#: Suits evaluated beside passing (the heuristic's best).
MAX_CANDIDATES = 2
#: The heuristic's choice wins when the best option's mean margin beats it by less than this (points).
PRIOR_BONUS = 3.0
#: Fewer deals solved than this: the heuristic's choice.
MIN_DEALS = 6
MAX_DEALS = 40
#: The search stops once every margin of the deal is known within this many points (the middle is taken).
TOLERANCE = 12.0
#: Trick points the attackers take double dummy beyond what they take in play (measured: bench/RESULTS.md);
#: taken off the attackers' double-dummy trick points before a deal is scored.
TAKER_DD_EDGE = 5

_CARD = [index_card(i) for i in range(32)]
PASS = ("pass",)


def _cards(mask: int) -> list[pb.Card]:
    return [_CARD[c] for c in bits(mask)]


def _suit_of(c: int) -> int:
    """The ``pb.Suit`` of search card ``c``."""
    return (c >> 3) + 1


# --- the contract and its score ------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """What does not change across the deals of one decision.

    Attributes:
        ruleset, seats, rules: the ruleset's name, seat count and play rules.
        seat, team: the deciding seat and its team (two players: the seat).
        eldest: leads trick 1 and bids first; ``turned``: the turned card (search number).
        declarations: whether declarations are scored (§6.1, §6.4 option, §7).
        pot: the litige pot going to the next contract's winner (§6.3).
    """

    ruleset: str
    seats: int
    rules: PlayRules
    seat: int
    team: int
    eldest: int
    turned: int
    declarations: bool
    pot: int
    threshold: float

    @staticmethod
    def of(obs: pb.Observation) -> Setup:
        return Setup(ruleset=obs.ruleset, seats=seat_count(obs), rules=play_rules(obs), seat=obs.seat,
                     team=obs.team, eldest=obs.eldest, turned=card_index(_turned_at_deal(obs)),
                     declarations=obs.options.declarations_enabled, pot=obs.litige_pot,
                     threshold=take_threshold(obs))

    def team_of(self, seat: int) -> int:
        return seat % 2 if self.seats == 4 else seat


def _turned_at_deal(obs: pb.Observation) -> pb.Card:
    """The card turned at the deal (after a two-player exchange: ``exchange.turned_card``)."""
    return obs.exchange.turned_card if obs.HasField("exchange") else obs.turned_card


#: A contract: (mode, suit, taker); ``mode`` a ``pb.TrumpMode``, ``suit`` a ``pb.Suit`` (0 unless suit mode).
Contract = tuple[int, int, int]


def _trump(contract: Contract) -> Trump:
    mode, suit, _ = contract
    return Trump.suit_mode(suit) if mode == pb.TRUMP_MODE_SUIT else Trump(mode)


_CARRE_POINTS = {4: 200, 2: 150, 7: 100, 3: 100, 6: 100, 5: 100}   # natural rank index: J, 9, A, 10, K, Q
_PLAIN_RANK = (0, 1, 2, 6, 3, 4, 5, 7)                            # non-trump order for carré ties (§6.1)


def _runs(mask: int, split: bool) -> list[tuple[int, int]]:
    """Maximal runs (suit, natural ranks as a bit mask) of 3+ cards; ``split``: a run over five
    cards is a quinte of its five highest and a further run of the rest if 3+ (§6.1)."""
    out = []
    for s in range(4):
        b = (mask >> (8 * s)) & 0xFF
        r = 0
        while r < 8:
            if b >> r & 1:
                e = r
                while e + 1 < 8 and b >> (e + 1) & 1:
                    e += 1
                n = e - r + 1
                if split and n > 5:
                    out.append((s, ((1 << 5) - 1) << (e - 4)))
                    if n - 5 >= 3:
                        out.append((s, ((1 << (n - 5)) - 1) << r))
                elif n >= 3:
                    out.append((s, ((1 << n) - 1) << r))
                r = e + 1
            else:
                r += 1
    return out


def _seq_points(length: int, seats: int) -> int:
    if seats == 2:
        return 20 if length == 3 else 50
    return {3: 20, 4: 50}.get(length, 100)


def best_declarations(hand: int, s: Setup, trump_suit: int) -> tuple[int, tuple]:
    """The hand's choice worth most (§6.1; §7 sequences only): (points, comparison key of its best
    declaration, or ``()`` when none). The key orders as :meth:`referee.rules.declarations.Declaration.key`."""
    carres = [] if s.seats == 2 else [r for r in _CARRE_POINTS if all(hand >> (8 * q + r) & 1 for q in range(4))]
    best = (0, ())
    for pick in range(1 << len(carres)):
        used = 0
        pts = 0
        key: tuple = ()
        for i, r in enumerate(carres):
            if pick >> i & 1:
                used |= sum(1 << (8 * q + r) for q in range(4))
                pts += _CARRE_POINTS[r]
                key = max(key, (2, _CARRE_POINTS[r], _PLAIN_RANK[r], 0))
        for suit, ranks in _runs(hand & ~used, s.seats == 4):
            n = popcount(ranks)
            pts += _seq_points(n, s.seats)
            top = ranks.bit_length() - 1
            key = max(key, (1, n, top, 1 if suit + 1 == trump_suit else 0))
        if pts > best[0]:
            best = (pts, key)
    return best


def choice_of(declarations: list[pb.Declaration], seats: int, trump_suit: int) -> tuple[int, tuple]:
    """(points, comparison key of the best one) of a legal declaration choice (§6.1, §7), as
    :func:`best_declarations` counts a hand's."""
    pts = 0
    key: tuple = ()
    for d in declarations:
        pts += declaration_points(d, seats)
        ranks = [c.rank - pb.RANK_SEVEN for c in d.cards]
        if len(d.cards) == 4 and len(set(ranks)) == 1 and seats == 4:
            k = (2, declaration_points(d, seats), _PLAIN_RANK[ranks[0]], 0)
        else:
            k = (1, len(d.cards), max(ranks), 1 if d.cards and d.cards[0].suit == trump_suit else 0)
        key = max(key, k)
    return pts, key


def points_in_play(s: Setup, contract: Contract, hands: list[int], played: int = 0) -> int:
    """The deal's trick points: the card points of ``hands`` and the ``played`` cards (a mask) under
    the contract's trump, with the dix de der (RULES.md §2; 162 with four players)."""
    if s.seats == 4:
        return 152 + s.rules.dix_de_der
    mode, suit, _ = contract
    pts = 0
    for c in bits(played | sum(hands)):
        if mode == pb.TRUMP_MODE_SUIT and c >> 3 == suit - 1:
            pts += (0, 0, 14, 10, 20, 3, 4, 11)[c & 7]
        else:
            pts += (0, 0, 0, 10, 2, 3, 4, 11)[c & 7]
    return pts + s.rules.dix_de_der


def belote_points(hands: list[int], contract: Contract, s: Setup) -> list[int]:
    """Belote per team, every pair held being announced (§5 Belote-rebelote; all-trumps every suit's)."""
    mode, suit, _ = contract
    out = [0, 0]
    if mode == pb.TRUMP_MODE_SUIT:
        suits = [suit - 1]
    elif mode == pb.TRUMP_MODE_ALL_TRUMPS:
        suits = [0, 1, 2, 3]
    else:
        return out
    for seat, h in enumerate(hands):
        for q in suits:
            if h >> (8 * q + 5) & 1 and h >> (8 * q + 6) & 1:
                out[s.team_of(seat)] += 20
    return out


def declarations_of(hands: list[int], contract: Contract, s: Setup,
                    given: dict[int, tuple[int, tuple]] | None = None) -> tuple[list[int], list[int]]:
    """(the declaration points each team scores as winner of the comparison, the points each team
    declared) for hands declaring their best choice; ``given``: per seat, (points, key) already
    chosen (§6.1: the team with the best single declaration scores all of its own; equal best:
    the team of the first declarer from eldest; §7: equal best, nobody)."""
    declared = [0, 0]
    if not s.declarations or contract[0] not in (pb.TRUMP_MODE_SUIT,):
        return [0, 0], declared
    best: list[tuple] = [(), ()]
    first = [99, 99]
    n = s.seats
    for k in range(n):
        seat = (s.eldest + k) % n
        pts, key = given[seat] if given and seat in given else best_declarations(hands[seat], s, contract[1])
        t = s.team_of(seat)
        declared[t] += pts
        if key and key > best[t]:
            best[t] = key
            first[t] = k
        elif key and key == best[t]:
            first[t] = min(first[t], k)
    if not best[0] and not best[1]:
        return [0, 0], declared
    if best[0] != best[1]:
        win = 0 if best[0] > best[1] else 1
    elif n == 2:
        return [0, 0], declared
    else:
        win = 0 if first[0] < first[1] else 1
    scored = [0, 0]
    scored[win] = declared[win]
    return scored, declared


def deal_scores(s: Setup, contract: Contract, ns_points: int, decl: list[int], declared: list[int],
                belote: list[int], multiplier: int = 1, total: int | None = None) -> list[int]:
    """Each team's score for the deal (RULES.md §6.2–§6.4, two players §7), from NS's trick points as
    the search counts them (a capot: the total plus half its bonus, or minus half); ``total``: the
    trick points of the deal (162; two players, the points of the cards dealt to the hands + 10)."""
    r = s.rules
    if total is None:
        total = 152 + r.dix_de_der
    half = r.capot_bonus // 2
    att = s.team_of(contract[2])
    dfd = 1 - att
    capot = None
    if half and ns_points == total + half:
        capot, tp_ns = 0, total + 2 * half
    elif half and ns_points == -half:
        capot, tp_ns = 1, 0
    else:
        tp_ns = ns_points
    tp = [tp_ns, total + (2 * half if capot is not None else 0) - tp_ns]
    if s.seats == 2:
        tot = [tp[p] + decl[p] + belote[p] for p in (0, 1)]
        if tot[att] > tot[dfd]:
            return tot
        out = [0, 0]
        out[dfd] = tot[dfd] if tot[att] == tot[dfd] else tot[att] + tot[dfd]
        return out
    if s.ruleset == "strict":
        a_tot, d_tot = tp[att] + decl[att] + belote[att], tp[dfd] + decl[dfd] + belote[dfd]
    else:
        a_tot, d_tot = tp[att], tp[dfd]
    if capot == dfd or a_tot < d_tot:
        result = "dedans"
    elif a_tot > d_tot:
        result = "made"
    else:
        result = "litige" if s.ruleset == "all-trumps" else ("dedans" if s.ruleset == "strict" else "made")
    takes_all = s.ruleset == "strict"
    score = [0, 0]
    pot_to = None
    if multiplier != 1 and result != "litige":
        win = att if result == "made" else dfd
        score[win] = (total + (2 * half if capot == win else 0)) * multiplier
        if result == "dedans" and takes_all:
            score[dfd] += sum(declared) + belote[dfd]
            score[att] = belote[att]
        else:
            score[win] += decl[win] + belote[win]
            score[1 - win] = decl[1 - win] + belote[1 - win]
        pot_to = win
    elif result == "made":
        score = [tp[t] + decl[t] + belote[t] for t in (0, 1)]
        pot_to = att
    elif result == "dedans":
        base = tp[dfd] if capot == dfd else total
        if takes_all:
            score[dfd] = base + sum(declared) + belote[dfd]
            score[att] = belote[att]
        else:
            score[dfd] = base + decl[dfd] + belote[dfd]
            score[att] = decl[att] + belote[att]
        pot_to = dfd
    else:
        score[dfd] = tp[dfd] + decl[dfd] + belote[dfd]
        score[att] = belote[att]
    if pot_to is not None:
        score[pot_to] += s.pot
    if s.ruleset == "strict":
        score = [(x + 5) // 10 * 10 for x in score]
    return score


# --- the model of bidding (the heuristic bot's valuation) -----------------------------------


def _take_cards(cards: list[pb.Card], suit: int, s: Setup) -> list[pb.Card]:
    """What a taker of ``suit`` counts on (§3.2, §7 exchange), as the heuristic does."""
    turned = _CARD[s.turned]
    if s.seats == 4:
        return cards + [turned]
    seven = pb.Card(suit=suit, rank=pb.RANK_SEVEN)
    if suit == turned.suit and seven in cards:
        return [c for c in cards if c != seven] + [turned]
    return cards


def suit_values(first: int, s: Setup, suits) -> dict[int, float]:
    cards = _cards(first)
    return {q: suit_value(_take_cards(cards, q, s), q) for q in suits}


def round_suits(rnd: int, s: Setup) -> list[int]:
    """The suits a take may name in round ``rnd`` (§4; §7: any suit in round 2)."""
    t = _suit_of(s.turned)
    if rnd <= 1:
        return [t]
    return [1, 2, 3, 4] if s.seats == 2 else [q for q in (1, 2, 3, 4) if q != t]


def model_bid(first: int, rnd: int, s: Setup) -> tuple:
    """The model's bid for a seat holding ``first`` (its first packet) in round ``rnd``:
    ``("take", mode, suit)``, ``("schmeiss",)`` or :data:`PASS` (the heuristic bot's rule)."""
    if rnd == 3:
        cards = _cards(first) + [_CARD[s.turned]]
        at = all_trumps_value(cards) - ALL_TRUMPS_THRESHOLD
        nt = no_trumps_value(cards) - NO_TRUMPS_THRESHOLD
        if max(at, nt) >= 0:
            return ("take", pb.TRUMP_MODE_ALL_TRUMPS, 0) if at >= nt else ("take", pb.TRUMP_MODE_NO_TRUMPS, 0)
        return PASS
    vals = suit_values(first, s, round_suits(rnd, s))
    v, q = max((v, q) for q, v in vals.items())
    if v >= s.threshold:
        return ("take", pb.TRUMP_MODE_SUIT, q)
    if s.seats == 2 and s.threshold - SCHMEISS_BAND <= v:
        return ("schmeiss",)
    return PASS


def _bid_fits(first: int, rnd: int, bid: tuple, s: Setup) -> bool:
    """Whether a seat holding ``first`` could have made ``bid`` in round ``rnd`` by the model, with ``SLACK``."""
    if rnd == 3:
        return True  # round 3 of all-trumps: not modelled as evidence
    best = max(suit_values(first, s, round_suits(rnd, s)).values())
    if bid[0] == "pass":
        return best < s.threshold + SLACK
    if bid[0] == "take":
        return suit_values(first, s, [bid[2]])[bid[2]] >= s.threshold - SLACK
    if bid[0] == "schmeiss":
        return s.threshold - SCHMEISS_BAND - SLACK <= best < s.threshold + SLACK
    return True


def bid_events(obs: pb.Observation) -> list[tuple[int, int, tuple]]:
    """The deal's bids as (seat, round, model bid)."""
    out = []
    for e in obs.bids:
        if e.WhichOneof("event") != "bid":
            continue
        b = e.bid
        if b.kind == pb.BID_KIND_PASS:
            out.append((e.seat, e.round, PASS))
        elif b.kind == pb.BID_KIND_TAKE:
            out.append((e.seat, e.round, ("take", pb.TRUMP_MODE_SUIT, b.suit or _suit_of(card_index(obs.turned_card)))))
        elif b.kind == pb.BID_KIND_SCHMEISS:
            out.append((e.seat, e.round, ("schmeiss",)))
        else:
            out.append((e.seat, e.round, ("take", 0, 0)))
    return out


# --- deals ----------------------------------------------------------------------------------


@dataclass
class World:
    """A drawn deal: each seat's first packet and the rest of the deck in dealing order (while
    bidding), or ``final`` hands already complete (after the bidding)."""

    first: list[int]
    rest: list[int] = field(default_factory=list)
    final: list[int] | None = None

    def hands(self, s: Setup, contract: Contract) -> list[int]:
        """The hands after the bidding under ``contract`` (§3.2; §7 completing and exchange)."""
        if self.final is not None:
            return list(self.final)
        n = s.seats
        taker = contract[2]
        hands = list(self.first)
        i = 0
        for k in range(n):
            seat = (s.eldest + k) % n
            m = 2 if (n == 4 and seat == taker) else 3
            for c in self.rest[i:i + m]:
                hands[seat] |= 1 << c
            i += m
        if n == 4:
            hands[taker] |= 1 << s.turned
        elif contract[0] == pb.TRUMP_MODE_SUIT and contract[1] == _suit_of(s.turned) and s.turned & 7 != 1:
            seven = (s.turned >> 3) * 8
            for seat in range(n):
                if hands[seat] >> seven & 1:  # the heuristic's exchange: unless the turned card is the 8
                    hands[seat] ^= (1 << seven) | (1 << s.turned)
        return hands


def draw_bidding(obs: pb.Observation, s: Setup, rng: random.Random, events) -> World:
    """A deal while bidding: the other seats' first packets and the rest of the deck, the bids
    made consistent with the model where ``TRIES`` draws find it (module docstring)."""
    n = s.seats
    mine = mask_of(obs.hand_cards)
    size = popcount(mine)
    unseen = [c for c in range(32) if not (mine >> c & 1) and c != s.turned]
    world = None
    for _ in range(TRIES):
        rng.shuffle(unseen)
        first = [0] * n
        i = 0
        for seat in range(n):
            if seat == s.seat:
                first[seat] = mine
                continue
            for c in unseen[i:i + size]:
                first[seat] |= 1 << c
            i += size
        world = World(first, unseen[i:])
        if all(_bid_fits(first[seat], rnd, bid, s) for seat, rnd, bid in events if seat != s.seat):
            return world
    return world


def draw_after(obs: pb.Observation, s: Setup, rng: random.Random, events) -> World | None:
    """A deal after the bidding (:func:`.knowledge.sample`), each seat's first packet taken as
    a random part of its hand for the bids' consistency (module docstring)."""
    k = knowledge(obs)
    size = 5 if s.seats == 4 else 6
    taker = obs.taker if obs.HasField("taker") else -1
    hands = None
    for _ in range(TRIES):
        hands = sample(k, rng)
        if hands is None:
            return None
        ok = True
        firsts = {}
        for seat in range(s.seats):
            if seat == s.seat:
                continue
            pool = hands[seat] & ~(1 << s.turned) if (s.seats == 4 and seat == taker) else hands[seat]
            cards = bits(pool)
            rng.shuffle(cards)
            firsts[seat] = sum(1 << c for c in cards[:size])
        for seat, rnd, bid in events:
            if seat != s.seat and not _bid_fits(firsts[seat], rnd, bid, s):
                ok = False
                break
        if ok:
            break
    return World(first=[], final=hands)


# --- the bidding that follows a pass --------------------------------------------------------


def continuation(world: World, s: Setup, start_seat: int, rnd: int, rounds: int) -> Contract | None:
    """The contract the model's bidding reaches from ``start_seat`` in round ``rnd`` (every seat,
    this one included, bidding by the model; a schmeiss answered by the model), or ``None``
    when the deal is passed out (or a schmeiss accepted)."""
    n = s.seats
    seat = start_seat
    while rnd <= rounds:
        for _ in range(n):
            bid = model_bid(world.first[seat], rnd, s)
            if bid[0] == "take":
                return (bid[1], bid[2], seat)
            if bid[0] == "schmeiss":
                return schmeiss_outcome(world, s, seat, rnd)
            seat = (seat + 1) % n
            if seat == s.eldest:
                break
        rnd += 1
        seat = s.eldest
    return None


def schmeiss_outcome(world: World, s: Setup, bidder: int, rnd: int) -> Contract | None:
    """A schmeiss by ``bidder`` answered by the model (§7): refused → ``bidder`` takes (the turned
    suit, or its best suit in round 2); accepted → ``None``."""
    other = 1 - bidder
    answer_vals = suit_values(world.first[other], s, round_suits(rnd, s))
    if max(answer_vals.values()) < REFUSE_SCHMEISS:
        return None
    vals = suit_values(world.first[bidder], s, round_suits(rnd, s))
    q = max(vals, key=vals.get)
    return (pb.TRUMP_MODE_SUIT, q, bidder)


# --- the evaluator ---------------------------------------------------------------------------


@dataclass
class Evaluation:
    """Mean score margin (the seat's team's points minus the other's) of each option over ``deals``."""

    means: dict
    deals: int


class Auction:
    """Valuing options before the play by sampled deals solved double dummy (module docstring),
    with the card play's searcher (:class:`.pimc.Pimc`: its table, workspace and speed)."""

    def __init__(self, pimc) -> None:
        self.pimc = pimc

    # -- the search
    def solve(self, s: Setup, contract: Contract, hands: list[int], node_limit: int, score=None) -> int | None:
        """NS's trick points of the deal played double dummy from trick 1 (eldest leads), or ``None``
        when the node budget ran out.

        ``score`` (NS's points → a tuple of margins): the null-window probes stop once every
        margin is known within ``TOLERANCE`` (the made/dedans step is found, the made margin to a
        few points) and the middle of the interval is returned; without it, the exact value
        (:func:`belote_arena_sdk.dd.solve`)."""
        p = self.pimc
        tab, block = p._tab(s.rules, _trump(contract))
        ws = p.ws
        ws[:dd.W_HANDS] = block
        ws[dd.W_HANDS:dd.W_HANDS + 4] = 0
        ws[dd.W_HANDS:dd.W_HANDS + len(hands)] = hands
        ws[dd.W_DEPTH] = 0
        p.gen += 1
        ws[dd.W_GEN] = p.gen
        ws[dd.W_NODES] = 0
        ws[dd.W_LIMIT] = max(1, min(node_limit, 1 << 40))
        if p._stopped.is_set():
            ws[dd.W_LIMIT] = 1
        rem = 0
        for h in hands:
            rem |= h
        rem_pts = int(sum(int(tab[dd.T_POINTS, c]) for c in bits(rem)))
        t0 = time.monotonic()
        tricks = s.rules.tricks
        if score is None:
            v = int(dd.solve(tab, p.tt, ws, 0, s.eldest, -1, 0, 0, 0, rem_pts, 0, tricks, rem_pts // 2))
        else:
            half = s.rules.capot_bonus // 2
            lo, hi = -half, rem_pts + s.rules.dix_de_der + half
            memo: dict[int, tuple] = {}

            def f(x: int) -> tuple:
                if x not in memo:
                    memo[x] = score(x)
                return memo[x]

            def gap(a: tuple, b: tuple) -> float:
                return max(abs(x - y) for x, y in zip(a, b))

            while lo < hi:
                spread = gap(f(lo), f(hi))
                if spread <= TOLERANCE:
                    break
                # the first value whose margin is half way: a bisection of the margin, not of the points
                a, b = lo + 1, hi
                while a < b:
                    mid = (a + b) // 2
                    if gap(f(mid), f(lo)) * 2 >= spread:
                        b = mid
                    else:
                        a = mid + 1
                g = int(dd.search(tab, p.tt, ws, 0, s.eldest, -1, 0, 0, 0, rem_pts, 0, tricks, a - 1, a))
                if dd.aborted(ws):
                    break
                if g < a:
                    hi = min(hi, g)
                else:
                    lo = max(lo, g)
            v = (lo + hi) // 2 if lo < hi else lo
        spent = (time.monotonic() - t0) * 1000.0
        nodes = int(ws[dd.W_NODES])
        if dd.aborted(ws):
            p.gen += 1
            return None
        if spent > 2.0 and nodes > 2000:
            p.rate = 0.7 * p.rate + 0.3 * (nodes / spent)
        return v

    def margin(self, s: Setup, contract: Contract | None, world: World, cache: dict, deadline: float,
               multipliers=(1,)) -> list[float] | None:
        """The seat's team's margin under ``contract`` on ``world`` for each multiplier (0 when
        passed out), ``None`` out of time."""
        if contract is None:
            return [0.0 for _ in multipliers]
        if contract not in cache:
            left = (deadline - time.monotonic()) * 1000.0
            if left <= 1.0:
                return None
            hands = world.hands(s, contract)
            decl, declared = declarations_of(hands, contract, s)
            belote = belote_points(hands, contract, s)
            total = points_in_play(s, contract, hands)

            edge = TAKER_DD_EDGE if s.team_of(contract[2]) == 0 else -TAKER_DD_EDGE
            half = s.rules.capot_bonus // 2

            def score(ns: int) -> tuple:
                if -half < ns < total + half:  # a capot stays one
                    ns = min(max(ns - edge, 0), total)
                out = []
                for m in multipliers:
                    sc = deal_scores(s, contract, ns, decl, declared, belote, m, total)
                    out.append(float(sc[s.team] - sc[1 - s.team]))
                return tuple(out)

            ns = self.solve(s, contract, hands, int(left * self.pimc.rate), score)
            if ns is None:
                return None
            cache[contract] = score(ns)
        return list(cache[contract])

    def _run(self, budget_ms: float, hard_ms: float, body):
        p = self.pimc
        p._stopped.clear()
        timer = threading.Timer(hard_ms / 1000.0, p._stop)
        timer.daemon = True
        timer.start()
        try:
            return body(time.monotonic() + budget_ms / 1000.0)
        finally:
            timer.cancel()
            p._stopped.clear()

    # -- bidding
    def evaluate_bids(self, obs: pb.Observation, options: list[tuple], rng: random.Random, *, budget_ms: float,
                      hard_ms: float | None = None, max_deals: int = MAX_DEALS) -> Evaluation:
        """Mean margins of bidding options (RULES.md §4, §7): ``("take", mode, suit)``, ``("schmeiss",)``,
        :data:`PASS` (the model's bidding follows, :func:`continuation`)."""
        s = Setup.of(obs)
        events = bid_events(obs)
        rounds = 3 if obs.ruleset == "all-trumps" else 2
        rnd = max(1, obs.bidding_round)
        nxt = (s.seat + 1) % s.seats
        after_pass = (nxt, rnd) if nxt != s.eldest else (s.eldest, rnd + 1)

        def body(deadline: float) -> Evaluation:
            sums = {o: 0.0 for o in options}
            deals = 0
            while deals < max_deals and time.monotonic() < deadline:
                world = draw_bidding(obs, s, rng, events)
                cache: dict = {}
                got = {}
                for o in options:
                    if o[0] == "pass":
                        c = continuation(world, s, after_pass[0], after_pass[1], rounds)
                    elif o[0] == "schmeiss":
                        c = schmeiss_outcome(world, s, s.seat, rnd)
                    else:
                        c = (o[1], o[2], s.seat)
                    m = self.margin(s, c, world, cache, deadline)
                    if m is None:
                        break
                    got[o] = m[0]
                if len(got) < len(options):
                    break
                deals += 1
                for o in options:
                    sums[o] += got[o]
            return Evaluation({o: sums[o] / deals for o in options} if deals else {}, deals)

        return self._run(budget_ms, hard_ms or 2 * budget_ms, body)

    # -- schmeiss answer (two players)
    def evaluate_schmeiss_answer(self, obs: pb.Observation, rng: random.Random, *, budget_ms: float,
                                 hard_ms: float | None = None, max_deals: int = MAX_DEALS) -> Evaluation:
        """Mean margins of ``"accept"`` (0: a redeal) and ``"refuse"`` (the schmeisser takes, §7)."""
        s = Setup.of(obs)
        events = bid_events(obs)
        rnd = max(1, obs.bidding_round)
        bidder = 1 - s.seat

        def body(deadline: float) -> Evaluation:
            total = 0.0
            deals = 0
            while deals < max_deals and time.monotonic() < deadline:
                world = draw_bidding(obs, s, rng, events)
                vals = suit_values(world.first[bidder], s, round_suits(rnd, s))
                c = (pb.TRUMP_MODE_SUIT, max(vals, key=vals.get), bidder)
                m = self.margin(s, c, world, {}, deadline)
                if m is None:
                    break
                total += m[0]
                deals += 1
            return Evaluation({"accept": 0.0, "refuse": total / deals} if deals else {}, deals)

        return self._run(budget_ms, hard_ms or 2 * budget_ms, body)

    # -- contrée calls
    def evaluate_call(self, obs: pb.Observation, rng: random.Random, *, budget_ms: float,
                      hard_ms: float | None = None, max_deals: int = MAX_DEALS) -> Evaluation:
        """Mean margins of ``"pass"`` and ``"contre"`` (a defender: followed by the model's surcontre)
        or ``"pass"`` and ``"surcontre"`` (an attacker after a contre), RULES.md §6.4."""
        s = Setup.of(obs)
        events = bid_events(obs)
        contract: Contract = (pb.TRUMP_MODE_SUIT, obs.trump_suit, obs.taker)
        attacker = s.team_of(obs.taker) == s.team
        current = max(1, obs.multiplier)

        def body(deadline: float) -> Evaluation:
            sums = {"pass": 0.0, "call": 0.0}
            deals = 0
            while deals < max_deals and time.monotonic() < deadline:
                world = draw_after(obs, s, rng, events)
                if world is None:
                    break
                if attacker:
                    mults = (current, 4)
                else:
                    hands = world.final
                    att_seats = [q for q in range(s.seats) if s.team_of(q) == s.team_of(obs.taker)]
                    redouble = any(suit_value(_cards(hands[q]), obs.trump_suit) >= SURCONTRE_THRESHOLD
                                   for q in att_seats)
                    mults = (current, 4 if redouble else 2)
                m = self.margin(s, contract, world, {}, deadline, mults)
                if m is None:
                    break
                sums["pass"] += m[0]
                sums["call"] += m[1]
                deals += 1
            return Evaluation({k: v / deals for k, v in sums.items()} if deals else {}, deals)

        return self._run(budget_ms, hard_ms or 2 * budget_ms, body)

    # -- declarations
    def evaluate_declarations(self, obs: pb.Observation, choices: list[tuple[int, tuple]], rng: random.Random, *,
                              budget_ms: float, hard_ms: float | None = None,
                              max_deals: int = MAX_DEALS) -> Evaluation:
        """Mean margins of each declaration choice (index into ``choices``: (points, comparison key)),
        RULES.md §6.1, §7: the other seats' declarations as shown (kind and points) or, not yet
        made, their hand's best; the trick points by one double-dummy solve of the deal."""
        s = Setup.of(obs)
        events = bid_events(obs)
        contract: Contract = (obs.trump_mode, obs.trump_suit if obs.trump_mode == pb.TRUMP_MODE_SUIT else 0,
                              obs.taker)
        shown: dict[int, tuple[int, tuple]] = {}
        for d in obs.declarations:
            pts, key = shown.get(d.seat, (0, ()))
            if d.kind == pb.DECLARATION_KIND_CARRE:
                r = (d.top_rank - pb.RANK_SEVEN) if d.top_rank else 2
                k = (2, d.points, _PLAIN_RANK[r], 0)
            else:
                top = (d.top_rank - pb.RANK_SEVEN) if d.top_rank else 7
                k = (1, d.length, top, 0)
            shown[d.seat] = (pts + d.points, max(key, k))
        trump_suit = obs.trump_suit if obs.trump_mode == pb.TRUMP_MODE_SUIT else 0

        def body(deadline: float) -> Evaluation:
            sums = [0.0] * len(choices)
            deals = 0
            while deals < max_deals and time.monotonic() < deadline:
                world = draw_after(obs, s, rng, events)
                if world is None:
                    break
                hands = world.final
                left = (deadline - time.monotonic()) * 1000.0
                if left <= 1.0:
                    break
                ns = self.pimc.position_value(obs, hands, int(left * self.pimc.rate))
                if ns is None:
                    break
                belote = belote_points(hands, contract, s)
                total = points_in_play(s, contract, hands, mask_of(p.card for p in obs.played_cards))
                for i, choice in enumerate(choices):
                    given = dict(shown)
                    given[s.seat] = choice
                    for q in range(s.seats):
                        if q not in given:
                            given[q] = best_declarations(hands[q], s, trump_suit)
                    decl, declared = declarations_of(hands, contract, s, given)
                    sc = deal_scores(s, contract, ns, decl, declared, belote, max(1, obs.multiplier), total)
                    sums[i] += sc[s.team] - sc[1 - s.team]
                deals += 1
            return Evaluation({i: sums[i] / deals for i in range(len(choices))} if deals else {}, deals)

        return self._run(budget_ms, hard_ms or 2 * budget_ms, body)
