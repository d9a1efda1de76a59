"""Rulesets as data (RULES.md, table at the top; ../ARCHITECTURE "rulesets are data").

A :class:`Ruleset` is a frozen value holding everything that differs between
the four systems: seat count, deal shape, bidding rounds, play restrictions,
declaration rules, the contract and tie rule, rounding and target.  The engine
reads these fields; it never branches on a ruleset's *name*.  The four values
are in :data:`RULESETS`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum



class TrumpMode(str, Enum):
    """What is trump in a deal (RULES.md §1)."""

    SUIT = "suit"
    ALL_TRUMPS = "all-trumps"
    NO_TRUMPS = "no-trumps"


class TieRule(str, Enum):
    """What an exact tie of the contract totals means (RULES.md §6.2)."""

    MADE = "made"
    DEDANS = "dedans"
    LITIGE = "litige"


class Scoring(str, Enum):
    """Which scoring stage ends a deal: team contract (§6.2) or two-player score sheet (§7)."""

    CONTRACT = "contract"
    SCORE_SHEET = "score-sheet"


# --- §2: order and points, indexed by natural rank 7 8 9 10 J Q K A -----------------
#: Strength within a suit (higher wins) for the trump order J 9 A 10 K Q 8 7.
TRUMP_STRENGTH = (0, 1, 6, 4, 7, 2, 3, 5)
#: Strength within a suit for the plain order A 10 K Q J 9 8 7.
PLAIN_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)
#: Card points (§2 table).
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
ALL_TRUMPS_POINTS = (0, 0, 9, 5, 13, 2, 3, 6)
NO_TRUMPS_POINTS = (0, 0, 0, 10, 2, 3, 4, 19)


@dataclass(frozen=True)
class BiddingRound:
    """The bids one bidding round allows besides *pass* (RULES.md §4, §7)."""

    take_turned: bool = False
    """take with the turned card's suit as trump"""
    take_other_suits: bool = False
    """take naming a suit other than the turned card's"""
    take_any_suit: bool = False
    """take naming any of the four suits (two-player round 2)"""
    all_trumps: bool = False
    no_trumps: bool = False
    schmeiss: bool = False
    """two-player schmeiss, answered by the other player (§7)"""


@dataclass(frozen=True)
class DeclarationRules:
    """Which declarations exist and how they compare (RULES.md §6.1, §7)."""

    carre_points: tuple[int, ...] = (0,) * 8
    """points of a carré by natural rank index 7..A; 0 = not a declaration (§6.1)"""
    sequence_points: tuple[int, ...] = ()
    """points of a run by length (index = length; lengths past the end use the last value)"""
    max_run: int | None = 5
    """runs longer than this are split: top ``max_run`` cards, rest a further run (§6.1)"""
    tie_by_playing_order: bool = True
    """equal best sequences: the declarer first from eldest wins (else nobody scores)"""
    during_first_trick: bool = True
    """declare when playing the first card (4 players) or else right after the bidding, taker first (§7)"""
    public_kind: bool = True
    """each declaration's kind is public at once and the winner's cards after trick 1 (§6.1);
    else only each player's best length, and the top card when lengths tie (§7)"""

    def sequence_value(self, length: int) -> int:
        pts = self.sequence_points
        return pts[min(length, len(pts) - 1)]


@dataclass(frozen=True)
class Ruleset:
    """One rule system, fully resolved (every option has its value).

    Equality and hashing are by value, so a stored tournament can be compared
    with the value it is replayed under.  Use :func:`get_ruleset` to obtain one.
    """

    name: str
    seats: int
    """number of seats: 4 (teams NS = {0, 2}, EW = {1, 3}) or 2"""
    first_packets: tuple[int, ...]
    """packet sizes of the first deal, each dealt to every seat from eldest (§3.1, §7)"""
    rest_to_taker: int
    """cards each seat gets from the rest of the deck after the bidding: the taker ..."""
    rest_to_others: int
    """... and everyone else (§3.2, §7)"""
    taker_gets_turned: bool
    """the taker receives the turned card (§3.2); else it stays on the table (§7)"""
    tricks: int
    bidding_rounds: tuple[BiddingRound, ...]
    declarations: DeclarationRules | None
    exchange_trump_seven: bool
    """two-player trump-7 exchange (§7)"""
    monter: bool
    """must beat the best card of a trump lead (every suit in all-trumps) when able (§5.1)"""
    must_overtrump: bool
    """void in the led suit: must play a trump higher than the trick's when able (§5.3)"""
    undertrump: bool
    """void, holding only lower trumps: must still play one (pisser) (§5.3)"""
    trump_only_against_opponent: bool
    """the trump obligation applies only when an opponent is master (§5.2–5.3)"""
    capot_bonus: int
    """added to 162 for a capot: 90 (252) or 0 (§6.2, §7)"""
    scoring: Scoring
    contract_counts_bonuses: bool
    """declarations and belote count toward making the contract (strict)"""
    tie: TieRule
    dedans_takes_all_declarations: bool
    """on dedans the defenders also score every declaration of both teams (strict)"""
    rounding: int
    """each team's deal score is rounded to a multiple of this (5 up); 1 = no rounding"""
    target: int
    """game target score (§8)"""
    allowed_targets: tuple[int, ...]
    next_dealer_after_pass: bool
    """a passed-out deal is redealt by the next dealer (all-trumps) or the same one (§3.3)"""
    dix_de_der: int = 10
    contree: bool = False
    """contre / surcontre calls after the bidding, doubling the stakes (§6.4 option ``contree``)"""
    variants: tuple[str, ...] = ()
    """the options of §6.4 this ruleset may set: ``"declarations"`` and/or ``"contree"``"""

    @property
    def deck_dealt(self) -> int:
        """Number of deck cards that end in hands (32 or 18 + the turned card)."""
        return 32 if self.taker_gets_turned else self.seats * (sum(self.first_packets) + self.rest_to_taker)

    def with_options(self, *, target: int | None = None, declarations: bool | None = None,
                     contree: bool | None = None) -> Ruleset:
        """A copy with options set (``None`` leaves an option as it is).

        Args:
            target: the game target score (§8).
            declarations: the §6.4 option ``declarations`` (on = True).
            contree: the §6.4 option ``contree`` (on = True).

        Raises:
            ValueError: a ``target`` this ruleset does not allow (§8), or a §6.4
                option this ruleset does not have (the message lists the ones it has).
        """
        out = self
        if target is not None and target != self.target:
            if target not in self.allowed_targets:
                raise ValueError(
                    f"target {target} is not allowed in {self.name}: choose one of "
                    + ", ".join(map(str, self.allowed_targets))
                )
            out = dataclasses.replace(out, target=target)
        if declarations is not None:
            self._check_variant("declarations", "on" if declarations else "off")
        if declarations is not None and declarations != (out.declarations is not None):
            base = RULESETS[self.name].declarations
            out = dataclasses.replace(out, declarations=base if declarations else None)
        if contree is not None:
            self._check_variant("contree", "on" if contree else "off")
        if contree is not None and contree != out.contree:
            out = dataclasses.replace(out, contree=contree)
        return out

    def _check_variant(self, option: str, value: str) -> None:
        if option not in self.variants:
            has = (" (it has: " + ", ".join(self.variants) + ")") if self.variants else " (it has no §6.4 options)"
            raise ValueError(f"{self.name} cannot set {option}={value}: RULES.md §6.4 allows {option} only in "
                             + ", ".join(r.name for r in RULESETS.values() if option in r.variants) + has)

    def variant_options(self) -> dict[str, str]:
        """The §6.4 options this ruleset has, with their values: e.g.
        ``{"declarations": "on", "contree": "off"}`` for ``classic``; ``{}`` for ``all-trumps``."""
        values = {"declarations": self.declarations is not None, "contree": self.contree}
        return {k: "on" if values[k] else "off" for k in self.variants}

    def options(self) -> dict:
        """Every resolved option as plain JSON-able data (stored with a tournament)."""
        return dataclasses.asdict(self)


_FRENCH_DECLARATIONS = DeclarationRules(
    #            7  8  9    10   J    Q    K    A
    carre_points=(0, 0, 150, 100, 200, 100, 100, 100),
    sequence_points=(0, 0, 0, 20, 50, 100),
    max_run=5,
    tie_by_playing_order=True,
    during_first_trick=True,
    public_kind=True,
)

_FOUR_PLAYER = dict(
    seats=4,
    first_packets=(3, 2),
    rest_to_taker=2,
    rest_to_others=3,
    taker_gets_turned=True,
    tricks=8,
    exchange_trump_seven=False,
    monter=True,
    must_overtrump=True,
    trump_only_against_opponent=True,
    capot_bonus=90,
    scoring=Scoring.CONTRACT,
)

_ROUND_1 = BiddingRound(take_turned=True)
_ROUND_2 = BiddingRound(take_other_suits=True)

CLASSIC = Ruleset(
    name="classic",
    bidding_rounds=(_ROUND_1, _ROUND_2),
    declarations=_FRENCH_DECLARATIONS,
    undertrump=True,
    contract_counts_bonuses=False,
    tie=TieRule.MADE,
    dedans_takes_all_declarations=False,
    rounding=1,
    target=1001,
    allowed_targets=(501, 701, 1001),
    next_dealer_after_pass=False,
    variants=("declarations", "contree"),
    **_FOUR_PLAYER,
)

STRICT = dataclasses.replace(
    CLASSIC,
    name="strict",
    contract_counts_bonuses=True,
    tie=TieRule.DEDANS,
    dedans_takes_all_declarations=True,
    rounding=10,
    target=1000,
    allowed_targets=(1000,),
)

ALL_TRUMPS = dataclasses.replace(
    CLASSIC,
    name="all-trumps",
    bidding_rounds=(_ROUND_1, _ROUND_2, BiddingRound(all_trumps=True, no_trumps=True)),
    declarations=None,
    variants=(),
    undertrump=False,
    tie=TieRule.LITIGE,
    target=1000,
    allowed_targets=(1000,),
    next_dealer_after_pass=True,
)

TWO_PLAYER = Ruleset(
    name="two-player",
    seats=2,
    first_packets=(3, 3),
    rest_to_taker=3,
    rest_to_others=3,
    taker_gets_turned=False,
    tricks=9,
    bidding_rounds=(BiddingRound(take_turned=True, schmeiss=True), BiddingRound(take_any_suit=True, schmeiss=True)),
    declarations=DeclarationRules(
        sequence_points=(0, 0, 0, 20, 50),
        max_run=None,
        tie_by_playing_order=False,
        during_first_trick=False,
        public_kind=False,
    ),
    exchange_trump_seven=True,
    monter=False,
    must_overtrump=False,
    undertrump=True,
    trump_only_against_opponent=False,
    capot_bonus=0,
    scoring=Scoring.SCORE_SHEET,
    contract_counts_bonuses=True,
    tie=TieRule.DEDANS,
    dedans_takes_all_declarations=False,
    rounding=1,
    target=500,
    allowed_targets=(500,),
    next_dealer_after_pass=True,
    variants=("declarations",),
)

#: The four rule systems of RULES.md, by name.
RULESETS: dict[str, Ruleset] = {r.name: r for r in (CLASSIC, STRICT, ALL_TRUMPS, TWO_PLAYER)}


#: The options of RULES.md §6.4, each "on" or "off", with the text a user gives.
VARIANT_OPTIONS = ("declarations", "contree")
_ON_OFF = {"on": True, "off": False}


def parse_option(text: str) -> tuple[str, bool]:
    """Read one ``NAME=on|off`` option of RULES.md §6.4 (e.g. ``"contree=on"``).

    Raises:
        ValueError: not of that form, or an unknown option name (the message lists the known ones).
    """
    name, sep, value = text.partition("=")
    name, value = name.strip().lower(), value.strip().lower()
    if not sep or name not in VARIANT_OPTIONS or value not in _ON_OFF:
        raise ValueError(f"option {text!r} is not NAME=on or NAME=off with NAME one of "
                         + ", ".join(VARIANT_OPTIONS) + " (RULES.md §6.4), e.g. contree=on")
    return name, _ON_OFF[value]


def get_ruleset(name: str, *, target: int | None = None, declarations: bool | None = None,
                contree: bool | None = None) -> Ruleset:
    """The ruleset called ``name`` with its options resolved (see :meth:`Ruleset.with_options`).

    Raises:
        ValueError: unknown name (the message lists the known ones) or a bad option.
    """
    try:
        base = RULESETS[name]
    except KeyError:
        raise ValueError(f"unknown ruleset {name!r}: choose one of {', '.join(RULESETS)}") from None
    return base.with_options(target=target, declarations=declarations, contree=contree)
