"""How often the expert's decisions before the play differ from the heuristic bot's, in process.

Random deals of a ruleset, their bidding (and contrée calls, declarations) followed along the
heuristic's choices; at each decision with more than one legal action both bots answer the
same request (the expert with a 1000 ms clock): counts of decisions, of those valued on sampled
deals (``sample_bots/expert/auction.py``), of differences by kind, and the expert's times.

Run: ``python bench/auction_diff.py RULESET DEALS [contree]`` (e.g. ``classic 120``).
"""
import collections
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from belote_arena_sdk import pb, kind_of
from referee import wire
from referee.rules import CARDS, DealState, Phase, get_ruleset, observe
from sample_bots.expert.bot import ExpertBot
from sample_bots.heuristic.bot import HeuristicBot
name = sys.argv[1]; n = int(sys.argv[2]); contree = len(sys.argv) > 3
rs = get_ruleset(name)
if contree: rs = rs.with_options(contree=True)
opts = wire.ruleset_options_pb(rs)
bot = ExpertBot(); bot.loaded.wait(60); h = HeuristicBot()
rng = random.Random(77)
st_ = collections.Counter(); times = []
for d in range(n):
    deck = list(CARDS); rng.shuffle(deck)
    state = DealState(rs, deck, d % rs.seats)
    while not state.is_terminal() and state.phase is not Phase.PLAY:
        legal = state.legal_actions()
        req = pb.DecideRequest(legal_actions=[wire.action_pb(a, state.turned >> 3) for a in legal], deadline_ms=1000)
        req.observation.CopyFrom(wire.observation_pb(observe(state, state.to_act), options=opts))
        hb = h.decide(req)
        bot.clock.start(1000); t = time.monotonic()
        eb = bot.decide(req)
        ph = pb.Phase.Name(req.observation.phase)
        if len(legal) > 1:
            times.append((time.monotonic() - t) * 1000)
            st_[(ph, 'decisions')] += 1
            if bot.last_deals: st_[(ph, 'evaluated')] += 1
            if eb != hb:
                st_[(ph, 'differs')] += 1
                st_[(ph, 'expert:' + str(eb).replace('\n', ' ')[:40] + ' / heur:' + str(hb).replace('\n', ' ')[:40])] += 1
        state.apply(legal[list(req.legal_actions).index(hb)])  # the heuristic's path
for k, v in sorted(st_.items()):
    if v > 1 or 'expert:' not in k[1]: print(k, v)
times.sort(); print("decisions", len(times), "median", round(times[len(times)//2],1), "p99", round(times[int(len(times)*.99)],1))
