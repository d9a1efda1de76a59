"""Actions for bot authors: a text form, a parser, and picking among legal actions.

A bot answers with one of ``request.legal_actions`` unchanged (the referee
compares field by field). These helpers read and find those actions. The text
form (:func:`action_str` / :func:`parse_action`) is for logs and tests:

==================  ==============================================================
text                action
==================  ==============================================================
``pass``            ``Bid{PASS}``
``take H``          ``Bid{TAKE, suit=HEARTS}`` (round 1: the turned suit)
``all-trumps``      ``Bid{ALL_TRUMPS}`` (round 3 of "all-trumps")
``no-trumps``       ``Bid{NO_TRUMPS}``
``schmeiss``        ``Bid{SCHMEISS}`` (two-player)
``accept``          ``SchmeissAnswer{ACCEPT}``; ``refuse``: ``SchmeissAnswer{REFUSE}``
``name H``          ``NameTrump{HEARTS}``
``declare``         ``DeclarationChoice{}`` (declare nothing)
``declare 8S 9S 10S, JS JH JD JC``  two declarations, kinds from their cards
``play JH``         ``PlayCard{JH}``; ``play KH belote`` announces belote
``exchange``        ``ExchangeChoice{true}``; ``no-exchange``: ``ExchangeChoice{false}``
``contre``          ``ContreeCall{CONTRE}`` (RULES.md §6.4); ``surcontre``: ``ContreeCall{SURCONTRE}``
``call pass``       ``ContreeCall{PASS}``: no contre / no surcontre
==================  ==============================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from belote_arena_sdk.proto import bot_pb2 as pb

from .cards import card, card_key, card_str, cards_str, suit_str

_SUIT_BY_LETTER = {"S": pb.SUIT_SPADES, "H": pb.SUIT_HEARTS, "D": pb.SUIT_DIAMONDS, "C": pb.SUIT_CLUBS}
_BID_TEXT = {
    pb.BID_KIND_PASS: "pass",
    pb.BID_KIND_TAKE: "take",
    pb.BID_KIND_ALL_TRUMPS: "all-trumps",
    pb.BID_KIND_NO_TRUMPS: "no-trumps",
    pb.BID_KIND_SCHMEISS: "schmeiss",
}
_BID_BY_TEXT = {t: k for k, t in _BID_TEXT.items()}
_CALL_TEXT = {
    pb.CONTREE_CALL_KIND_PASS: "call pass",
    pb.CONTREE_CALL_KIND_CONTRE: "contre",
    pb.CONTREE_CALL_KIND_SURCONTRE: "surcontre",
}
_CALL_BY_TEXT = {t: k for k, t in _CALL_TEXT.items()}
_SEQUENCE_KINDS = {3: pb.DECLARATION_KIND_TIERCE, 4: pb.DECLARATION_KIND_QUARTE, 5: pb.DECLARATION_KIND_QUINTE}


def kind_of(action: pb.Action) -> str | None:
    """Which decision ``action`` holds: ``"bid"``, ``"schmeiss_answer"``, ``"name_trump"``,
    ``"declaration"``, ``"play"``, ``"exchange"``, ``"call"`` (a contrée call, RULES.md §6.4);
    ``None`` when empty."""
    return action.WhichOneof("kind")


def action_str(action: pb.Action) -> str:
    """The text form of an action (see the module table); ``"(empty)"`` for an empty one."""
    kind = kind_of(action)
    if kind == "bid":
        text = _BID_TEXT.get(action.bid.kind, "?bid")
        return f"{text} {suit_str(action.bid.suit)}" if action.bid.suit else text
    if kind == "schmeiss_answer":
        return {pb.SCHMEISS_ANSWER_KIND_ACCEPT: "accept", pb.SCHMEISS_ANSWER_KIND_REFUSE: "refuse"}.get(
            action.schmeiss_answer.kind, "?answer"
        )
    if kind == "name_trump":
        return f"name {suit_str(action.name_trump.suit)}"
    if kind == "declaration":
        parts = ", ".join(cards_str(d.cards) for d in action.declaration.declarations)
        return f"declare {parts}" if parts else "declare"
    if kind == "play":
        return f"play {card_str(action.play.card)}" + (" belote" if action.play.belote else "")
    if kind == "exchange":
        return "exchange" if action.exchange.exchange else "no-exchange"
    if kind == "call":
        return _CALL_TEXT.get(action.call.kind, "?call")
    return "(empty)"


def declaration(cs: Sequence[pb.Card]) -> pb.Declaration:
    """A declaration of the cards ``cs``, kind and length from the cards: four of
    one rank = carré; 3, 4, 5 in sequence = tierce, quarte, quinte; 6 or more =
    two-player sequence (RULES.md §6.1, §7). The cards are not checked to form a run."""
    n = len(cs)
    if n == 4 and len({c.rank for c in cs}) == 1:
        kind = pb.DECLARATION_KIND_CARRE
    else:
        kind = _SEQUENCE_KINDS.get(n, pb.DECLARATION_KIND_SEQUENCE)
    return pb.Declaration(kind=kind, length=n, cards=list(cs))


_CARRE_POINTS = {pb.RANK_JACK: 200, pb.RANK_NINE: 150, pb.RANK_ACE: 100, pb.RANK_TEN: 100, pb.RANK_KING: 100, pb.RANK_QUEEN: 100}
_SEQUENCE_POINTS_4 = {3: 20, 4: 50, 5: 100}


def declaration_points(d: pb.Declaration, seat_count: int) -> int:
    """Points of one declaration if it scores: four players (RULES.md §6.1) carré of
    jacks 200, nines 150, aces/tens/kings/queens 100, quinte 100, quarte 50,
    tierce 20; two players (§7) a sequence of 3 is 20, of 4 or more 50. 0 for
    anything else (a carré of 8s or 7s is no declaration)."""
    if d.kind == pb.DECLARATION_KIND_CARRE:
        return _CARRE_POINTS.get(d.cards[0].rank, 0) if d.cards else 0
    n = d.length or len(d.cards)
    if seat_count == 2:
        return 20 if n == 3 else 50 if n >= 4 else 0
    return _SEQUENCE_POINTS_4.get(n, 0)


def parse_action(text: str) -> pb.Action:
    """Parse the text form of an action (see the module table); case-insensitive.

    Raises:
        ValueError: when ``text`` is no action (the message says what was expected).
    """
    words = text.replace(",", " , ").split()
    if not words:
        raise ValueError("empty action text")
    head, rest = words[0].lower(), words[1:]

    def suit_arg() -> int:
        if len(rest) != 1 or rest[0].upper() not in _SUIT_BY_LETTER:
            raise ValueError(f"{text!r}: expected {head} then one suit letter S, H, D or C")
        return _SUIT_BY_LETTER[rest[0].upper()]

    if head in _BID_BY_TEXT:
        if head == "take":
            return pb.Action(bid=pb.Bid(kind=pb.BID_KIND_TAKE, suit=suit_arg()))
        if rest:
            raise ValueError(f"{text!r}: {head} takes no argument")
        return pb.Action(bid=pb.Bid(kind=_BID_BY_TEXT[head]))
    if head in ("accept", "refuse") and not rest:
        kind = pb.SCHMEISS_ANSWER_KIND_ACCEPT if head == "accept" else pb.SCHMEISS_ANSWER_KIND_REFUSE
        return pb.Action(schmeiss_answer=pb.SchmeissAnswer(kind=kind))
    if head == "name":
        return pb.Action(name_trump=pb.NameTrump(suit=suit_arg()))
    if head == "declare":
        groups: list[list[pb.Card]] = [[]]
        for w in rest:
            if w == ",":
                groups.append([])
            else:
                groups[-1].append(card(w))
        decls = [declaration(g) for g in groups if g]
        return pb.Action(declaration=pb.DeclarationChoice(declarations=decls))
    if head == "play" and len(rest) in (1, 2):
        belote = len(rest) == 2
        if belote and rest[1].lower() != "belote":
            raise ValueError(f"{text!r}: expected 'play CARD' or 'play CARD belote'")
        return pb.Action(play=pb.PlayCard(card=card(rest[0]), belote=belote))
    if head in ("exchange", "no-exchange") and not rest:
        return pb.Action(exchange=pb.ExchangeChoice(exchange=head == "exchange"))
    call = " ".join(w.lower() for w in words)
    if call in _CALL_BY_TEXT:
        return pb.Action(call=pb.ContreeCall(kind=_CALL_BY_TEXT[call]))
    raise ValueError(
        f"not an action: {text!r} (expected pass, take S, all-trumps, no-trumps, schmeiss, accept, "
        "refuse, name S, declare [CARDS[, CARDS…]], play CARD [belote], exchange, no-exchange, "
        "contre, surcontre or call pass)"
    )


def find(legal: Iterable[pb.Action], text: str) -> pb.Action | None:
    """The legal action whose text form is ``text`` (see :func:`parse_action`), or ``None``.

    Raises:
        ValueError: when ``text`` is no action at all.
    """
    wanted = parse_action(text)
    return next((a for a in legal if a == wanted), None)


def call_of(legal: Iterable[pb.Action], kind: int) -> pb.Action | None:
    """The legal contrée call of ``kind`` (``pb.CONTREE_CALL_KIND_PASS``, ``_CONTRE``,
    ``_SURCONTRE``; RULES.md §6.4), or ``None`` when it is not legal now."""
    return next((a for a in legal if kind_of(a) == "call" and a.call.kind == kind), None)


def legal_cards(legal: Iterable[pb.Action]) -> list[pb.Card]:
    """The distinct cards of the legal ``play`` actions, in their listed order."""
    seen: set[tuple[int, int]] = set()
    out: list[pb.Card] = []
    for a in legal:
        if kind_of(a) == "play" and card_key(a.play.card) not in seen:
            seen.add(card_key(a.play.card))
            out.append(a.play.card)
    return out


def play_of(legal: Iterable[pb.Action], c: pb.Card, belote: bool = False) -> pb.Action:
    """The legal action playing ``c``: the one announcing belote as asked when
    both exist, else the only one.

    Raises:
        ValueError: when ``c`` is not a legal card now.
    """
    matches = [a for a in legal if kind_of(a) == "play" and a.play.card == c]
    if not matches:
        raise ValueError(f"{card_str(c)} is not a legal card now")
    return next((a for a in matches if a.play.belote == belote), matches[0])
