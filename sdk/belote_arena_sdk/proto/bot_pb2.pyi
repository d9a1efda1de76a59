from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]

class Rank(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RANK_UNSPECIFIED: _ClassVar[Rank]
    RANK_SEVEN: _ClassVar[Rank]
    RANK_EIGHT: _ClassVar[Rank]
    RANK_NINE: _ClassVar[Rank]
    RANK_TEN: _ClassVar[Rank]
    RANK_JACK: _ClassVar[Rank]
    RANK_QUEEN: _ClassVar[Rank]
    RANK_KING: _ClassVar[Rank]
    RANK_ACE: _ClassVar[Rank]

class TrumpMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRUMP_MODE_UNSPECIFIED: _ClassVar[TrumpMode]
    TRUMP_MODE_SUIT: _ClassVar[TrumpMode]
    TRUMP_MODE_ALL_TRUMPS: _ClassVar[TrumpMode]
    TRUMP_MODE_NO_TRUMPS: _ClassVar[TrumpMode]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_BIDDING: _ClassVar[Phase]
    PHASE_SCHMEISS_ANSWER: _ClassVar[Phase]
    PHASE_NAME_TRUMP: _ClassVar[Phase]
    PHASE_DECLARATION: _ClassVar[Phase]
    PHASE_EXCHANGE: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_CONTREE: _ClassVar[Phase]

class BidKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BID_KIND_UNSPECIFIED: _ClassVar[BidKind]
    BID_KIND_PASS: _ClassVar[BidKind]
    BID_KIND_TAKE: _ClassVar[BidKind]
    BID_KIND_ALL_TRUMPS: _ClassVar[BidKind]
    BID_KIND_NO_TRUMPS: _ClassVar[BidKind]
    BID_KIND_SCHMEISS: _ClassVar[BidKind]

class SchmeissAnswerKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCHMEISS_ANSWER_KIND_UNSPECIFIED: _ClassVar[SchmeissAnswerKind]
    SCHMEISS_ANSWER_KIND_ACCEPT: _ClassVar[SchmeissAnswerKind]
    SCHMEISS_ANSWER_KIND_REFUSE: _ClassVar[SchmeissAnswerKind]

class DeclarationKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECLARATION_KIND_UNSPECIFIED: _ClassVar[DeclarationKind]
    DECLARATION_KIND_TIERCE: _ClassVar[DeclarationKind]
    DECLARATION_KIND_QUARTE: _ClassVar[DeclarationKind]
    DECLARATION_KIND_QUINTE: _ClassVar[DeclarationKind]
    DECLARATION_KIND_CARRE: _ClassVar[DeclarationKind]
    DECLARATION_KIND_SEQUENCE: _ClassVar[DeclarationKind]

class ContreeCallKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTREE_CALL_KIND_UNSPECIFIED: _ClassVar[ContreeCallKind]
    CONTREE_CALL_KIND_PASS: _ClassVar[ContreeCallKind]
    CONTREE_CALL_KIND_CONTRE: _ClassVar[ContreeCallKind]
    CONTREE_CALL_KIND_SURCONTRE: _ClassVar[ContreeCallKind]
SUIT_UNSPECIFIED: Suit
SUIT_SPADES: Suit
SUIT_HEARTS: Suit
SUIT_DIAMONDS: Suit
SUIT_CLUBS: Suit
RANK_UNSPECIFIED: Rank
RANK_SEVEN: Rank
RANK_EIGHT: Rank
RANK_NINE: Rank
RANK_TEN: Rank
RANK_JACK: Rank
RANK_QUEEN: Rank
RANK_KING: Rank
RANK_ACE: Rank
TRUMP_MODE_UNSPECIFIED: TrumpMode
TRUMP_MODE_SUIT: TrumpMode
TRUMP_MODE_ALL_TRUMPS: TrumpMode
TRUMP_MODE_NO_TRUMPS: TrumpMode
PHASE_UNSPECIFIED: Phase
PHASE_BIDDING: Phase
PHASE_SCHMEISS_ANSWER: Phase
PHASE_NAME_TRUMP: Phase
PHASE_DECLARATION: Phase
PHASE_EXCHANGE: Phase
PHASE_PLAY: Phase
PHASE_CONTREE: Phase
BID_KIND_UNSPECIFIED: BidKind
BID_KIND_PASS: BidKind
BID_KIND_TAKE: BidKind
BID_KIND_ALL_TRUMPS: BidKind
BID_KIND_NO_TRUMPS: BidKind
BID_KIND_SCHMEISS: BidKind
SCHMEISS_ANSWER_KIND_UNSPECIFIED: SchmeissAnswerKind
SCHMEISS_ANSWER_KIND_ACCEPT: SchmeissAnswerKind
SCHMEISS_ANSWER_KIND_REFUSE: SchmeissAnswerKind
DECLARATION_KIND_UNSPECIFIED: DeclarationKind
DECLARATION_KIND_TIERCE: DeclarationKind
DECLARATION_KIND_QUARTE: DeclarationKind
DECLARATION_KIND_QUINTE: DeclarationKind
DECLARATION_KIND_CARRE: DeclarationKind
DECLARATION_KIND_SEQUENCE: DeclarationKind
CONTREE_CALL_KIND_UNSPECIFIED: ContreeCallKind
CONTREE_CALL_KIND_PASS: ContreeCallKind
CONTREE_CALL_KIND_CONTRE: ContreeCallKind
CONTREE_CALL_KIND_SURCONTRE: ContreeCallKind

class Card(_message.Message):
    __slots__ = ("suit", "rank")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    suit: Suit
    rank: Rank
    def __init__(self, suit: _Optional[_Union[Suit, str]] = ..., rank: _Optional[_Union[Rank, str]] = ...) -> None: ...

class Bid(_message.Message):
    __slots__ = ("kind", "suit")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    kind: BidKind
    suit: Suit
    def __init__(self, kind: _Optional[_Union[BidKind, str]] = ..., suit: _Optional[_Union[Suit, str]] = ...) -> None: ...

class SchmeissAnswer(_message.Message):
    __slots__ = ("kind",)
    KIND_FIELD_NUMBER: _ClassVar[int]
    kind: SchmeissAnswerKind
    def __init__(self, kind: _Optional[_Union[SchmeissAnswerKind, str]] = ...) -> None: ...

class NameTrump(_message.Message):
    __slots__ = ("suit",)
    SUIT_FIELD_NUMBER: _ClassVar[int]
    suit: Suit
    def __init__(self, suit: _Optional[_Union[Suit, str]] = ...) -> None: ...

class Declaration(_message.Message):
    __slots__ = ("kind", "length", "cards")
    KIND_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    kind: DeclarationKind
    length: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, kind: _Optional[_Union[DeclarationKind, str]] = ..., length: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class DeclarationChoice(_message.Message):
    __slots__ = ("declarations",)
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    declarations: _containers.RepeatedCompositeFieldContainer[Declaration]
    def __init__(self, declarations: _Optional[_Iterable[_Union[Declaration, _Mapping]]] = ...) -> None: ...

class PlayCard(_message.Message):
    __slots__ = ("card", "belote")
    CARD_FIELD_NUMBER: _ClassVar[int]
    BELOTE_FIELD_NUMBER: _ClassVar[int]
    card: Card
    belote: bool
    def __init__(self, card: _Optional[_Union[Card, _Mapping]] = ..., belote: _Optional[bool] = ...) -> None: ...

class ContreeCall(_message.Message):
    __slots__ = ("kind",)
    KIND_FIELD_NUMBER: _ClassVar[int]
    kind: ContreeCallKind
    def __init__(self, kind: _Optional[_Union[ContreeCallKind, str]] = ...) -> None: ...

class ContreeCallEvent(_message.Message):
    __slots__ = ("seat", "kind")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: ContreeCallKind
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[ContreeCallKind, str]] = ...) -> None: ...

class ExchangeChoice(_message.Message):
    __slots__ = ("exchange",)
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    exchange: bool
    def __init__(self, exchange: _Optional[bool] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("bid", "schmeiss_answer", "name_trump", "declaration", "play", "exchange", "call")
    BID_FIELD_NUMBER: _ClassVar[int]
    SCHMEISS_ANSWER_FIELD_NUMBER: _ClassVar[int]
    NAME_TRUMP_FIELD_NUMBER: _ClassVar[int]
    DECLARATION_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    bid: Bid
    schmeiss_answer: SchmeissAnswer
    name_trump: NameTrump
    declaration: DeclarationChoice
    play: PlayCard
    exchange: ExchangeChoice
    call: ContreeCall
    def __init__(self, bid: _Optional[_Union[Bid, _Mapping]] = ..., schmeiss_answer: _Optional[_Union[SchmeissAnswer, _Mapping]] = ..., name_trump: _Optional[_Union[NameTrump, _Mapping]] = ..., declaration: _Optional[_Union[DeclarationChoice, _Mapping]] = ..., play: _Optional[_Union[PlayCard, _Mapping]] = ..., exchange: _Optional[_Union[ExchangeChoice, _Mapping]] = ..., call: _Optional[_Union[ContreeCall, _Mapping]] = ...) -> None: ...

class RulesetOptions(_message.Message):
    __slots__ = ("seat_count", "trick_count", "target_score", "board_count", "declarations_enabled", "values", "contree")
    class ValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SEAT_COUNT_FIELD_NUMBER: _ClassVar[int]
    TRICK_COUNT_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    BOARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_ENABLED_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    CONTREE_FIELD_NUMBER: _ClassVar[int]
    seat_count: int
    trick_count: int
    target_score: int
    board_count: int
    declarations_enabled: bool
    values: _containers.ScalarMap[str, str]
    contree: bool
    def __init__(self, seat_count: _Optional[int] = ..., trick_count: _Optional[int] = ..., target_score: _Optional[int] = ..., board_count: _Optional[int] = ..., declarations_enabled: _Optional[bool] = ..., values: _Optional[_Mapping[str, str]] = ..., contree: _Optional[bool] = ...) -> None: ...

class BidEvent(_message.Message):
    __slots__ = ("seat", "round", "bid", "schmeiss_answer", "name_trump")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    SCHMEISS_ANSWER_FIELD_NUMBER: _ClassVar[int]
    NAME_TRUMP_FIELD_NUMBER: _ClassVar[int]
    seat: int
    round: int
    bid: Bid
    schmeiss_answer: SchmeissAnswer
    name_trump: NameTrump
    def __init__(self, seat: _Optional[int] = ..., round: _Optional[int] = ..., bid: _Optional[_Union[Bid, _Mapping]] = ..., schmeiss_answer: _Optional[_Union[SchmeissAnswer, _Mapping]] = ..., name_trump: _Optional[_Union[NameTrump, _Mapping]] = ...) -> None: ...

class DeclarationEvent(_message.Message):
    __slots__ = ("seat", "kind", "length", "points", "top_rank", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TOP_RANK_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: DeclarationKind
    length: int
    points: int
    top_rank: Rank
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[DeclarationKind, str]] = ..., length: _Optional[int] = ..., points: _Optional[int] = ..., top_rank: _Optional[_Union[Rank, str]] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class ExchangeEvent(_message.Message):
    __slots__ = ("seat", "trump_seven", "turned_card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SEVEN_FIELD_NUMBER: _ClassVar[int]
    TURNED_CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    trump_seven: Card
    turned_card: Card
    def __init__(self, seat: _Optional[int] = ..., trump_seven: _Optional[_Union[Card, _Mapping]] = ..., turned_card: _Optional[_Union[Card, _Mapping]] = ...) -> None: ...

class PlayedCard(_message.Message):
    __slots__ = ("seat", "card", "belote", "rebelote")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    BELOTE_FIELD_NUMBER: _ClassVar[int]
    REBELOTE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: Card
    belote: bool
    rebelote: bool
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[Card, _Mapping]] = ..., belote: _Optional[bool] = ..., rebelote: _Optional[bool] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "cards", "winner", "points")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedCompositeFieldContainer[PlayedCard]
    winner: int
    points: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[PlayedCard, _Mapping]]] = ..., winner: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("ruleset", "options", "seat", "team", "dealer", "eldest", "phase", "bidding_round", "scores", "litige_pot", "hand_cards", "turned_card", "turned_card_on_table", "bids", "trump_mode", "trump_suit", "taker", "declarations", "exchange", "played_cards", "tricks", "current_trick", "trick_number", "deal_number", "calls", "multiplier")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    ELDEST_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    BIDDING_ROUND_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    LITIGE_POT_FIELD_NUMBER: _ClassVar[int]
    HAND_CARDS_FIELD_NUMBER: _ClassVar[int]
    TURNED_CARD_FIELD_NUMBER: _ClassVar[int]
    TURNED_CARD_ON_TABLE_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_MODE_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    TAKER_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    PLAYED_CARDS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    options: RulesetOptions
    seat: int
    team: int
    dealer: int
    eldest: int
    phase: Phase
    bidding_round: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    litige_pot: int
    hand_cards: _containers.RepeatedCompositeFieldContainer[Card]
    turned_card: Card
    turned_card_on_table: bool
    bids: _containers.RepeatedCompositeFieldContainer[BidEvent]
    trump_mode: TrumpMode
    trump_suit: Suit
    taker: int
    declarations: _containers.RepeatedCompositeFieldContainer[DeclarationEvent]
    exchange: ExchangeEvent
    played_cards: _containers.RepeatedCompositeFieldContainer[PlayedCard]
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    current_trick: Trick
    trick_number: int
    deal_number: int
    calls: _containers.RepeatedCompositeFieldContainer[ContreeCallEvent]
    multiplier: int
    def __init__(self, ruleset: _Optional[str] = ..., options: _Optional[_Union[RulesetOptions, _Mapping]] = ..., seat: _Optional[int] = ..., team: _Optional[int] = ..., dealer: _Optional[int] = ..., eldest: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., bidding_round: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., litige_pot: _Optional[int] = ..., hand_cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., turned_card: _Optional[_Union[Card, _Mapping]] = ..., turned_card_on_table: _Optional[bool] = ..., bids: _Optional[_Iterable[_Union[BidEvent, _Mapping]]] = ..., trump_mode: _Optional[_Union[TrumpMode, str]] = ..., trump_suit: _Optional[_Union[Suit, str]] = ..., taker: _Optional[int] = ..., declarations: _Optional[_Iterable[_Union[DeclarationEvent, _Mapping]]] = ..., exchange: _Optional[_Union[ExchangeEvent, _Mapping]] = ..., played_cards: _Optional[_Iterable[_Union[PlayedCard, _Mapping]]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., current_trick: _Optional[_Union[Trick, _Mapping]] = ..., trick_number: _Optional[int] = ..., deal_number: _Optional[int] = ..., calls: _Optional[_Iterable[_Union[ContreeCallEvent, _Mapping]]] = ..., multiplier: _Optional[int] = ...) -> None: ...

class GetBotInfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetBotInfoResponse(_message.Message):
    __slots__ = ("name", "version", "author", "rulesets", "protocol_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    RULESETS_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    author: str
    rulesets: _containers.RepeatedScalarFieldContainer[str]
    protocol_version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., author: _Optional[str] = ..., rulesets: _Optional[_Iterable[str]] = ..., protocol_version: _Optional[str] = ...) -> None: ...

class StartMatchRequest(_message.Message):
    __slots__ = ("match_id", "ruleset", "options", "seat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    ruleset: str
    options: RulesetOptions
    seat: int
    def __init__(self, match_id: _Optional[str] = ..., ruleset: _Optional[str] = ..., options: _Optional[_Union[RulesetOptions, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...

class StartMatchResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EndMatchRequest(_message.Message):
    __slots__ = ("match_id", "scores")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, match_id: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class EndMatchResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DecideRequest(_message.Message):
    __slots__ = ("observation", "legal_actions", "deadline_ms", "time_bank_ms")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    observation: Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    deadline_ms: int
    time_bank_ms: int
    def __init__(self, observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class DecideResponse(_message.Message):
    __slots__ = ("action",)
    ACTION_FIELD_NUMBER: _ClassVar[int]
    action: Action
    def __init__(self, action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class DecideStreamRequest(_message.Message):
    __slots__ = ("request",)
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    request: DecideRequest
    def __init__(self, request: _Optional[_Union[DecideRequest, _Mapping]] = ...) -> None: ...

class DecideStreamResponse(_message.Message):
    __slots__ = ("response",)
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    response: DecideResponse
    def __init__(self, response: _Optional[_Union[DecideResponse, _Mapping]] = ...) -> None: ...
