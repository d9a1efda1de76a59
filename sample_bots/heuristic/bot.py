"""The heuristic sample bot: a sensible club player for all four rulesets.

It reads only its observation and the legal actions (RULES.md §9), never the
rules engine, and is deterministic (it draws nothing from ``self.rng``).

- **Bidding** (RULES.md §4, §7): values a hand for each trump it may take from
  the trumps it would hold (jack, nine, ace, the count of trumps, belote), its
  side aces and guarded tens and its short suits, counting the turned card the
  taker receives (four players) or can get by the trump-7 exchange (two
  players); takes the best suit over a threshold (higher in ``strict``, whose
  dedans costs more). Round 3 of ``all-trumps``: all-trumps on jacks and
  nines, no-trumps on aces and tens.
- **Schmeiss** (two players, §7): bids it with a hand just under the take
  threshold; refuses an opponent's schmeiss when its own hand defends well.
- **Contrée** (§6.4): a defender doubles (contre) when its own hand would be a
  strong take in the attackers' trump — at least three trumps with two of the
  jack, nine and ace, valued over ``CONTRE_THRESHOLD`` — so the attackers'
  contract is unlikely; an attacker redoubles (surcontre) only with a hand worth
  ``SURCONTRE_THRESHOLD``, sure of the contract; otherwise pass.
- **Declarations**: the legal choice worth most (§6.1, §7); **belote**: always
  announced; **exchange**: takes the turned card unless it is the 8.
- **Play** (§5): as taker (or partner of the taker) draws trumps with the
  master trump; cashes master cards where no opponent can ruff; wins tricks
  with sure winners, the cheapest first; gives points (tens, aces) to a
  partner who is master for sure; otherwise plays or discards low.

Run: ``python bot.py --listen /tmp/heuristic/bot.sock``.
"""

from __future__ import annotations

from collections.abc import Sequence

from belote_arena_sdk import (
    SUITS,
    Bot,
    Trump,
    call_of,
    declaration_points,
    is_partner,
    kind_of,
    known_voids,
    legal_cards,
    outstanding_cards,
    pb,
    play_of,
    seat_count,
    serve,
    team_of,
)

# --- hand valuation (bidding) -------------------------------------------------------
# Bidding values are in "expected points" units, loosely: a card's trick points
# plus what its length and control are worth. Thresholds were set so that a
# hand takes with e.g. J + A of trump and a side ace, or J 9 + one more trump.

_TRUMP_VALUE = {
    pb.RANK_JACK: 20, pb.RANK_NINE: 14, pb.RANK_ACE: 11, pb.RANK_TEN: 10,
    pb.RANK_KING: 4, pb.RANK_QUEEN: 3, pb.RANK_EIGHT: 2, pb.RANK_SEVEN: 2,
}
_EXTRA_TRUMP = 6          # each trump beyond the second
_BELOTE_VALUE = 10        # K+Q of trump: 20 points if announced, counted at half
_SIDE_ACE = 11
_SIDE_ACE_TEN = 8         # the ten behind an ace of the same suit
_GUARDED_TEN = 3          # a side ten with at least one more card of its suit
_VOID_WITH_TRUMPS = 6     # a void side suit when holding 3+ trumps (ruffs)
_SINGLETON_WITH_TRUMPS = 2

TAKE_THRESHOLD = {4: 44, 2: 38}
"""Minimum suit value to take, by seat count."""
STRICT_EXTRA = 4
"""Added to the threshold in ``strict``, where a tie is dedans and dedans costs every declaration."""
SCHMEISS_BAND = 6
"""Two players: schmeiss with a value in [threshold - band, threshold)."""
REFUSE_SCHMEISS = 34
"""Two players: refuse a schmeiss when the own hand is worth at least this much."""


def suit_value(cards: Sequence[pb.Card], trump_suit: int) -> float:
    """Bidding value of holding ``cards`` with ``trump_suit`` trump (see the module docstring)."""
    trumps = [c for c in cards if c.suit == trump_suit]
    ranks = {c.rank for c in trumps}
    value: float = sum(_TRUMP_VALUE[c.rank] for c in trumps)
    value += _EXTRA_TRUMP * max(0, len(trumps) - 2)
    if pb.RANK_KING in ranks and pb.RANK_QUEEN in ranks:
        value += _BELOTE_VALUE
    for suit in SUITS:
        if suit == trump_suit:
            continue
        side = {c.rank for c in cards if c.suit == suit}
        if pb.RANK_ACE in side:
            value += _SIDE_ACE + (_SIDE_ACE_TEN if pb.RANK_TEN in side else 0)
        elif pb.RANK_TEN in side and len(side) >= 2:
            value += _GUARDED_TEN
        if len(trumps) >= 3:
            if not side:
                value += _VOID_WITH_TRUMPS
            elif len(side) == 1 and pb.RANK_ACE not in side:
                value += _SINGLETON_WITH_TRUMPS
    return value


def all_trumps_value(cards: Sequence[pb.Card]) -> float:
    """Bidding value for all-trumps: jacks, and nines protected by their jack or length (§2)."""
    value = 0.0
    for suit in SUITS:
        ranks = {c.rank for c in cards if c.suit == suit}
        if pb.RANK_JACK in ranks:
            value += 13
            if pb.RANK_NINE in ranks:
                value += 9
        elif pb.RANK_NINE in ranks and len(ranks) >= 2:
            value += 5
        if pb.RANK_KING in ranks and pb.RANK_QUEEN in ranks:
            value += 10
    return value


def no_trumps_value(cards: Sequence[pb.Card]) -> float:
    """Bidding value for no-trumps: aces, and tens protected by their ace (§2)."""
    value = 0.0
    for suit in SUITS:
        ranks = {c.rank for c in cards if c.suit == suit}
        if pb.RANK_ACE in ranks:
            value += 19
            if pb.RANK_TEN in ranks:
                value += 10
        elif pb.RANK_TEN in ranks and len(ranks) >= 3:
            value += 4
    return value


CONTRE_THRESHOLD = 55
"""A defender doubles with a hand worth this much in the attackers' trump (and the trump honours below)."""
SURCONTRE_THRESHOLD = 80
"""An attacker redoubles with a hand worth this much in its own trump."""

ALL_TRUMPS_THRESHOLD = 35
NO_TRUMPS_THRESHOLD = 48


def _take_cards(obs: pb.Observation, suit: int) -> list[pb.Card]:
    """The cards a taker of ``suit`` can count on: four players get the turned card
    (§3.2); two players can swap the 7 of trump for it when trump is its suit (§7)."""
    hand = list(obs.hand_cards)
    turned = obs.turned_card
    if seat_count(obs) == 4:
        return hand + [turned]
    seven = pb.Card(suit=suit, rank=pb.RANK_SEVEN)
    if suit == turned.suit and seven in hand:
        return [c for c in hand if c != seven] + [turned]
    return hand


def take_threshold(obs: pb.Observation) -> float:
    """The suit value needed to take in this ruleset."""
    return TAKE_THRESHOLD[seat_count(obs)] + (STRICT_EXTRA if obs.ruleset == "strict" else 0)


def best_suit_value(obs: pb.Observation, suits: Sequence[int]) -> tuple[float, int]:
    """The best ``(value, suit)`` among ``suits`` for this hand as taker."""
    return max((suit_value(_take_cards(obs, s), s), s) for s in suits)


# --- card play ----------------------------------------------------------------------


class _Table:
    """What the play heuristics need about the trick in progress, computed once per decision."""

    def __init__(self, obs: pb.Observation, legal: list[pb.Card]) -> None:
        self.obs = obs
        self.trump = Trump.of(obs)
        self.legal = legal
        self.seats = seat_count(obs)
        self.outstanding = outstanding_cards(obs)
        self.voids = known_voids(obs)
        self.trick = list(obs.current_trick.cards)
        self.suit_mode = self.trump.mode == pb.TRUMP_MODE_SUIT
        self.trumps_out = [u for u in self.outstanding if self.suit_mode and self.trump.is_trump(u)]
        after = self.seats - 1 - len(self.trick)
        self.still_to_play = [(obs.seat + k) % self.seats for k in range(1, after + 1)]
        self.opponents_to_play = [s for s in self.still_to_play if not is_partner(obs, s)]

    def is_trump(self, c: pb.Card) -> bool:
        """A trump in suit mode (in all-trumps every card is, which changes nothing here)."""
        return self.suit_mode and self.trump.is_trump(c)

    def is_master(self, c: pb.Card) -> bool:
        """No outstanding card of ``c``'s suit is stronger."""
        s = self.trump.strength(c)
        return not any(u.suit == c.suit and self.trump.strength(u) > s for u in self.outstanding)

    def may_ruff(self, seats: Sequence[int], suit: int) -> bool:
        """Whether one of ``seats`` may trump a lead of ``suit``: suit mode, trumps
        still out, and the seat known void in ``suit`` (or nobody else holds it)
        and not known void in trumps."""
        if not self.suit_mode or suit == self.trump.suit or not self.trumps_out:
            return False
        suit_gone = not any(u.suit == suit for u in self.outstanding)
        return any(
            (suit in self.voids[s] or suit_gone) and self.trump.suit not in self.voids[s] for s in seats
        )

    def sure_winner(self, c: pb.Card, led: int) -> bool:
        """Whether ``c``, once it is master of the trick, stays master whatever the
        opponents still to play hold (as far as the seat can tell)."""
        if not self.opponents_to_play:
            return True
        for u in self.outstanding:
            if not self.trump.beats(u, c, led):
                continue
            if u.suit == led or self.may_ruff(self.opponents_to_play, led):
                return False
        return True

    def low_key(self, c: pb.Card) -> tuple[bool, int, bool, int]:
        """Order for playing low: keep trumps, give no points, keep masters, then weakest."""
        return (self.is_trump(c), self.trump.points(c), self.is_master(c), self.trump.strength(c))

    def lowest(self, cards: Sequence[pb.Card] | None = None) -> pb.Card:
        """The card to play low or discard."""
        return min(cards or self.legal, key=self.low_key)

    def win_key(self, c: pb.Card) -> tuple[int, int, int]:
        """Order for choosing among winners (max wins): a non-trump banking the most
        points (then the weakest), else the weakest trump."""
        if self.is_trump(c):
            return (0, -self.trump.strength(c), 0)
        return (1, self.trump.points(c), -self.trump.strength(c))


def _lead(t: _Table) -> pb.Card:
    """Leading a trick (RULES.md §5: any card is legal)."""
    obs = t.obs
    attacking = obs.HasField("taker") and team_of(obs.taker) == obs.team
    my_trumps = [c for c in t.legal if t.is_trump(c)]
    if attacking and t.trumps_out and my_trumps:
        masters = [c for c in my_trumps if t.is_master(c)]
        if masters:
            return max(masters, key=t.trump.strength)       # draw trumps with the master trump
        if obs.taker != obs.seat or len(my_trumps) > len(t.trumps_out):
            return min(my_trumps, key=t.trump.strength)     # partner of the taker: trump back
    opponents = [s for s in range(t.seats) if team_of(s) != obs.team]
    cashable = [
        c for c in t.legal
        if not t.is_trump(c) and t.is_master(c) and not t.may_ruff(opponents, c.suit)
    ]
    if cashable:
        return max(cashable, key=t.trump.points)
    side = [c for c in t.legal if not t.is_trump(c)] or t.legal
    # Lead low, but not a ten whose ace is still out (it would fall to the ace).
    unguarded = [c for c in side if c.rank == pb.RANK_TEN and not t.is_master(c)]
    return t.lowest([c for c in side if c not in unguarded] or side)


def _follow(t: _Table) -> pb.Card:
    """Following a trick that has cards in it."""
    obs, trump, trick = t.obs, t.trump, t.trick
    led = trick[0].card.suit
    best_i = trump.master(trick)
    assert best_i is not None
    best = trick[best_i].card
    points = trump.trick_points(trick)
    winners = [c for c in t.legal if trump.beats(c, best, led)]

    if is_partner(obs, trick[best_i].seat):
        if t.sure_winner(best, led):
            # Smear: give the partner points, not trumps, preferring a ten to a master ace.
            smear = [c for c in t.legal if not t.is_trump(c)] or t.legal
            return max(
                smear,
                key=lambda c: (
                    not t.is_trump(c),
                    trump.points(c) - (6 if t.is_master(c) and c.suit != led else 0),
                    -trump.strength(c),
                ),
            )
        sure = [c for c in winners if t.sure_winner(c, led)]
        if sure and points >= 10:
            return max(sure, key=t.win_key)
        return t.lowest()

    sure = [c for c in winners if t.sure_winner(c, led)]
    if sure:
        return max(sure, key=t.win_key)
    if winners and points >= 10:
        return max(winners, key=trump.strength)             # fight for a rich trick
    return t.lowest()


class HeuristicBot(Bot):
    """A sensible club player for every ruleset (see the module docstring)."""

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        """One of ``request.legal_actions`` chosen by the heuristics of the module docstring."""
        obs = request.observation
        legal = list(request.legal_actions)
        phase = obs.phase
        if phase == pb.PHASE_BIDDING:
            return self.bid(obs, legal)
        if phase == pb.PHASE_SCHMEISS_ANSWER:
            return self.answer_schmeiss(obs, legal)
        if phase == pb.PHASE_NAME_TRUMP:
            return max(legal, key=lambda a: suit_value(_take_cards(obs, a.name_trump.suit), a.name_trump.suit))
        if phase == pb.PHASE_DECLARATION:
            seats = seat_count(obs)
            return max(
                legal,
                key=lambda a: (
                    sum(declaration_points(d, seats) for d in a.declaration.declarations),
                    -sum(len(d.cards) for d in a.declaration.declarations),
                ),
            )
        if phase == pb.PHASE_EXCHANGE:
            want = obs.turned_card.rank != pb.RANK_EIGHT
            return next((a for a in legal if a.exchange.exchange == want), legal[0])
        if phase == pb.PHASE_PLAY:
            return self.play(obs, legal)
        if phase == pb.PHASE_CONTREE:
            return self.call(obs, legal)
        return legal[0]

    def call(self, obs: pb.Observation, legal: list[pb.Action]) -> pb.Action:
        """A contrée call (RULES.md §6.4), as in the module docstring; pass when unsure."""
        hand = list(obs.hand_cards)
        trump = obs.trump_suit
        value = suit_value(hand, trump)
        contre = call_of(legal, pb.CONTREE_CALL_KIND_CONTRE)
        if contre is not None:
            trumps = [c for c in hand if c.suit == trump]
            honours = sum(c.rank in (pb.RANK_JACK, pb.RANK_NINE, pb.RANK_ACE) for c in trumps)
            if len(trumps) >= 3 and honours >= 2 and value >= CONTRE_THRESHOLD:
                return contre
        surcontre = call_of(legal, pb.CONTREE_CALL_KIND_SURCONTRE)
        if surcontre is not None and value >= SURCONTRE_THRESHOLD:
            return surcontre
        return call_of(legal, pb.CONTREE_CALL_KIND_PASS) or legal[0]

    def bid(self, obs: pb.Observation, legal: list[pb.Action]) -> pb.Action:
        """A bid (RULES.md §4, §7): the best take over the threshold, a schmeiss with a
        hand just under it (two players), all-trumps / no-trumps in round 3, else pass."""
        bids = [a for a in legal if kind_of(a) == "bid"]
        by_kind: dict[int, list[pb.Action]] = {}
        for a in bids:
            by_kind.setdefault(a.bid.kind, []).append(a)
        threshold = take_threshold(obs)
        best: tuple[float, pb.Action] | None = None
        for a in by_kind.get(pb.BID_KIND_TAKE, []):
            value = suit_value(_take_cards(obs, a.bid.suit), a.bid.suit)
            if best is None or value > best[0]:
                best = (value, a)
        if best is not None and best[0] >= threshold:
            return best[1]
        cards = list(obs.hand_cards) + [obs.turned_card]
        options = []
        if pb.BID_KIND_ALL_TRUMPS in by_kind:
            options.append((all_trumps_value(cards) - ALL_TRUMPS_THRESHOLD, by_kind[pb.BID_KIND_ALL_TRUMPS][0]))
        if pb.BID_KIND_NO_TRUMPS in by_kind:
            options.append((no_trumps_value(cards) - NO_TRUMPS_THRESHOLD, by_kind[pb.BID_KIND_NO_TRUMPS][0]))
        margin, action = max(options, key=lambda o: o[0], default=(-1.0, None))
        if action is not None and margin >= 0:
            return action
        if pb.BID_KIND_SCHMEISS in by_kind:
            suits = [obs.turned_card.suit] if obs.bidding_round <= 1 else list(SUITS)
            value, _ = best_suit_value(obs, suits)
            if threshold - SCHMEISS_BAND <= value < threshold:
                return by_kind[pb.BID_KIND_SCHMEISS][0]
        if pb.BID_KIND_PASS in by_kind:
            return by_kind[pb.BID_KIND_PASS][0]
        return legal[0]

    def answer_schmeiss(self, obs: pb.Observation, legal: list[pb.Action]) -> pb.Action:
        """Refuse (the schmeisser must play) when this hand defends well in the
        trump to come: the turned suit in round 1, any suit in round 2; else accept."""
        suits = [obs.turned_card.suit] if obs.bidding_round <= 1 else list(SUITS)
        value, _ = best_suit_value(obs, suits)
        want = pb.SCHMEISS_ANSWER_KIND_REFUSE if value >= REFUSE_SCHMEISS else pb.SCHMEISS_ANSWER_KIND_ACCEPT
        return next((a for a in legal if a.schmeiss_answer.kind == want), legal[0])

    def play(self, obs: pb.Observation, legal: list[pb.Action]) -> pb.Action:
        """A card (RULES.md §5, §7), announcing belote whenever it may."""
        table = _Table(obs, legal_cards(legal))
        chosen = _follow(table) if table.trick else _lead(table)
        return play_of(legal, chosen, belote=True)


if __name__ == "__main__":
    raise SystemExit(serve(HeuristicBot()))
