"""Scoring a finished deal (RULES.md §6.2, §6.3, a doubled deal of §6.4 and the two-player score sheet of §7).

Every figure is in points.  Teams: index 0 = NS, 1 = EW (two players: the seat).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .ruleset import Scoring, TieRule


@dataclass(frozen=True)
class DealOutcome:
    """The scored result of one deal.

    Attributes:
        contract: ``"made"``, ``"dedans"``, ``"litige"``, ``"passed"`` or (two players) ``"tie"``.
        score: points scored this deal, per team (``[NS, EW]`` or ``[seat 0, seat 1]``),
            rounded as the ruleset says, litige pot included when won.
        trick_points: card points + dix de der won, per team (before the capot rule).
        declarations: declaration points *declared*, per team (scored or not).
        declaration_team: the team whose declarations scored, or ``None``.
        belote: belote-rebelote points announced, per team.
        capot: the team that won every trick, or ``None``.
        pot_in: the litige pot carried into the deal; ``pot_to``: the team that won it, if any.
        pot: the litige pot carried out of the deal (§6.3).
        redeal_same_dealer: True when the deal is to be redealt by the same dealer (§3.3, §7).
        multiplier: 1, or 2 after a contre and 4 after a surcontre (§6.4 option ``contree``).
    """

    contract: str
    score: tuple[int, ...]
    taker: int | None = None
    trump_mode: str | None = None
    trump: str | None = None
    trick_points: tuple[int, ...] = (0, 0)
    tricks_won: tuple[int, ...] = (0, 0)
    declarations: tuple[int, ...] = (0, 0)
    declaration_team: int | None = None
    belote: tuple[int, ...] = (0, 0)
    capot: int | None = None
    pot_in: int = 0
    pot_to: int | None = None
    pot: int = 0
    redeal_same_dealer: bool = False
    multiplier: int = 1
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict:
        return {
            "contract": self.contract,
            "score": list(self.score),
            "taker": self.taker,
            "trump_mode": self.trump_mode,
            "trump": self.trump,
            "trick_points": list(self.trick_points),
            "tricks_won": list(self.tricks_won),
            "declarations": list(self.declarations),
            "declaration_team": self.declaration_team,
            "belote": list(self.belote),
            "capot": self.capot,
            "pot_in": self.pot_in,
            "pot_to": self.pot_to,
            "pot": self.pot,
            **({"multiplier": self.multiplier} if self.multiplier != 1 else {}),
        }


def _round(x: int, step: int) -> int:
    """Round to the nearest multiple of ``step``, halves up (§6.2 Rounding)."""
    return x if step == 1 else (x + step // 2) // step * step


def passed_outcome(state, *, schmeiss_accepted: bool) -> DealOutcome:
    """A passed-out deal (§3.3) or an accepted schmeiss (§7): 0–0, the pot stays."""
    rules = state.ruleset
    same = schmeiss_accepted or not rules.next_dealer_after_pass
    return DealOutcome(
        contract="passed", score=(0, 0), pot_in=state.pot, pot=state.pot, redeal_same_dealer=same,
        notes=("schmeiss accepted",) if schmeiss_accepted else ("passed out",),
    )


def score_deal(state) -> DealOutcome:
    """Score a deal whose last trick has been played (§6.2–6.3 or §7 score sheet)."""
    rules = state.ruleset
    taker = state.taker
    att = state.team_of(taker)
    dfd = 1 - att
    decl_rules = rules.declarations
    declared = [0, 0]
    if decl_rules is not None:
        for seat, decls in enumerate(state.declared):
            for d in decls or ():
                declared[state.team_of(seat)] += d.points(decl_rules)
    win_team = state.declaration_team
    decl = [declared[t] if t == win_team else 0 for t in (0, 1)]
    belote = [0, 0]
    for seat, _ in state.belotes:
        belote[state.team_of(seat)] += 20
    raw_tp = list(state.trick_points)
    capot = None
    tp = list(raw_tp)
    for t in (0, 1):
        if state.tricks_won[t] == rules.tricks:
            capot = t
    if capot is not None and rules.capot_bonus:
        tp = [0, 0]
        tp[capot] = 152 + rules.dix_de_der + rules.capot_bonus
    common = dict(
        taker=taker,
        trump_mode=state.trump_mode.value,
        trump=str(state.trump) if state.trump is not None else None,
        trick_points=tuple(raw_tp),
        tricks_won=tuple(state.tricks_won),
        declarations=tuple(declared),
        declaration_team=win_team,
        belote=tuple(belote),
        capot=capot,
        pot_in=state.pot,
    )
    if rules.scoring is Scoring.SCORE_SHEET:
        return _score_sheet(state, att, tp, decl, belote, common)

    if rules.contract_counts_bonuses:
        a_total, d_total = tp[att] + decl[att] + belote[att], tp[dfd] + decl[dfd] + belote[dfd]
    else:
        a_total, d_total = tp[att], tp[dfd]
    if capot == dfd:
        contract = "dedans"  # §6.2: capot by the defenders is dedans even if strict bonuses outweigh 252
    elif a_total > d_total:
        contract = "made"
    elif a_total < d_total:
        contract = "dedans"
    else:
        contract = rules.tie.value
    score = [0, 0]
    pot_to, pot_out = None, 0
    m = state.multiplier
    if m != 1 and contract in ("made", "dedans"):
        # §6.4: the winner of the made/dedans decision scores 162 (252 if it took every trick)
        # times the multiplier, the other team 0 trick points; declarations and belote as undoubled
        win = att if contract == "made" else dfd
        lose = 1 - win
        score[win] = (152 + rules.dix_de_der + (rules.capot_bonus if capot == win else 0)) * m
        if contract == "dedans" and rules.dedans_takes_all_declarations:
            score[dfd] += sum(declared) + belote[dfd]
            score[att] = belote[att]
        else:
            score[win] += decl[win] + belote[win]
            score[lose] = decl[lose] + belote[lose]
        pot_to = win
    elif contract == "made":
        for t in (0, 1):
            score[t] = tp[t] + decl[t] + belote[t]
        pot_to = att
    elif contract == "dedans":
        base = tp[dfd] if capot == dfd else 152 + rules.dix_de_der
        if rules.dedans_takes_all_declarations:
            score[dfd] = base + sum(declared) + belote[dfd]
            score[att] = belote[att]
        else:
            score[dfd] = base + decl[dfd] + belote[dfd]
            score[att] = decl[att] + belote[att]
        pot_to = dfd
    else:  # litige (§6.3): defenders score now, the attackers' trick points go to the pot
        assert rules.tie is TieRule.LITIGE
        score[dfd] = tp[dfd] + decl[dfd] + belote[dfd]
        score[att] = belote[att]
        pot_out = state.pot + tp[att]
    if pot_to is not None and state.pot:
        score[pot_to] += state.pot
    else:
        pot_to = None
    score = [_round(x, rules.rounding) for x in score]
    return DealOutcome(contract=contract, score=tuple(score), pot_to=pot_to, pot=pot_out, multiplier=m, **common)


def _score_sheet(state, taker: int, tp, decl, belote, common) -> DealOutcome:
    """Two-player score sheet (§7): taker more → both record; equal → taker 0;
    less → the opponent records both totals."""
    opp = 1 - taker
    total = [tp[p] + decl[p] + belote[p] for p in (0, 1)]
    score = [0, 0]
    if total[taker] > total[opp]:
        contract, score = "made", total
    elif total[taker] == total[opp]:
        contract = "tie"
        score[opp] = total[opp]
    else:
        contract = "dedans"
        score[opp] = total[taker] + total[opp]
    return DealOutcome(contract=contract, score=tuple(score), **common)
