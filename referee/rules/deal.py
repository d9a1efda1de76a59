"""The state of one deal and its transitions (RULES.md §3–§7).

``DealState`` follows the OpenSpiel shape: :meth:`DealState.legal_actions`,
:meth:`DealState.apply`, :meth:`DealState.is_terminal`,
:meth:`DealState.outcome`; ``observe(state, seat)`` lives in
:mod:`referee.rules.observation`.  ``apply`` trusts its caller (like
python-chess's ``push``): check with :meth:`DealState.check` or
:meth:`DealState.apply_checked` at every boundary — the referee and the record
replayer always do.

Phases: bidding (§4, §7) → [schmeiss answer → name trump] → [contrée calls,
§6.4 option ``contree``] → declarations
(two-player, after the bidding, §7) → trump-7 exchange (§7) → play (§5; in the
4-player game each seat's declaration choice comes just before its first card,
§6.1) → done (scored by :mod:`referee.rules.scoring`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .actions import (
    CALL_PASS, CONTRE, PASS, PLAYS, SURCONTRE, Action, Bid, BidKind, Call, CallKind, Declare, Exchange, NameTrump, Play,
    SchmeissAnswer,
)
from .cards import CARD_TEXT, CARDS, RANKS_IN_BYTE, SUIT_MASK, Card, Rank, Suit, cards_of
from .declarations import Declaration, declaration_options, declaration_winner, has_declaration
from .ruleset import (
    ALL_TRUMPS_POINTS,
    NO_TRUMPS_POINTS,
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
    Ruleset,
    TrumpMode,
)


class Phase(str, Enum):
    BIDDING = "bidding"
    SCHMEISS_ANSWER = "schmeiss-answer"
    NAME_TRUMP = "name-trump"
    CONTREE = "contree"
    """the contre / surcontre calls after the bidding (§6.4)"""
    DECLARATION = "declaration"
    EXCHANGE = "exchange"
    PLAY = "play"
    DONE = "done"


class IllegalActionError(ValueError):
    """A well-formed action that the rules forbid now; ``rule`` names the RULES.md section."""

    def __init__(self, message: str, rule: str):
        section, _, name = rule.partition(" ")
        name = name.strip("()")
        super().__init__(f"{message} (RULES.md {section}" + (f", {name})" if name else ")"))
        self.rule = rule


def _above(strength: tuple[int, ...]) -> tuple[int, ...]:
    """For each rank: the 8-bit mask of ranks that beat it in this order."""
    return tuple(sum(1 << r for r in range(8) if strength[r] > strength[q]) for q in range(8))


#: The non-announcing play actions of the cards of suit ``s`` in an 8-bit suit slice: ``[s][byte]``.
_PLAYS_IN_BYTE = tuple(
    tuple(tuple(PLAYS[s * 8 + r][0] for r in RANKS_IN_BYTE[b]) for b in range(256)) for s in range(4)
)
_TRUMP_ABOVE = _above(TRUMP_STRENGTH)
_PLAIN_ABOVE = _above(PLAIN_STRENGTH)
_KQ = (1 << Rank.KING) | (1 << Rank.QUEEN)


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick: ``leader`` seat, ``cards`` as (seat, card) in play order,
    ``winner`` seat and its card ``points`` (dix de der included for the last)."""

    leader: int
    cards: tuple[tuple[int, Card], ...]
    winner: int
    points: int


class DealState:
    """One deal being played, from the first packets to the last trick.

    Args:
        ruleset: the rule system (a :class:`~referee.rules.ruleset.Ruleset`).
        deck: the board's 32 cards, index 0 on top (§3.1).
        dealer: the dealer's seat, ``0 <= dealer < ruleset.seats``.
        pot: a litige pot carried into this deal, in points (§6.3).
        scores: the game or match scores before this deal, per team (shown in observations, §9).

    Raises:
        ValueError: a deck that is not the 32 distinct cards, or a bad dealer.

    Teams: in the 4-player game team 0 = NS (seats 0, 2), team 1 = EW; with two
    players the team of a seat is the seat itself.
    """

    def __init__(self, ruleset: Ruleset, deck, dealer: int, *, pot: int = 0, scores: tuple[int, ...] | None = None):
        n = ruleset.seats
        deck = tuple(deck)
        if len(deck) != 32 or len(set(deck)) != 32 or not all(isinstance(c, Card) for c in deck):
            raise ValueError("the deck must hold each of the 32 cards exactly once")
        if not (isinstance(dealer, int) and 0 <= dealer < n):
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        self.ruleset = ruleset
        self.deck = deck
        self.dealer = dealer
        self.eldest = (dealer + 1) % n
        self.pot = pot
        self.scores = tuple(scores) if scores is not None else (0, 0)
        self.hands = [0] * n
        self.history: list[tuple[int, Action]] = []
        self.bids: list[tuple[int, Action]] = []
        self.phase = Phase.BIDDING
        self.bidding_round = 0
        self._passes = 0
        self.schmeiss_by: int | None = None
        self.taker: int | None = None
        self.trump_mode: TrumpMode | None = None
        self.trump: Suit | None = None
        self.calls: list[tuple[int, Call]] = []  # contrée calls in order (§6.4)
        self.multiplier = 1  # 2 after a contre, 4 after a surcontre (§6.4)
        self._call_queue: list[int] = []
        self.declared: list[tuple[Declaration, ...] | None] = [None] * n
        self.declaration_team: int | None = None
        self._declaration_choices: list[tuple[Declaration, ...]] = []
        self.exchanged_by: int | None = None
        self.exchange_taken: Card | None = None  # the turned card taken in the trump-7 exchange (§7)
        self.belote_suits = [0] * n  # suits (bit per suit) whose K+Q a seat may still announce
        self.belotes: list[tuple[int, Suit]] = []  # announced pairs: (seat, suit)
        self.plays: list[tuple[int, Card, bool, bool]] = []  # (seat, card, belote, rebelote)
        self.tricks: list[Trick] = []
        self.trick: list[tuple[int, Card]] = []
        self.trick_points = [0, 0]
        self.tricks_won = [0, 0]
        self._outcome = None
        self._belote_open = 0  # suits whose belote was announced and whose rebelote card is still to come
        self._led, self._best, self._best_seat, self._leader = -1, CARDS[0], 0, self.eldest
        self._trump_index = -1
        self._next = 0  # next undealt deck index
        for size in ruleset.first_packets:
            for i in range(n):
                seat = (self.eldest + i) % n
                for c in deck[self._next : self._next + size]:
                    self.hands[seat] |= 1 << c
                self._next += size
        self.turned: Card = deck[self._next]
        self._next += 1
        self.turned_on_table = True
        self.to_act = self.eldest

    # ------------------------------------------------------------------ queries
    @property
    def seats(self) -> int:
        return self.ruleset.seats

    def team_of(self, seat: int) -> int:
        """Team index of a seat: ``seat % 2`` (the seat itself with two players)."""
        return seat % 2

    def hand(self, seat: int) -> list[Card]:
        """The cards ``seat`` holds now."""
        return cards_of(self.hands[seat])

    @property
    def master(self) -> int | None:
        """The seat whose card currently wins the trick in progress, or ``None`` (§1)."""
        return self._best_seat if self.trick else None

    def is_terminal(self) -> bool:
        return self.phase is Phase.DONE

    def outcome(self):
        """The scored result (:class:`~referee.rules.scoring.DealOutcome`) once terminal, else ``None``."""
        return self._outcome

    def order_from_eldest(self) -> list[int]:
        n = self.ruleset.seats
        return [(self.eldest + i) % n for i in range(n)]

    # ------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat ``to_act`` (never empty before the end).

        Raises:
            ValueError: if the deal is over.
        """
        phase = self.phase
        if phase is Phase.PLAY:
            return self._legal_plays()
        if phase is Phase.BIDDING:
            return self._legal_bids()
        if phase is Phase.DECLARATION:
            return [Declare(d) for d in self._declaration_choices]
        if phase is Phase.CONTREE:
            return [CALL_PASS, CONTRE if self.multiplier == 1 else SURCONTRE]
        if phase is Phase.SCHMEISS_ANSWER:
            return [SchmeissAnswer(True), SchmeissAnswer(False)]
        if phase is Phase.NAME_TRUMP:
            return [NameTrump(s) for s in Suit]
        if phase is Phase.EXCHANGE:
            return [Exchange(False), Exchange(True)]
        raise ValueError("the deal is over: no legal actions")

    def _legal_bids(self) -> list[Action]:
        rnd = self.ruleset.bidding_rounds[self.bidding_round]
        turned_suit = self.turned >> 3
        out: list[Action] = [PASS]
        if rnd.take_turned:
            out.append(Bid(BidKind.TAKE))
        if rnd.take_other_suits:
            out.extend(Bid(BidKind.TAKE, s) for s in Suit if s != turned_suit)
        if rnd.take_any_suit:
            out.extend(Bid(BidKind.TAKE, s) for s in Suit)
        if rnd.all_trumps:
            out.append(Bid(BidKind.ALL_TRUMPS))
        if rnd.no_trumps:
            out.append(Bid(BidKind.NO_TRUMPS))
        if rnd.schmeiss:
            out.append(Bid(BidKind.SCHMEISS))
        return out

    def legal_card_mask(self) -> int:
        """The card mask of the cards ``to_act`` may play now (§5, §7 "Play")."""
        seat = self.to_act
        hand = self.hands[seat]
        trick = self.trick
        if not trick:
            return hand
        led = self._led
        follow = hand & SUIT_MASK[led]
        if follow:
            if self._monter_suits >> led & 1:
                best = self._best
                if best >> 3 == led:
                    higher = follow & (self._above[led][best & 7] << (8 * led))
                    if higher:
                        return higher
            return follow
        trump = self._trump_index
        if trump < 0:
            return hand
        rules = self.ruleset
        if rules.trump_only_against_opponent and (self._best_seat - seat) % 2 == 0:
            return hand  # partner is master (§5.2)
        trumps = hand & SUIT_MASK[trump]
        if not trumps:
            return hand
        if not rules.must_overtrump:
            return trumps
        best = self._best
        if best >> 3 == trump:
            higher = trumps & (_TRUMP_ABOVE[best & 7] << (8 * trump))
        else:
            higher = trumps
        if higher:
            return higher
        return trumps if rules.undertrump else hand

    def _legal_plays(self) -> list[Action]:
        mask = self.legal_card_mask()
        out: list[Action] = []
        for s in range(4):
            b = (mask >> (8 * s)) & 0xFF
            if b:
                out.extend(_PLAYS_IN_BYTE[s][b])
        bel = self.belote_suits[self.to_act]
        if bel:  # the first card of a belote pair may be played with or without announcing it (§5)
            for s in range(4):
                if bel >> s & 1:
                    for r in (Rank.QUEEN, Rank.KING):
                        c = s * 8 + r
                        if mask >> c & 1:
                            out.append(PLAYS[c][1])
        return out

    # ------------------------------------------------------------------ checking
    def check(self, seat: int, action: Action) -> None:
        """Raise if ``seat`` may not take ``action`` now; return ``None`` when legal.

        Raises:
            IllegalActionError: naming the broken rule's RULES.md section.
        """
        if self.phase is Phase.DONE:
            raise IllegalActionError("the deal is over", self._section("§5"))
        if isinstance(action, Call):
            self._check_call(seat, action)
            return
        if isinstance(action, Declare) and self.ruleset.declarations is None:
            why = ("option declarations is off" if "declarations" in self.ruleset.variants
                   else f"{self.ruleset.name} has none")
            raise IllegalActionError(f"seat {seat} may not declare: there are no declarations in this deal ({why})",
                                     "§6.4 (declarations)" if "declarations" in self.ruleset.variants else "§6.1")
        if seat != self.to_act:
            raise IllegalActionError(
                f"it is seat {self.to_act}'s turn, not seat {seat}'s", self._section("§4–§5 (play in turn)")
            )
        phase = self.phase
        expected = {
            Phase.BIDDING: (Bid, "a bid", "§4"),
            Phase.SCHMEISS_ANSWER: (SchmeissAnswer, "an answer to the schmeiss", "§7"),
            Phase.NAME_TRUMP: (NameTrump, "naming the trump suit", "§7"),
            Phase.CONTREE: (Call, "a contrée call (pass, contre or surcontre)", "§6.4"),
            Phase.DECLARATION: (Declare, "a declaration choice", "§6.1" if self.ruleset.seats == 4 else "§7"),
            Phase.EXCHANGE: (Exchange, "the trump-7 exchange choice", "§7"),
            Phase.PLAY: (Play, "a card", "§5"),
        }[phase]
        if not isinstance(action, expected[0]):
            raise IllegalActionError(
                f"seat {seat} must now make {expected[1]}; got: {action}", self._section(expected[2])
            )
        if action in self.legal_actions():
            return
        message, rule = self._why_illegal(seat, action)
        raise IllegalActionError(message, self._section(rule))

    def _check_call(self, seat: int, call: Call) -> None:
        """Why a contrée call is refused, naming the call (§6.4); ``None`` when legal."""
        def refuse(message: str) -> None:
            raise IllegalActionError(f"seat {seat} may not {call.kind.value}: {message}", "§6.4 (contree)")

        if not self.ruleset.contree:
            refuse("there are no contrée calls in this deal (option contree is off)")
        if self.phase is not Phase.CONTREE and call.kind is CallKind.SURCONTRE and self.calls and self.multiplier == 1:
            refuse("nobody has doubled (contre): the defenders passed, which ended the calls")
        if self.phase is not Phase.CONTREE:
            refuse("the contrée calls come after the bidding and before any declaration or card"
                   + ("" if self.taker is not None else "; nobody has taken yet"))
        attacker = self.team_of(seat) == self.team_of(self.taker)
        doubled = self.multiplier > 1
        if call.kind is CallKind.CONTRE and attacker:
            refuse("only a defender doubles (contre); an attacker may surcontre after a contre")
        if call.kind is CallKind.CONTRE and doubled:
            refuse(f"the defenders have already doubled; now seat {self.to_act} (an attacker) may surcontre or pass")
        if call.kind is CallKind.SURCONTRE and not doubled:
            refuse("nobody has doubled (contre): a surcontre answers a contre")
        if call.kind is CallKind.SURCONTRE and not attacker:
            refuse("only an attacker redoubles (surcontre)")
        if seat != self.to_act:
            refuse(f"it is seat {self.to_act}'s turn to call")

    def _section(self, rule: str) -> str:
        """The RULES.md section of ``rule`` for this game: with two players every rule is in §7
        (§4–§6 are the four-player sections), keeping the parenthesised name."""
        if self.ruleset.seats == 2 and not rule.startswith("§7"):
            name = rule.partition(" ")[2]
            return "§7" + (f" {name}" if name else "")
        return rule

    def _why_illegal(self, seat: int, action: Action) -> tuple[str, str]:
        if isinstance(action, Bid):
            rnd = self.bidding_round + 1
            return f"seat {seat} may not bid {action} in bidding round {rnd}", "§4" if self.ruleset.seats == 4 else "§7"
        if isinstance(action, Declare):
            return f"seat {seat}: {action} is not a legal declaration choice of this hand", "§6.1"
        assert isinstance(action, Play)
        card = action.card
        hand = self.hands[seat]
        if not hand >> card & 1:
            return f"seat {seat} does not hold {CARD_TEXT[card]}", "§5"
        if action.belote:
            return f"seat {seat} cannot announce belote with {CARD_TEXT[card]}", "§5 (belote-rebelote)"
        led = self._led
        if not self.trick:
            return f"seat {seat} may not play {CARD_TEXT[card]} now", "§5"
        if hand & SUIT_MASK[led] and card >> 3 != led:
            return f"seat {seat} must follow suit {Suit(led).symbol}, not play {CARD_TEXT[card]}", "§5.1 (follow suit)"
        if card >> 3 == led:
            return f"seat {seat} must play higher than {CARD_TEXT[self._best]} (monter)", "§5.1 (monter)"
        legal = self.legal_card_mask()
        if self._trump_index >= 0 and legal & SUIT_MASK[self._trump_index] == legal:
            best_is_trump = self._best >> 3 == self._trump_index
            if best_is_trump and card >> 3 == self._trump_index:
                return f"seat {seat} must overtrump {CARD_TEXT[self._best]} (surcouper)", "§5.3 (surcouper)"
            if best_is_trump and not legal & (_TRUMP_ABOVE[self._best & 7] << (8 * self._trump_index)):
                return f"seat {seat} must play a trump, even a lower one (pisser)", "§5.3 (pisser)"
            return f"seat {seat} must play a trump (couper)", "§5.3 (couper)" if self.ruleset.seats == 4 else "§7 (play)"
        return f"seat {seat} may not play {CARD_TEXT[card]} here", "§5"

    def apply_checked(self, seat: int, action: Action) -> None:
        """:meth:`check` then :meth:`apply`."""
        self.check(seat, action)
        self.apply(action)

    # ------------------------------------------------------------------ applying
    def apply(self, action: Action) -> None:
        """Apply a legal action of the seat ``to_act`` (not checked: see :meth:`check`)."""
        seat = self.to_act
        self.history.append((seat, action))
        phase = self.phase
        if phase is Phase.PLAY:
            self._play(seat, action)  # type: ignore[arg-type]
        elif phase is Phase.BIDDING:
            self._bid(seat, action)  # type: ignore[arg-type]
        elif phase is Phase.DECLARATION:
            self._declare(seat, action)  # type: ignore[arg-type]
        elif phase is Phase.CONTREE:
            self._call(seat, action)  # type: ignore[arg-type]
        elif phase is Phase.SCHMEISS_ANSWER:
            self.bids.append((seat, action))
            if action.accept:  # type: ignore[union-attr]
                self._finish_passed(schmeiss_accepted=True)
            else:
                bidder = self.schmeiss_by
                assert bidder is not None
                if self.ruleset.bidding_rounds[self.bidding_round].take_turned:
                    self._take(bidder, TrumpMode.SUIT, Suit(self.turned >> 3))
                else:
                    self.phase, self.to_act = Phase.NAME_TRUMP, bidder
        elif phase is Phase.NAME_TRUMP:
            self.bids.append((seat, action))
            self._take(seat, TrumpMode.SUIT, action.trump)  # type: ignore[union-attr]
        elif phase is Phase.EXCHANGE:
            if action.exchange:  # type: ignore[union-attr]
                seven = CARDS[self._trump_index * 8 + Rank.SEVEN]
                self.hands[seat] = (self.hands[seat] & ~(1 << seven)) | (1 << self.turned)
                self.exchange_taken = self.turned
                self.turned = seven
                self.exchanged_by = seat
            self._start_play()
        else:
            raise ValueError("the deal is over")

    def _bid(self, seat: int, bid: Bid) -> None:
        self.bids.append((seat, bid))
        kind = bid.kind
        n = self.ruleset.seats
        if kind is BidKind.PASS:
            self._passes += 1
            if self._passes < n:
                self.to_act = (seat + 1) % n
                return
            self._passes = 0
            self.bidding_round += 1
            if self.bidding_round >= len(self.ruleset.bidding_rounds):
                self._finish_passed(schmeiss_accepted=False)
            else:
                self.to_act = self.eldest
        elif kind is BidKind.TAKE:
            self._take(seat, TrumpMode.SUIT, bid.trump if bid.trump is not None else Suit(self.turned >> 3))
        elif kind is BidKind.ALL_TRUMPS:
            self._take(seat, TrumpMode.ALL_TRUMPS, None)
        elif kind is BidKind.NO_TRUMPS:
            self._take(seat, TrumpMode.NO_TRUMPS, None)
        else:  # schmeiss
            self.schmeiss_by = seat
            self.phase = Phase.SCHMEISS_ANSWER
            self.to_act = (seat + 1) % n

    def _take(self, seat: int, mode: TrumpMode, trump: Suit | None) -> None:
        rules = self.ruleset
        n = rules.seats
        self.taker, self.trump_mode, self.trump = seat, mode, trump
        self._trump_index = trump if mode is TrumpMode.SUIT else -1
        # §2: order and points per suit for this trump mode
        if mode is TrumpMode.SUIT:
            self._strength = tuple(TRUMP_STRENGTH if s == trump else PLAIN_STRENGTH for s in range(4))
            self._points = tuple(TRUMP_POINTS if s == trump else PLAIN_POINTS for s in range(4))
            self._monter_suits = (1 << trump) if rules.monter else 0
        elif mode is TrumpMode.ALL_TRUMPS:
            self._strength = (TRUMP_STRENGTH,) * 4
            self._points = (ALL_TRUMPS_POINTS,) * 4
            self._monter_suits = 0b1111 if rules.monter else 0
        else:
            self._strength = (PLAIN_STRENGTH,) * 4
            self._points = (NO_TRUMPS_POINTS,) * 4
            self._monter_suits = 0
        self._above = tuple(_TRUMP_ABOVE if st is TRUMP_STRENGTH else _PLAIN_ABOVE for st in self._strength)
        # §3.2 / §7: complete the hands
        deck = self.deck
        for i in range(n):
            s = (self.eldest + i) % n
            k = rules.rest_to_taker if s == seat else rules.rest_to_others
            for c in deck[self._next : self._next + k]:
                self.hands[s] |= 1 << c
            self._next += k
        if rules.taker_gets_turned:
            self.hands[seat] |= 1 << self.turned
            self.turned_on_table = False
        if rules.contree:  # §6.4: the defenders from the seat after the taker
            self._call_queue = [s for s in ((seat + k) % n for k in range(1, n)) if s % 2 != seat % 2]
            self.phase, self.to_act = Phase.CONTREE, self._call_queue.pop(0)
            return
        self._after_bidding()

    def _call(self, seat: int, call: Call) -> None:
        """A contrée call (§6.4): the first contre ends the defenders' calls and opens the
        attackers', from the taker; the first surcontre ends the calls."""
        self.calls.append((seat, call))
        n = self.ruleset.seats
        if call.kind is CallKind.CONTRE:
            self.multiplier = 2
            taker = self.taker
            self._call_queue = [s for s in ((taker + k) % n for k in range(n)) if s % 2 == taker % 2]
        elif call.kind is CallKind.SURCONTRE:
            self.multiplier = 4
            self._call_queue = []
        if self._call_queue:
            self.to_act = self._call_queue.pop(0)
        else:
            self._after_bidding()

    def _after_bidding(self) -> None:
        """Declarations right after the bidding (§7) or the trump-7 exchange and play."""
        seat = self.taker
        decl = self.ruleset.declarations
        if decl is not None and not decl.during_first_trick:
            self._decl_queue = [seat] + [s for s in self.order_from_eldest() if s != seat]
            self._next_declaration_after_bidding()
        else:
            self._after_declarations()

    def _next_declaration_after_bidding(self) -> None:
        rules = self.ruleset.declarations
        while self._decl_queue:
            s = self._decl_queue.pop(0)
            if has_declaration(self.hands[s], rules):
                self._declaration_choices = _canonical(declaration_options(self.hands[s], rules))
                self.phase, self.to_act = Phase.DECLARATION, s
                return
            self.declared[s] = ()
        self._resolve_declarations()
        self._after_declarations()

    def exchange_offered(self) -> bool:
        """Whether this deal's contract offers the trump-7 exchange (RULES.md §7): the rule is
        on and the trump is the turned card's suit, whoever holds the seven (only its holder
        is asked)."""
        return bool(self.ruleset.exchange_trump_seven and self.trump_mode is TrumpMode.SUIT
                    and self.trump == self.turned >> 3)

    def _after_declarations(self) -> None:
        rules = self.ruleset
        if self.exchange_offered():
            seven = 1 << (self._trump_index * 8 + Rank.SEVEN)
            for s in range(rules.seats):
                if self.hands[s] & seven:
                    self.phase, self.to_act = Phase.EXCHANGE, s
                    return
        self._start_play()

    def _start_play(self) -> None:
        # §5 belote-rebelote: pairs held once the hands are complete (after the exchange, §7)
        if self.trump_mode is TrumpMode.SUIT:
            belote_suits = (self.trump,)
        elif self.trump_mode is TrumpMode.ALL_TRUMPS:
            belote_suits = tuple(Suit)
        else:
            belote_suits = ()
        for seat in range(self.ruleset.seats):
            for s in belote_suits:
                if (self.hands[seat] >> (8 * s)) & _KQ == _KQ:
                    self.belote_suits[seat] |= 1 << s
        self.phase = Phase.PLAY
        self._leader = self.eldest
        self._enter_turn(self.eldest)

    def _enter_turn(self, seat: int) -> None:
        self.to_act = seat
        decl = self.ruleset.declarations
        if decl is not None and decl.during_first_trick and not self.tricks and self.declared[seat] is None:
            if has_declaration(self.hands[seat], decl):
                self._declaration_choices = _canonical(declaration_options(self.hands[seat], decl))
                self.phase = Phase.DECLARATION
            else:
                self.declared[seat] = ()

    def _declare(self, seat: int, action: Declare) -> None:
        self.declared[seat] = action.declarations
        self._declaration_choices = []
        if self.ruleset.declarations.during_first_trick:
            self.phase = Phase.PLAY
        else:
            self._next_declaration_after_bidding()

    def _resolve_declarations(self) -> None:
        rules = self.ruleset.declarations
        declared = {s: d for s, d in enumerate(self.declared) if d}
        self.declaration_team = declaration_winner(
            declared, rules, self.trump if self.trump_mode is TrumpMode.SUIT else None,
            self.order_from_eldest(), self.team_of,
        )

    def _play(self, seat: int, action: Play) -> None:
        card = action.card
        n = self.ruleset.seats
        self.hands[seat] &= ~(1 << card)
        suit = card >> 3
        rebelote = False
        bel = self.belote_suits[seat]
        if bel and bel >> suit & 1 and _KQ >> (card & 7) & 1:
            self.belote_suits[seat] = bel & ~(1 << suit)
            if action.belote:
                self.belotes.append((seat, Suit(suit)))
                self._belote_open |= 1 << suit
        elif self._belote_open >> suit & 1 and _KQ >> (card & 7) & 1:
            rebelote = True
            self._belote_open &= ~(1 << suit)
        self.plays.append((seat, card, action.belote, rebelote))
        trick = self.trick
        if not trick:
            self._led = suit
            self._best, self._best_seat = card, seat
        else:
            best = self._best
            if suit == best >> 3:
                if self._strength[suit][card & 7] > self._strength[suit][best & 7]:
                    self._best, self._best_seat = card, seat
            elif suit == self._trump_index:
                self._best, self._best_seat = card, seat
        trick.append((seat, card))
        if len(trick) < n:
            self._enter_turn((seat + 1) % n)
            return
        # trick complete
        points = 0
        pts = self._points
        for _, c in trick:
            points += pts[c >> 3][c & 7]
        winner = self._best_seat
        last = len(self.tricks) + 1 == self.ruleset.tricks
        if last:
            points += self.ruleset.dix_de_der
        team = winner % 2
        self.trick_points[team] += points
        self.tricks_won[team] += 1
        self.tricks.append(Trick(self._leader, tuple(trick), winner, points))
        self.trick = []
        if len(self.tricks) == 1 and self.ruleset.declarations is not None and self.ruleset.declarations.during_first_trick:
            self._resolve_declarations()
        if last:
            from .scoring import score_deal

            self.phase = Phase.DONE
            self._outcome = score_deal(self)
            return
        self._leader = winner
        self._enter_turn(winner)

    def _finish_passed(self, *, schmeiss_accepted: bool) -> None:
        from .scoring import passed_outcome

        self.phase = Phase.DONE
        self._outcome = passed_outcome(self, schmeiss_accepted=schmeiss_accepted)


def _canonical(options) -> list[tuple[Declaration, ...]]:
    return [tuple(sorted(o, key=lambda d: d.cards)) for o in options]

