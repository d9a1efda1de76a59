"""Building deal positions from intended hands, for the rule tests.

The deck is laid out here from RULES.md §3 / §7 independently of the engine
(so the dealing tests double as a check of this layout), then the bids and
cards are applied through ``apply_checked``: a row whose earlier cards were
not legal fails loudly instead of testing the wrong position.
"""

from __future__ import annotations

from referee.rules import (
    Bid, BidKind, Card, DealState, Declare, Exchange, Phase, Play, Suit, get_ruleset,
)
from referee.rules.cards import CARD_TEXT

ALL = [r + s for s in "SHDC" for r in ("7", "8", "9", "10", "J", "Q", "K", "A")]


def cards(text: str) -> list[str]:
    out = text.split()
    assert all(c in ALL for c in out), text
    return out


def layout_four(dealer: int, hands: dict[int, list[str]], turned: str, taker: int | None) -> list[str]:
    """Deck order giving each seat ``hands[seat]`` (the taker's without the turned card;
    first 5 listed = first deal) by §3: 3 each from eldest, 2 each, card 20 turned,
    then the rest from eldest, taker 2, others 3."""
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    deck: list[str] = []
    for lo, hi in ((0, 3), (3, 5)):
        for s in order:
            deck += hands[s][lo:hi]
    deck.append(turned)
    for s in order:
        deck += hands[s][5:]
    deck += [c for c in ALL if c not in deck]
    assert len(deck) == 32 and len(set(deck)) == 32, deck
    return deck


def layout_two(dealer: int, hands: dict[int, list[str]], turned: str) -> list[str]:
    """Deck order by §7: packets of 3, eldest first, 6 each; card 12 turned; 3 each from the stock."""
    order = [1 - dealer, dealer]
    deck: list[str] = []
    for lo, hi in ((0, 3), (3, 6)):
        for s in order:
            deck += hands[s][lo:hi]
    deck.append(turned)
    for s in order:
        deck += hands[s][6:9]
    deck += [c for c in ALL if c not in deck]
    assert len(deck) == 32 and len(set(deck)) == 32, deck
    return deck


def to_deck(texts) -> list[Card]:
    return [Card.parse(t) for t in texts]


def play_cards(state: DealState, plays, declare: dict | None = None, *, settle: bool = True) -> DealState:
    """Play ``plays`` (card texts, ``"KH*"`` = with belote) for whoever is to act; a pending
    declaration choice is made from ``declare`` (seat -> Declare) or else nothing."""
    declare = declare or {}
    for text in plays:
        _settle(state, declare)
        belote = text.endswith("*")
        state.apply_checked(state.to_act, Play(Card.parse(text.rstrip("*")), belote))
    if settle:
        _settle(state, declare)
    return state


def _settle(state: DealState, declare: dict) -> None:
    while state.phase is Phase.DECLARATION and state.ruleset.seats == 4:
        state.apply_checked(state.to_act, declare.get(state.to_act, Declare(())))


def four(ruleset: str, hands: dict, *, trump: str, taker: int = 0, dealer: int = 3, plays=(),
         declare: dict | None = None, settle: bool = True, pot: int = 0) -> DealState:
    """A four-player deal where ``taker`` took ``trump`` (a suit letter, ``"all-trumps"`` or
    ``"no-trumps"``), then ``plays`` were played. ``hands``: seat -> 8 card texts (the taker's
    including the card that will be turned); seats left out or ``None`` share the remaining cards
    (in natural order, 8 each, lowest seat first)."""
    hs = {s: (cards(h) if h is not None else None) for s, h in hands.items()}
    for s in range(4):
        hs.setdefault(s, None)
    rest = [c for c in ALL if not any(c in h for h in hs.values() if h is not None)]
    for s in sorted(hs):
        if hs[s] is None:
            hs[s], rest = rest[:8], rest[8:]
    assert all(len(h) == 8 for h in hs.values()), {s: len(h) for s, h in hs.items()}
    taker_hand = hs[taker]
    if trump in ("all-trumps", "no-trumps"):
        turned, rnd = taker_hand[-1], 3
    else:
        trumps = [c for c in taker_hand if c.endswith(trump)]
        turned, rnd = (trumps[-1], 1) if trumps else (taker_hand[-1], 2)
    hs[taker] = [c for c in taker_hand if c != turned]
    deck = to_deck(layout_four(dealer, hs, turned, taker))
    state = DealState(get_ruleset(ruleset), deck, dealer, pot=pot)
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    for _ in range(4 * (rnd - 1)):
        state.apply_checked(state.to_act, Bid(BidKind.PASS))
    for s in order:
        if s == taker:
            break
        state.apply_checked(s, Bid(BidKind.PASS))
    if rnd == 1:
        bid = Bid(BidKind.TAKE)
    elif rnd == 2:
        bid = Bid(BidKind.TAKE, Suit.parse(trump))
    else:
        bid = Bid(BidKind(trump))
    state.apply_checked(taker, bid)
    return play_cards(state, plays, declare, settle=settle)


def two(hands: dict, *, turned: str, trump: str, taker: int, dealer: int = 1, plays=(),
        declare: dict | None = None, exchange: bool = False, stop_at_declaration: int | None = None) -> DealState:
    """A two-player deal: ``hands`` seat -> 9 card texts, ``turned`` stays on the table; ``taker``
    takes ``trump`` in round 1 (the turned suit) or round 2 (another suit). Declarations are made
    from ``declare`` (seat -> Declare, else nothing; stop before ``stop_at_declaration``'s choice);
    the 7 of trump is exchanged if ``exchange``."""
    hs = {s: cards(h) for s, h in hands.items()}
    deck = to_deck(layout_two(dealer, hs, turned))
    state = DealState(get_ruleset("two-player"), deck, dealer)
    eldest = 1 - dealer
    if trump == turned[-1]:
        if taker != eldest:
            state.apply_checked(eldest, Bid(BidKind.PASS))
        state.apply_checked(taker, Bid(BidKind.TAKE))
    else:
        state.apply_checked(eldest, Bid(BidKind.PASS))
        state.apply_checked(dealer, Bid(BidKind.PASS))
        if taker != eldest:
            state.apply_checked(eldest, Bid(BidKind.PASS))
        state.apply_checked(taker, Bid(BidKind.TAKE, Suit.parse(trump)))
    declare = declare or {}
    while state.phase is Phase.DECLARATION:
        if state.to_act == stop_at_declaration:
            return state
        state.apply_checked(state.to_act, declare.get(state.to_act, Declare(())))
    if state.phase is Phase.EXCHANGE:
        state.apply_checked(state.to_act, Exchange(exchange))
    for text in plays:
        belote = text.endswith("*")
        state.apply_checked(state.to_act, Play(Card.parse(text.rstrip("*")), belote))
    return state


def legal_cards(state: DealState) -> set[str]:
    """The card texts of the legal plays now."""
    return {CARD_TEXT[a.card] for a in state.legal_actions() if isinstance(a, Play)}


def hand_text(state: DealState, seat: int) -> set[str]:
    return {CARD_TEXT[c] for c in state.hand(seat)}
