"""The rules of Belote (RULES.md), pure Python, standard library only.

Public API: cards (:class:`Card`, :class:`Suit`, :class:`Rank`), rulesets
(:data:`RULESETS`, :func:`get_ruleset`), boards (:func:`make_board`), the deal
state machine (:class:`DealState`), actions, :func:`observe`, deal records
(:func:`parse_record`, :func:`load_record`, :func:`replay`) and games
(:mod:`referee.rules.game`).
"""

from .actions import (
    Action, ActionParseError, Bid, BidKind, Call, CallKind, Declare, Exchange, NameTrump, Play, SchmeissAnswer, action_from_json,
)
from .board import Board, make_board, relabel
from .cards import CARDS, Card, Rank, Suit
from .deal import DealState, IllegalActionError, Phase, Trick
from .declarations import Declaration
from .observation import Observation, PublicDeclaration, observe
from .record import DealRecord, RecordError, load_record, parse_record, record_of, replay
from .ruleset import RULESETS, VARIANT_OPTIONS, Ruleset, TrumpMode, get_ruleset, parse_option
from .scoring import DealOutcome

__all__ = [
    "Action", "ActionParseError", "Bid", "BidKind", "Board", "Call", "CallKind", "CARDS", "Card", "DealOutcome", "DealRecord",
    "DealState", "Declaration", "Declare", "Exchange", "IllegalActionError", "NameTrump", "Observation", "Phase",
    "Play", "PublicDeclaration", "RULESETS", "Rank", "RecordError", "Ruleset", "SchmeissAnswer", "Suit", "Trick",
    "TrumpMode", "VARIANT_OPTIONS", "action_from_json", "parse_option", "get_ruleset", "load_record", "make_board", "observe", "parse_record",
    "record_of", "relabel", "replay",
]
