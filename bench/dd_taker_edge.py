"""How much double dummy favours the attackers: each contract of a tournament's file solved double
dummy with the four hands it was played with (``sample_bots/expert/auction.py``'s search and
scoring; declarations and belote as played out by every hand), against what the table scored.

Prints per taking bot and for all: the attackers' score margin in play minus double dummy, and
their trick points double dummy minus in play (``tp:``), with 95% intervals; made shares.
Undoubled contracts of the matches whose id contains ``FILTER`` (SQL LIKE, e.g. ``%new%old%``).

Run: ``python bench/dd_taker_edge.py DB RULESET [FILTER]`` (4-player rulesets).
"""
import json
import math
import statistics as st
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import duckdb
from belote_arena_sdk import pb
from referee.rules import parse_record, replay, get_ruleset
from sample_bots.expert.pimc import Pimc
from sample_bots.expert.knowledge import _DEFAULT_RULES
from sample_bots.expert import auction as A
db = sys.argv[1]; ruleset = sys.argv[2] if len(sys.argv) > 2 else "classic"
flt = sys.argv[3] if len(sys.argv) > 3 else "%"
con = duckdb.connect(db, read_only=True)
rows = con.execute("SELECT d.ns_entrant, d.ew_entrant, d.taker, d.score_ns, d.score_ew, d.record FROM deals d "
                   "WHERE d.taker IS NOT NULL AND d.match_id LIKE ?", [flt]).fetchall()
p = Pimc(); a = A.Auction(p)
by = {}
for ns_e, ew_e, taker, sns, sew, rec in rows:
    rec = parse_record(json.loads(rec))
    state = replay(rec)
    if state.multiplier != 1: continue
    hands = [0]*4
    for seat, card, *_ in state.plays: hands[seat] |= 1 << int(card)
    mode = {"suit": pb.TRUMP_MODE_SUIT, "all-trumps": pb.TRUMP_MODE_ALL_TRUMPS, "no-trumps": pb.TRUMP_MODE_NO_TRUMPS}[state.trump_mode.value]
    suit = int(state.trump) + 1 if state.trump is not None else 0
    s = A.Setup(ruleset=ruleset, seats=4, rules=_DEFAULT_RULES[ruleset], seat=taker, team=taker % 2, eldest=state.eldest,
                turned=int(state.turned), declarations=True, pot=0, threshold=0)
    c = (mode, suit, taker)
    ns = a.solve(s, c, hands, 10**12)
    decl, declared = A.declarations_of(hands, c, s); bel = A.belote_points(hands, c, s)
    sc = A.deal_scores(s, c, ns, decl, declared, bel)
    dd_m = sc[s.team] - sc[1 - s.team]
    act = (sns - sew) if taker % 2 == 0 else (sew - sns)
    name = (ns_e if taker % 2 == 0 else ew_e).split("@")[0]
    by.setdefault(name, []).append(act - dd_m)
    by.setdefault("all", []).append(act - dd_m)
    dd_ns = min(max(ns, 0), 162)
    dd_att = dd_ns if taker % 2 == 0 else 162 - dd_ns
    act_att = state.trick_points[taker % 2]
    by.setdefault("tp:" + name, []).append(dd_att - act_att)
    by.setdefault("tp:all", []).append(dd_att - act_att)
    made_dd = sc[s.team] > 0
    by.setdefault("made_dd:" + name, []).append(int(made_dd))
    by.setdefault("made_act:" + name, []).append(int(act > 0))
for k, v in by.items():
    n = len(v); mu = st.fmean(v); se = st.stdev(v)/math.sqrt(n)
    print(k, n, round(mu, 1), [round(mu-1.96*se, 1), round(mu+1.96*se, 1)])
