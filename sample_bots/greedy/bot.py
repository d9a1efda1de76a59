"""The greedy sample bot: simple, deterministic, never announces.

- Bidding (RULES.md §4, §7): takes a suit it may take when it holds the jack or
  the nine of that suit and at least three cards of it counting the turned card
  it would receive (the jack first, then the longer suit); otherwise
  passes. Never bids all-trumps, no-trumps or schmeiss unless nothing else is legal.
- Schmeiss answer: refuse. Naming a trump: the suit with most cards.
- Declarations: none. Exchange: never. Belote: never announced. Contrée
  calls (RULES.md §6.4): always pass.
- Play: its highest-ranked legal card: the highest in its own suit's order of
  the trump mode (RULES.md §2), then by points (a trump is not preferred for
  being a trump).

Run: ``python bot.py --listen /tmp/greedy/bot.sock``.
"""

from __future__ import annotations

from belote_arena_sdk import Bot, Trump, kind_of, legal_cards, pb, play_of, serve


#: trumps (the turned card included when taking it) needed besides the jack or nine
MIN_TRUMPS = 3


def _bid(request: pb.DecideRequest) -> pb.Action:
    hand = request.observation.hand_cards
    best: tuple[int, int] | None = None
    chosen: pb.Action | None = None
    for action in request.legal_actions:
        if kind_of(action) != "bid" or action.bid.kind != pb.BID_KIND_TAKE:
            continue
        ranks = {c.rank for c in hand if c.suit == action.bid.suit}
        if pb.RANK_JACK not in ranks and pb.RANK_NINE not in ranks:
            continue
        length = len(ranks) + (request.observation.turned_card.suit == action.bid.suit)
        if length < MIN_TRUMPS:
            continue
        key = (pb.RANK_JACK in ranks, length)
        if best is None or key > best:
            best, chosen = key, action
    if chosen is not None:
        return chosen
    return _pick(request, lambda a: a.bid.kind == pb.BID_KIND_PASS)


def _name_trump(request: pb.DecideRequest) -> pb.Action:
    hand = request.observation.hand_cards
    return max(
        request.legal_actions,
        key=lambda a: sum(1 for c in hand if c.suit == a.name_trump.suit),
    )


def _pick(request: pb.DecideRequest, wanted) -> pb.Action:
    """The first legal action satisfying ``wanted``, else the first legal action."""
    return next((a for a in request.legal_actions if wanted(a)), request.legal_actions[0])


def play_key(trump: Trump, c: pb.Card) -> tuple[int, int]:
    """Greedy card order: the card's rank within its own suit's order (RULES.md §2),
    then its points; a trump is not preferred for being a trump."""
    return (trump.strength(c), trump.points(c))


class GreedyBot(Bot):
    """Takes on the jack or nine of trump and always plays its highest legal card."""

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        """One of ``request.legal_actions`` by the rules of the module docstring."""
        phase = request.observation.phase
        if phase == pb.PHASE_BIDDING:
            return _bid(request)
        if phase == pb.PHASE_SCHMEISS_ANSWER:
            return _pick(request, lambda a: a.schmeiss_answer.kind == pb.SCHMEISS_ANSWER_KIND_REFUSE)
        if phase == pb.PHASE_NAME_TRUMP:
            return _name_trump(request)
        if phase == pb.PHASE_DECLARATION:
            return _pick(request, lambda a: not a.declaration.declarations)
        if phase == pb.PHASE_EXCHANGE:
            return _pick(request, lambda a: not a.exchange.exchange)
        if phase == pb.PHASE_CONTREE:
            return _pick(request, lambda a: a.call.kind == pb.CONTREE_CALL_KIND_PASS)
        if phase == pb.PHASE_PLAY:
            trump = Trump.of(request.observation)
            best = max(legal_cards(request.legal_actions), key=lambda c: play_key(trump, c))
            return play_of(request.legal_actions, best, belote=False)
        return request.legal_actions[0]


if __name__ == "__main__":
    raise SystemExit(serve(GreedyBot()))
