"""The hand-checked deal records of tests/data/cases (all but the 7 copied from
the shared sample), as intended hands + a script + the expected result worked
out BY HAND from RULES.md.

Regenerate the JSON files with ``python tests/data/case_specs.py`` (the JSON is
what the tests read; this file is how the decks were laid out).  Every trick
below was checked by hand for legality (§5 / §7), winner and points; the
``why`` shows the arithmetic.  Seats: 0 N, 1 E, 2 S, 3 W; NS = team 0.
Card points (§2) — trump: J20 9:14 A11 10:10 K4 Q3; plain: A11 10:10 K4 Q3 J2;
all-trumps: J13 9:9 A6 10:5 K3 Q2; no-trumps: A19 10:10 K4 Q3 J2.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from casekit import write  # noqa: E402

PASS8 = "0:pass 1:pass 2:pass 3:pass 0:pass 1:pass 2:pass 3:pass"

# --------------------------------------------------------------------------- 4 players
# D1: hearts trump, every trick one suit; S holds KH+QH.
D1_HANDS_N_TAKES = {
    0: "AS 10S JH 7D 8D 9C 7C",          # + turned 9H
    1: "KS 7S AH 7H AD 10D QC JC",
    2: "QS 8S KH QH 9D JD AC 10C",
    3: "JS 9S 10H 8H KD QD KC 8C",
}
D1_HANDS_E_TAKES = {
    0: "AS 10S JH 9H 7D 8D 9C 7C",
    1: "KS 7S AH AD 10D QC JC",          # + turned 7H
    2: "QS 8S KH QH 9D JD AC 10C",
    3: "JS 9S 10H 8H KD QD KC 8C",
}
D1_TRICKS = [
    "0:AS 1:7S 2:8S 3:9S",
    "0:10S 1:KS 2:QS 3:JS",
    "0:JH 1:7H 2:QH* 3:8H",
    "0:9H 1:AH 2:KH 3:10H",
    "0:7D 1:AD 2:9D 3:QD",
    "1:10D 2:JD 3:KD 0:8D",
    "1:QC 2:AC 3:8C 0:7C",
    "2:10C 3:KC 0:9C 1:JC",
]
D1_WHY = (
    "Hearts trump. Tricks: 1 N 11 (AS+7S+8S+9S), 2 N 19 (10S highest: 10+4+3+2), 3 N 23 (JH 20 + QH 3, "
    "nobody can beat JH so any heart), 4 N 39 (9H 14 + AH 11 + KH 4 + 10H 10), 5 E 14 (AD 11 + QD 3), "
    "6 E 16 (10D 10 + JD 2 + KD 4), 7 S 14 (AC 11 + QC 3), 8 S 16 + 10 dix de der = 26. "
    "NS 11+19+23+39+14+26 = 132, EW 14+16 = 30 (sum 162). S announced belote with QH: NS +20."
)

# D2: spades trump, E (taker) holds the tierce 7D 8D 9D.
D2_HANDS = {
    0: "AS KS AD 10D AC QC AH KH",
    1: "JS 7D 8D 9D 9C 7H 8H",            # + turned 7S
    2: "10S QS KD QD 10C KC 10H QH",
    3: "9S 8S JD 7C 8C JC 9H JH",
}
D2_TRICKS = [
    "0:AD 1:7D 2:QD 3:JD",
    "0:10D 1:8D 2:KD 3:8S",
    "3:7C 0:QC 1:9C 2:KC",
    "2:10C 3:8C 0:AC 1:7S",
    "1:JS 2:QS 3:9S 0:KS",
    "1:7H 2:QH 3:9H 0:AH",
    "0:AS 1:9D 2:10S 3:JC",
    "0:KH 1:8H 2:10H 3:JH",
]
D2_TRICKS_WHY = (
    "Spades trump, E takes. Tricks: 1 N 16 (AD 11 + QD 3 + JD 2), 2 W 14 (W void in diamonds, N master: "
    "must trump, 8S; 10D 10 + KD 4), 3 S 7 (KC 4 + QC 3), 4 E 21 (E void in clubs, N master: trumps 7S; "
    "10C 10 + AC 11), 5 E 41 (JS 20 + QS 3 + 9S 14 + KS 4), 6 N 14 (AH 11 + QH 3), 7 N 23 (AS 11 + 10S 10 + "
    "JC 2), 8 S 16 + 10 = 26 (10H beats KH). NS 16+7+14+23+26 = 86, EW 14+21+41 = 76 (sum 162). "
    "E declares the tierce 7D-8D-9D (20), nobody else declares: EW win the comparison."
)

# D3: clubs trump; N carré of tens, E carré of kings.
D3_HANDS = {
    0: "10S 7S 10H 8H 10D AD 10C",        # + turned 9C
    1: "KS 8S KH 7H KD 9D KC 7C",
    2: "AS 9S QH 9H JD 7D JC AC",
    3: "QS JS AH JH QD 8D QC 8C",
}
D3_TRICKS = [
    "0:9C 1:7C 2:JC 3:8C",
    "2:AC 3:QC 0:10C 1:KC",
    "2:AS 3:QS 0:7S 1:8S",
    "2:9S 3:JS 0:10S 1:KS",
    "0:10H 1:7H 2:9H 3:AH",
    "3:JH 0:8H 1:KH 2:QH",
    "1:KD 2:7D 3:8D 0:AD",
    "0:10D 1:9D 2:JD 3:QD",
]
D3_WHY = (
    "Clubs trump, N takes. Tricks: 1 S 34 (S must beat 9C: JC; 14+0+20+0), 2 S 28 (AC 11 + QC 3 + 10C 10 + "
    "KC 4), 3 S 14 (AS 11 + QS 3), 4 N 16 (10S 10 + JS 2 + KS 4), 5 W 21 (10H 10 + AH 11), 6 E 9 (JH 2 + KH 4 "
    "+ QH 3), 7 N 15 (KD 4 + AD 11), 8 N 15 + 10 = 25. NS 34+28+14+16+15+25 = 132, EW 21+9 = 30. "
    "Declarations: carré of tens (N, 100) vs carré of kings (E, 100): equal points, higher rank in the order "
    "A > 10 > K > Q wins, so tens: NS score 100, E's carré nothing (§6.1)."
)

# D4: diamonds trump; N carré of queens, W quinte 7H-JH.
D4_HANDS = {
    0: "QS QH QD QC AS 10S AC 10C",
    1: "KS 7S AH JD KC 8C JC",            # + turned 9D
    2: "JS 9S 8S KH AD 10D KD 9C",
    3: "7H 8H 9H 10H JH 7D 8D 7C",
}
D4_TRICKS = [
    "0:AS 1:7S 2:8S 3:7D",
    "3:7H 0:QH 1:AH 2:KH",
    "1:JD 2:KD 3:8D 0:QD",
    "1:9D 2:10D 3:8H 0:10S",
    "1:KS 2:9S 3:9H 0:QS",
    "1:KC 2:9C 3:7C 0:AC",
    "0:10C 1:JC 2:JS 3:10H",
    "0:QC 1:8C 2:AD 3:JH",
]
D4_TRICKS_WHY = (
    "Diamonds trump, E takes. Tricks: 1 W 11 (W void in spades, N master: must trump, 7D; AS 11), "
    "2 E 18 (QH 3 + AH 11 + KH 4), 3 E 27 (JD 20 + KD 4 + QD 3), 4 E 34 (S cannot beat 9D, plays 10D; "
    "9D 14 + 10D 10 + 10S 10), 5 E 7 (KS 4 + QS 3), 6 N 15 (KC 4 + AC 11), 7 N 24 (10C 10 + JC 2 + JS 2 + "
    "10H 10), 8 S 16 + 10 = 26 (S void in clubs, partner master: plays AD, a trump; QC 3 + AD 11 + JH 2). "
    "EW 11+18+27+34+7 = 97, NS 15+24+26 = 65 (sum 162). Declarations: carré of queens (N, 100) vs quinte "
    "(W, 100): a carré beats any sequence, NS win the comparison (§6.1)."
)

# D5 / D6: N holds tierce 8H-9H-10H, W holds tierce 8S-9S-10S; dealer N so eldest is E.
D56_BASE = {
    0: "8H 9H 10H AS AD 10D 7C 8C",
    1: "7H AH 7S JS KD 7D AC 10C",
    3: "QH 8S 9S 10S JD 9D JC 9C",
}
D5_HANDS = {**D56_BASE, 2: "KH QS KS QD 8D KC QC"}   # + turned JH
D6_HANDS = {**D56_BASE, 2: "JH KH QS KS 8D KC QC"}   # + turned QD
D15_HANDS = {**D56_BASE, 2: "JH KH QS KS QD 8D QC"}  # + turned KC (round 2)
D5_TRICKS = [
    "1:AC 2:KC 3:9C 0:7C",
    "1:10C 2:QC 3:JC 0:8C",
    "1:KD 2:8D 3:9D 0:AD",
    "0:10D 1:7D 2:QD 3:JD",
    "0:AS 1:7S 2:KS 3:8S",
    "0:10H 1:AH 2:JH 3:QH",
    "2:QS 3:10S 0:8H 1:JS",
    "0:9H 1:7H 2:KH 3:9S",
]
D6_TRICKS_HEAD = [
    "1:AC 2:KC 3:9C 0:7C",
    "1:10C 2:QC 3:JC 0:8C",
    "1:AH 2:KH 3:QH 0:8H",
    "1:7H 2:JH 3:9D 0:10H",
    "3:JD 0:10D 1:7D 2:8D",
    "3:10S 0:AS 1:JS 2:KS",
]
D6_TRICKS = D6_TRICKS_HEAD + ["0:9H 1:KD 2:QD 3:8S", "1:7S 2:QS 3:9S 0:AD"]
D15_TRICKS = D6_TRICKS_HEAD + ["0:9H 1:KD 2:QS 3:8S", "1:7S 2:QD 3:9S 0:AD"]
D6_TRICKS_WHY = (
    "Diamonds trump, S takes; eldest E. Tricks: 1 E 15 (AC 11 + KC 4), 2 E 15 (10C 10 + QC 3 + JC 2), "
    "3 E 18 (AH 11 + KH 4 + QH 3), 4 W 26 (W void in hearts, S master: must trump, 9D 14; JH 2 + 10H 10), "
    "5 W 30 (JD 20 + 10D 10), 6 N 27 (10S 10 + AS 11 + JS 2 + KS 4), 7 E 7 (E trumps 9H with KD 4, S holds "
    "only the lower QD 3 and must undertrump), 8 N 14 + 10 = 24 (QS 3 + AD 11, AD trumps). "
    "EW 15+15+18+26+30+7 = 111, NS 27+24 = 51 (sum 162)."
)

# D7: spades trump; N holds J 9 A 10 Q of spades + three aces: capot.
D7_HANDS = {
    0: "JS 9S AS 10S AH AD AC",           # + turned QS
    1: "KS 7H 8H 9H 10D QD 10C QC",
    2: "8S 10H QH 7D 9D 7C 9C KC",
    3: "7S JH KH 8D JD KD 8C JC",
}
D7_TRICKS = [
    "0:JS 1:KS 2:8S 3:7S",
    "0:9S 1:QC 2:7C 3:8C",
    "0:AS 1:10C 2:9C 3:JC",
    "0:10S 1:QD 2:KC 3:8D",
    "0:QS 1:10D 2:7D 3:JD",
    "0:AH 1:7H 2:10H 3:JH",
    "0:AD 1:8H 2:9D 3:KD",
    "0:AC 1:9H 2:QH 3:KH",
]
D7_TRICKS_WHY = (
    "Spades trump, N takes and wins all 8 tricks (after trick 1 nobody else has a trump): 24 (JS 20 + KS 4), "
    "17 (9S 14 + QC 3), 23 (AS 11 + 10C 10 + JC 2), 17 (10S 10 + QD 3 + KC 4), 15 (QS 3 + 10D 10 + JD 2), "
    "23 (AH 11 + 10H 10 + JH 2), 15 (AD 11 + KD 4), 18 (AC 11 + QH 3 + KH 4) + 10 = 28: 162 = capot, "
    "scored 252 (§6.2)."
)

# D8: spades trump, E takes; attackers declare carrés of queens and nines + belote, defenders take every trick.
D8_HANDS = {
    0: "JS 10S AH 10H AD JD AC JC",
    1: "QS QH JH 7H QD 8D QC",            # + turned KS
    2: "AS 8S 7S KH 10D KD 10C KC",
    3: "9S 9H 9D 9C 8H 7D 7C 8C",
}
D8_TRICKS = [
    "0:JS 1:QS* 2:7S 3:9S",
    "0:10S 1:KS 2:AS 3:7C",
    "2:KH 3:8H 0:10H 1:7H",
    "0:AH 1:JH 2:8S 3:9H",
    "2:10D 3:7D 0:JD 1:8D",
    "2:KD 3:9D 0:AD 1:QD",
    "0:AC 1:QC 2:10C 3:8C",
    "0:JC 1:QH 2:KC 3:9C",
]
D8_TRICKS_WHY = (
    "Spades trump, E takes. Tricks, all to NS: 1 N 37 (JS 20 + QS 3 + 9S 14), 2 S 25 (S must beat 10S: AS; "
    "10 + KS 4 + 11), 3 N 14 (10H beats KH: 4 + 10), 4 S 13 (S void, partner master: trumps 8S; AH 11 + JH 2), "
    "5 S 12 (10D 10 + JD 2), 6 N 18 (KD 4 + AD 11 + QD 3), 7 N 24 (AC 11 + QC 3 + 10C 10), 8 S 9 + 10 = 19 "
    "(JC 2 + QH 3 + KC 4). 37+25+14+13+12+18+24+19 = 162: capot by the defenders. E declares carré of "
    "queens (100), W carré of nines (150), NS nothing: EW win the comparison with 250; E announced belote (20)."
)

# D9: hearts trump, N takes; no declarations, no belote.
D9_HANDS = {
    0: "AS 7S JH 10D 9D KC 8C",           # + turned 8H
    1: "10S 8S 9H 7H AD JD QC 7C",
    2: "KS 9S AH QH 8D 7D AC 10C",
    3: "QS JS 10H KH KD QD JC 9C",
}
D9_HANDS_ROUND2 = {**D9_HANDS, 0: "AS 7S JH 8H 10D 9D KC"}  # + turned 8C
D9A_TRICKS = [
    "0:AS 1:8S 2:9S 3:JS",
    "0:7S 1:10S 2:KS 3:QS",
    "1:AD 2:7D 3:KD 0:9D",
    "1:JD 2:8D 3:QD 0:10D",
    "0:JH 1:7H 2:QH 3:KH",
    "0:8H 1:9H 2:AH 3:10H",
    "1:QC 2:10C 3:9C 0:KC",
    "2:AC 3:JC 0:8C 1:7C",
]
D9A_WHY_TRICKS = (
    "Hearts trump, N takes. Tricks: 1 N 13 (AS 11 + JS 2), 2 E 17 (10S 10 + KS 4 + QS 3), 3 E 15 (AD 11 + "
    "KD 4), 4 N 15 (10D 10 + JD 2 + QD 3), 5 N 27 (JH 20 + QH 3 + KH 4), 6 E 35 (E must beat 8H: 9H 14; "
    "AH 11 + 10H 10), 7 S 17 (10C 10 + QC 3 + KC 4), 8 S 13 + 10 = 23 (AC 11 + JC 2). "
    "NS 13+15+27+17+23 = 95, EW 17+15+35 = 67 (sum 162)."
)
D9B_TRICKS = D9A_TRICKS[:2] + [
    "1:AD 2:7D 3:QD 0:9D",
    "1:JD 2:8D 3:KD 0:10D",
    "0:JH 1:7H 2:AH 3:KH",
    "0:8H 1:9H 2:QH 3:10H",
] + D9A_TRICKS[6:]

# D10: clubs trump, N takes; S holds KC+QC. 81-81.
D10_HANDS = {
    0: "JC AS 8S 9H 7H KD QD",            # + turned 7C
    1: "9C 8C 10S 7S AH QH JD 7D",
    2: "KC QC KS 9S 10H 8H AD 8D",
    3: "AC 10C QS JS KH JH 10D 9D",
}
D10_TRICKS = [
    "0:JC 1:8C 2:QC* 3:10C",
    "0:7C 1:9C 2:KC 3:AC",
    "1:AH 2:8H 3:JH 0:7H",
    "1:QH 2:10H 3:KH 0:9H",
    "2:AD 3:9D 0:KD 1:JD",
    "2:8D 3:10D 0:QD 1:7D",
    "3:QS 0:AS 1:7S 2:9S",
    "0:8S 1:10S 2:KS 3:JS",
]
D10_TRICKS_NO_BELOTE = [D10_TRICKS[0].replace("QC*", "QC")] + D10_TRICKS[1:]
D10_WHY_TRICKS = (
    "Clubs trump, N takes. Tricks: 1 N 33 (JC 20 + QC 3 + 10C 10), 2 E 29 (E must beat 7C: 9C 14; KC 4 + AC 11), "
    "3 E 13 (AH 11 + JH 2), 4 S 17 (10H 10 + QH 3 + KH 4), 5 S 17 (AD 11 + KD 4 + JD 2), 6 W 13 (10D 10 + QD 3), "
    "7 N 14 (QS 3 + AS 11), 8 E 16 + 10 = 26 (10S 10 + KS 4 + JS 2). NS 33+17+17+14 = 81, EW 29+13+13+26 = 81."
)
D10C_TRICKS = D10_TRICKS[:2] + [
    "1:AH 2:10H 3:JH 0:7H",
    "1:QH 2:8H 3:KH 0:9H",
    "3:QS 0:AS 1:7S 2:9S",
    "0:KD 1:7D 2:AD 3:9D",
    "2:8D 3:10D 0:QD 1:JD",
    "3:JS 0:8S 1:10S 2:KS",
]
D10C_WHY_TRICKS = (
    "Clubs trump, N takes. Tricks: 1 N 33 (JC 20 + QC 3 + 10C 10; S announces belote), 2 E 29 (9C 14 + KC 4 + "
    "AC 11), 3 E 23 (AH 11 + 10H 10 + JH 2), 4 W 7 (KH 4 + QH 3), 5 N 14 (QS 3 + AS 11), 6 S 15 (KD 4 + AD 11), "
    "7 W 15 (10D 10 + QD 3 + JD 2), 8 E 16 + 10 = 26 (JS 2 + 10S 10 + KS 4). NS 33+14+15 = 62, "
    "EW 29+23+7+15+26 = 100 (sum 162)."
)

# D11: all-trumps; N holds the four K+Q pairs, E the jacks and nines: capot by the defenders.
D11_HANDS = {
    0: "KS QS QH KD QD KC QC",            # + turned KH
    1: "JS 9S JH 9H JD 9D JC 9C",
    2: "AS 10S AH 10H AD 10D AC 10C",
    3: "8S 7S 8H 7H 8D 7D 8C 7C",
}
D11_TRICKS = [
    "0:KS* 1:9S 2:AS 3:7S",
    "1:JS 2:10S 3:8S 0:QS",
    "1:JH 2:AH 3:8H 0:KH*",
    "1:9H 2:10H 3:7H 0:QH",
    "1:JD 2:AD 3:8D 0:QD*",
    "1:9D 2:10D 3:7D 0:KD",
    "1:JC 2:10C 3:7C 0:KC*",
    "1:9C 2:AC 3:8C 0:QC",
]
D11_WHY_TRICKS = (
    "All-trumps (round 3, N). E wins every trick: 18 (KS 3 + 9S 9 + AS 6; E must beat KS, 9S does), "
    "20 (JS 13 + 10S 5 + QS 2), 22 (JH 13 + AH 6 + KH 3), 16 (9H 9 + 10H 5 + QH 2), 21 (JD 13 + AD 6 + QD 2), "
    "17 (9D 9 + 10D 5 + KD 3), 21 (JC 13 + 10C 5 + KC 3), 17 + 10 = 27 (9C 9 + AC 6 + QC 2): 162, capot by "
    "the defenders = 252. N announced belote in all four suits: 4 x 20 = 80 for NS."
)

# D12: no-trumps; S holds every ace and ten: capot by the attackers.
D12_HANDS = {
    0: "KS QS KH QH KD QD KC QC",
    1: "JS 9S JH 9H JD 9D JC 9C",
    2: "AS 10S AH 10H AD 10D AC",         # + turned 10C
    3: "8S 7S 8H 7H 8D 7D 8C 7C",
}
D12_TRICKS = [
    "0:KS 1:9S 2:AS 3:7S",
    "2:10S 3:8S 0:QS 1:JS",
    "2:AH 3:7H 0:KH 1:9H",
    "2:10H 3:8H 0:QH 1:JH",
    "2:AD 3:7D 0:KD 1:9D",
    "2:10D 3:8D 0:QD 1:JD",
    "2:AC 3:7C 0:KC 1:9C",
    "2:10C 3:8C 0:QC 1:JC",
]

# D13: all-trumps, N takes; N holds KD+QD, E holds KC+QC.
D13_HANDS = {
    0: "JS 7S 9H AH KD 10C 8C",           # + turned QD
    1: "9S 8S JH QH AD 7D KC QC",
    2: "AS KS 10H 7H JD 8D 9C 7C",
    3: "10S QS KH 8H 9D 10D JC AC",
}
D13_TRICKS = [
    "0:JS 1:8S 2:KS 3:QS",
    "0:7S 1:9S 2:AS 3:10S",
    "1:JH 2:7H 3:8H 0:AH",
    "1:QH 2:10H 3:KH 0:9H",
    "0:KD* 1:AD 2:JD 3:10D",
    "2:8D 3:9D 0:QD 1:7D",
    "3:JC 0:8C 1:KC* 2:7C",
    "3:AC 0:10C 1:QC 2:9C",
]
D13_WHY_TRICKS = (
    "All-trumps (round 3, N). Tricks: 1 N 18 (JS 13 + KS 3 + QS 2), 2 E 20 (E must beat 7S: 9S 9; AS 6 + 10S 5), "
    "3 E 19 (JH 13 + AH 6), 4 N 19 (S must beat QH: 10H; N must beat 10H: 9H; 2+5+3+9), 5 S 27 (E must beat KD: "
    "AD; S must beat AD: JD; 3+6+13+5), 6 W 11 (W must beat 8D: 9D 9 + QD 2), 7 W 16 (JC 13 + KC 3), "
    "8 S 22 + 10 = 32 (S's 9C beats AC: 6+5+2+9). NS 18+19+27+32 = 96, EW 20+19+11+16 = 66 (sum 162). "
    "Belote: N (KD/QD) 20, E (KC/QC) 20."
)

# D16: N holds all eight spades (trump); E holds the quinte 10H-AH; dealer N, eldest E.
D16_HANDS = {
    0: "7S 9S 10S JS QS KS AS",           # + turned 8S
    1: "10H JH QH KH AH 7D 7C 8C",
    2: "7H 8H 8D 9D JD 9C 10C AC",
    3: "9H 10D QD KD AD JC QC KC",
}
D16_TRICKS = [
    "1:AH 2:7H 3:9H 0:7S",
    "0:JS 1:7D 2:8D 3:10D",
    "0:9S 1:7C 2:9D 3:QD",
    "0:AS 1:8C 2:JD 3:KD",
    "0:10S 1:10H 2:9C 3:AD",
    "0:KS* 1:JH 2:10C 3:JC",
    "0:QS 1:QH 2:AC 3:QC",
    "0:8S 1:KH 2:8H 3:KC",
]

# D17: N holds 9S..AS (a run of 6) and 7S; spades trump.
D17_HANDS = {
    0: "9S 10S JS QS KS AS AH",           # + turned 7S
    1: "8S 7H 8H 9H 10H 7D 9D 7C",
    2: "QD KD AD JH 8D 8C 9C AC",
    3: "QH KH 10D JD 10C JC QC KC",
}
D17_TRICKS = [
    "0:JS 1:8S 2:8C 3:KH",
    "0:AH 1:7H 2:JH 3:QH",
    "0:9S 1:7C 2:9C 3:10D",
    "0:AS 1:8H 2:8D 3:JD",
    "0:10S 1:9H 2:AC 3:10C",
    "0:KS 1:10H 2:QD 3:JC",
    "0:QS 1:7D 2:KD 3:QC",
    "0:7S 1:9D 2:AD 3:KC",
]

# D18: the §6.1 example hand: four jacks + J-Q-K-A of hearts (+ 8H); hearts trump.
D18_HANDS = {
    0: "JS JH JD JC QH KH AH",            # + turned 8H
    1: "7H KS QS KD QD AC QC 9S",
    2: "9H 10H AS 10S AD 10D KC 10C",
    3: "7S 8S 7D 8D 9D 7C 8C 9C",
}
D18_TRICKS = [
    "0:JH 1:7H 2:10H 3:7S",
    "0:AH 1:9S 2:9H 3:8S",
    "2:AS 3:7C 0:JS 1:QS",
    "2:10S 3:8C 0:JD 1:KS",
    "2:AD 3:7D 0:8H 1:QD",
    "0:JC 1:AC 2:KC 3:9C",
    "1:QC 2:10C 3:8D 0:QH*",
    "0:KH 1:KD 2:10D 3:9D",
]
D18_WHY_TRICKS = (
    "Hearts trump, N takes. Tricks: 1 N 30 (JH 20 + 10H 10), 2 S 25 (S must beat AH: 9H; 11 + 14), 3 S 16 "
    "(AS 11 + JS 2 + QS 3), 4 S 16 (10S 10 + JD 2 + KS 4), 5 N 14 (N void, partner master: trumps 8H; AD 11 + "
    "QD 3), 6 E 17 (JC 2 + AC 11 + KC 4), 7 N 16 (N void in clubs, S master: QH, belote; QC 3 + 10C 10 + QH 3), "
    "8 N 18 + 10 = 28 (KH 4 + KD 4 + 10D 10). NS 30+25+16+16+14+16+28 = 145, EW 17 (sum 162). N declares "
    "carré of jacks + tierce Q-K-A of hearts (220, §6.1 example); W two tierces 7-8-9 of diamonds and clubs (40); "
    "a carré beats any sequence: NS score 220. S could declare a carré of tens but does not."
)

FOUR = [
    # ---- classic
    dict(name="classic/made_partner_belote", ruleset="classic", dealer=3, turned="9H",
         hands=D1_HANDS_N_TAKES, bids="0:take", tricks=D1_TRICKS,
         expected={"contract": "made", "score": [152, 30]},
         why=D1_WHY + " classic: 132 >= 30, made: NS 132 + 20 = 152, EW 30 (§6.2)."),
    dict(name="classic/dedans_defenders_belote", ruleset="classic", dealer=3, turned="7H",
         hands=D1_HANDS_E_TAKES, bids="0:pass 1:take", tricks=D1_TRICKS,
         expected={"contract": "dedans", "score": [182, 0]},
         why=D1_WHY + " E took: attackers EW 30 < 132, dedans: defenders NS 162 + their belote 20 = 182, "
         "EW 0 (§6.2 classic)."),
    dict(name="classic/dedans_attackers_keep_declaration", ruleset="classic", dealer=3, turned="7S",
         hands=D2_HANDS, bids="0:pass 1:take", declares={1: ["7D 8D 9D"]}, tricks=D2_TRICKS,
         expected={"contract": "dedans", "score": [162, 20]},
         why=D2_TRICKS_WHY + " classic counts trick points only: 76 < 86, dedans: NS 162; EW keep their "
         "declaration as usual: 20 (§6.2)."),
    dict(name="classic/carre_tens_beats_carre_kings", ruleset="classic", dealer=3, turned="9C",
         hands=D3_HANDS, bids="0:take", declares={0: ["10S 10H 10D 10C"], 1: ["KS KH KD KC"]},
         tricks=D3_TRICKS, expected={"contract": "made", "score": [232, 30]},
         why=D3_WHY + " Made: NS 132 + 100 = 232, EW 30."),
    dict(name="classic/carre_beats_quinte", ruleset="classic", dealer=3, turned="9D",
         hands=D4_HANDS, bids="0:pass 1:take", declares={0: ["QS QH QD QC"], 3: ["7H 8H 9H 10H JH"]},
         tricks=D4_TRICKS, expected={"contract": "made", "score": [165, 97]},
         why=D4_TRICKS_WHY + " classic: attackers EW 97 >= 65, made; NS 65 + 100 = 165, EW 97."),
    dict(name="classic/equal_tierces_trump_wins", ruleset="classic", dealer=0, turned="JH",
         hands=D5_HANDS, bids="1:pass 2:take", declares={0: ["8H 9H 10H"], 3: ["8S 9S 10S"]},
         tricks=D5_TRICKS, expected={"contract": "made", "score": [152, 30]},
         why="Hearts trump, S takes; eldest E. Tricks: 1 E 15 (AC 11 + KC 4), 2 E 15 (10C 10 + QC 3 + JC 2), "
         "3 N 15 (KD 4 + AD 11), 4 N 15 (10D 10 + QD 3 + JD 2), 5 N 15 (AS 11 + KS 4), 6 S 44 (E must beat 10H: "
         "AH; S must beat AH: JH; W: QH; 10+11+20+3), 7 N 15 (N void in spades, W master: trumps 8H; QS 3 + 10S "
         "10 + JS 2), 8 N 18 + 10 = 28 (9H 14 + KH 4). NS 15+15+15+44+15+28 = 132, EW 30. Declarations: N "
         "tierce 8-9-10 of hearts, W tierce 8-9-10 of spades: same length and top; the trump one wins although "
         "W comes first from eldest E (§6.1). Made: NS 132 + 20 = 152, EW 30."),
    dict(name="classic/equal_tierces_playing_order_dedans", ruleset="classic", dealer=0, turned="QD",
         hands=D6_HANDS, bids="1:pass 2:take", declares={0: ["8H 9H 10H"], 3: ["8S 9S 10S"]},
         tricks=D6_TRICKS, expected={"contract": "dedans", "score": [0, 182]},
         why=D6_TRICKS_WHY + " Declarations: N's and W's tierces are equal and neither is trump: the declarer "
         "first in playing order from eldest E (E, S, W, N) is W, so EW win (§6.1). classic: 51 < 111, dedans: "
         "EW 162 + their tierce 20 = 182, NS 0."),
    dict(name="classic/capot_by_attackers_quarte", ruleset="classic", dealer=3, turned="QS",
         hands=D7_HANDS, bids="0:take", declares={0: ["9S 10S JS QS"], 1: ["7H 8H 9H"]},
         tricks=D7_TRICKS, expected={"contract": "made", "score": [302, 0]},
         why=D7_TRICKS_WHY + " N's quarte (50) beats E's tierce: NS 252 + 50 = 302, EW 0."),
    dict(name="classic/capot_by_defenders_attackers_declarations", ruleset="classic", dealer=3, turned="KS",
         hands=D8_HANDS, bids="0:pass 1:take", declares={1: ["QS QH QD QC"], 3: ["9S 9H 9D 9C"]},
         tricks=D8_TRICKS, expected={"contract": "dedans", "score": [252, 270]},
         why=D8_TRICKS_WHY + " classic: capot by the defenders is dedans, NS 252; the attackers' declarations "
         "and belote are scored as usual by whoever holds them: EW 250 + 20 = 270 (§6.2)."),
    dict(name="classic/round2_take_made", ruleset="classic", dealer=3, turned="8C",
         hands=D9_HANDS_ROUND2, bids="0:pass 1:pass 2:pass 3:pass 0:take:H", tricks=D9A_TRICKS,
         expected={"contract": "made", "score": [95, 67]},
         why="Turned 8C; all pass in round 1; round 2 N names hearts and receives the 8C (§4). "
         + D9A_WHY_TRICKS + " Made: NS 95, EW 67."),
    dict(name="classic/made_81_81_with_belote", ruleset="classic", dealer=3, turned="7C",
         hands=D10_HANDS, bids="0:take", tricks=D10_TRICKS,
         expected={"contract": "made", "score": [101, 81]},
         why=D10_WHY_TRICKS + " classic: 81 >= 81 is made (§6.2); S announced belote: NS 81 + 20 = 101, EW 81."),
    dict(name="classic/dedans_attackers_belote", ruleset="classic", dealer=3, turned="7C",
         hands=D10_HANDS, bids="0:take", tricks=D10C_TRICKS,
         expected={"contract": "dedans", "score": [20, 162]},
         why=D10C_WHY_TRICKS + " classic: 62 < 100, dedans: EW 162; the attackers keep their belote: NS 20."),
    dict(name="classic/run_of_6_is_a_quinte", ruleset="classic", dealer=3, turned="7S",
         hands=D17_HANDS, bids="0:take",
         declares={0: ["10S JS QS KS AS"], 1: ["7H 8H 9H 10H"], 2: ["QD KD AD"]}, tricks=D17_TRICKS,
         expected={"contract": "made", "score": [372, 0]},
         why="Spades trump, N takes and wins every trick: 24 (JS 20 + KH 4), 16 (AH 11 + JH 2 + QH 3), "
         "24 (9S 14 + 10D 10), 13 (AS 11 + JD 2), 31 (10S 10 + AC 11 + 10C 10), 19 (KS 4 + 10H 10 + QD 3 + JC 2), "
         "10 (QS 3 + KD 4 + QC 3), 15 + 10 = 25 (AD 11 + KC 4): 162, capot = 252. N's run 9S-AS (6 cards) is "
         "declared as the quinte of its five highest (100), the 9S is left alone (§6.1); S adds a tierce "
         "(20); E's quarte (50) loses to the quinte: NS 100 + 20 = 120. N plays KS and QS without announcing "
         "belote: 0. NS 252 + 120 = 372, EW 0."),
    dict(name="classic/carre_overlapping_run", ruleset="classic", dealer=3, turned="8H",
         hands=D18_HANDS, bids="0:take",
         declares={0: ["JS JH JD JC", "QH KH AH"], 3: ["7D 8D 9D", "7C 8C 9C"]}, tricks=D18_TRICKS,
         expected={"contract": "made", "score": [385, 17]},
         why=D18_WHY_TRICKS + " Made: NS 145 + 220 + belote 20 = 385, EW 17."),
    dict(name="classic/passed_out", ruleset="classic", dealer=3, turned="8H",
         hands=D9_HANDS, bids=PASS8,
         expected={"contract": "passed", "score": [0, 0]},
         why="Nobody takes in either round: the deal is passed out, 0-0 (§3.3)."),
    # ---- strict
    dict(name="strict/made_partner_belote_rounded", ruleset="strict", dealer=3, turned="9H",
         hands=D1_HANDS_N_TAKES, bids="0:take", tricks=D1_TRICKS,
         expected={"contract": "made", "score": [150, 30]},
         why=D1_WHY + " strict: 132 + 20 = 152 > 30, made; rounded to tens: 152 -> 150, 30 -> 30."),
    dict(name="strict/dedans_defenders_belote", ruleset="strict", dealer=3, turned="7H",
         hands=D1_HANDS_E_TAKES, bids="0:pass 1:take", tricks=D1_TRICKS,
         expected={"contract": "dedans", "score": [180, 0]},
         why=D1_WHY + " E took: 30 < 132 + 20, dedans: NS 162 + belote 20 = 182 -> 180, EW 0."),
    dict(name="strict/made_by_declarations", ruleset="strict", dealer=3, turned="7S",
         hands=D2_HANDS, bids="0:pass 1:take", declares={1: ["7D 8D 9D"]}, tricks=D2_TRICKS,
         expected={"contract": "made", "score": [90, 100]},
         why=D2_TRICKS_WHY + " strict counts declarations: EW 76 + 20 = 96 > NS 86, made (the same cards "
         "are dedans in classic). NS 86 -> 90, EW 96 -> 100."),
    dict(name="strict/carre_tens_beats_carre_kings", ruleset="strict", dealer=3, turned="9C",
         hands=D3_HANDS, bids="0:take", declares={0: ["10S 10H 10D 10C"], 1: ["KS KH KD KC"]},
         tricks=D3_TRICKS, expected={"contract": "made", "score": [230, 30]},
         why=D3_WHY + " Made: NS 132 + 100 = 232 -> 230, EW 30."),
    dict(name="strict/dedans_takes_every_declaration", ruleset="strict", dealer=3, turned="9D",
         hands=D4_HANDS, bids="0:pass 1:take", declares={0: ["QS QH QD QC"], 3: ["7H 8H 9H 10H JH"]},
         tricks=D4_TRICKS, expected={"contract": "dedans", "score": [360, 0]},
         why=D4_TRICKS_WHY + " strict: attackers EW 97 + 0 vs defenders NS 65 + 100 = 165: dedans. NS score "
         "162 + every declaration of both teams (100 + 100) = 362 -> 360, EW 0 (§6.2)."),
    dict(name="strict/equal_tierces_playing_order_dedans", ruleset="strict", dealer=0, turned="QD",
         hands=D6_HANDS, bids="1:pass 2:take", declares={0: ["8H 9H 10H"], 3: ["8S 9S 10S"]},
         tricks=D6_TRICKS, expected={"contract": "dedans", "score": [0, 200]},
         why=D6_TRICKS_WHY + " W's tierce wins the comparison by playing order from eldest E. strict: NS 51 vs "
         "EW 111 + 20: dedans; EW 162 + both tierces 40 = 202 -> 200, NS 0."),
    dict(name="strict/capot_by_attackers", ruleset="strict", dealer=3, turned="QS",
         hands=D7_HANDS, bids="0:take", declares={0: ["9S 10S JS QS"], 1: ["7H 8H 9H"]},
         tricks=D7_TRICKS, expected={"contract": "made", "score": [300, 0]},
         why=D7_TRICKS_WHY + " NS 252 + quarte 50 = 302 -> 300, EW 0."),
    dict(name="strict/capot_by_defenders_is_dedans", ruleset="strict", dealer=3, turned="KS",
         hands=D8_HANDS, bids="0:pass 1:take", declares={1: ["QS QH QD QC"], 3: ["9S 9H 9D 9C"]},
         tricks=D8_TRICKS, expected={"contract": "dedans", "score": [500, 20]},
         why=D8_TRICKS_WHY + " strict: 'Capot by the defenders is also dedans' (§6.2), even though the "
         "attackers' 0 + 250 + 20 = 270 exceeds the defenders' 252: NS score 252 + every declaration 250 = 502 "
         "-> 500, EW keep only their belote 20."),
    dict(name="strict/rounding_95_up_67_up", ruleset="strict", dealer=3, turned="8H",
         hands=D9_HANDS, bids="0:take", tricks=D9A_TRICKS,
         expected={"contract": "made", "score": [100, 70]},
         why=D9A_WHY_TRICKS + " Made; rounded to the nearest ten, 5 up: 95 -> 100, 67 -> 70 (§6.2)."),
    dict(name="strict/rounding_104_down_58_up", ruleset="strict", dealer=3, turned="8H",
         hands=D9_HANDS, bids="0:take", tricks=D9B_TRICKS,
         expected={"contract": "made", "score": [100, 60]},
         why="Hearts trump, N takes. Tricks: 1 N 13 (AS 11 + JS 2), 2 E 17 (10S + KS + QS), 3 E 14 (AD 11 + QD 3), "
         "4 N 16 (10D 10 + JD 2 + KD 4), 5 N 35 (JH 20 + AH 11 + KH 4), 6 E 27 (9H 14 + QH 3 + 10H 10), 7 S 17 "
         "(10C 10 + QC 3 + KC 4), 8 S 13 + 10 = 23. NS 13+16+35+17+23 = 104, EW 17+14+27 = 58. Made; "
         "104 -> 100, 58 -> 60."),
    dict(name="strict/made_81_81_with_belote", ruleset="strict", dealer=3, turned="7C",
         hands=D10_HANDS, bids="0:take", tricks=D10_TRICKS,
         expected={"contract": "made", "score": [100, 80]},
         why=D10_WHY_TRICKS + " strict counts belote: 81 + 20 = 101 > 81, made; 101 -> 100, 81 -> 80."),
    dict(name="strict/tie_81_81_without_belote_is_dedans", ruleset="strict", dealer=3, turned="7C",
         hands=D10_HANDS, bids="0:take", tricks=D10_TRICKS_NO_BELOTE,
         expected={"contract": "dedans", "score": [0, 160]},
         why=D10_WHY_TRICKS.replace("S announces belote", "") + " S holds KC+QC but does not announce belote "
         "(its holder's choice, §5): 81 = 81, a tie is dedans in strict: EW 162 -> 160, NS 0."),
    dict(name="strict/dedans_attackers_belote", ruleset="strict", dealer=3, turned="7C",
         hands=D10_HANDS, bids="0:take", tricks=D10C_TRICKS,
         expected={"contract": "dedans", "score": [20, 160]},
         why=D10C_WHY_TRICKS + " strict: NS 62 + 20 = 82 < 100, dedans: EW 162 -> 160; the attackers keep only "
         "their belote: 20."),
    dict(name="strict/run_of_8_quinte_and_tierce", ruleset="strict", dealer=0, turned="8S",
         hands=D16_HANDS, bids="1:pass 2:pass 3:pass 0:take",
         declares={1: ["10H JH QH KH AH"], 0: ["10S JS QS KS AS", "7S 8S 9S"]}, tricks=D16_TRICKS,
         expected={"contract": "made", "score": [390, 0]},
         why="Spades trump, N (dealer) takes and holds all eight spades; eldest E. Tricks, all N's: 11 (N void "
         "in hearts, E master: trumps 7S; AH 11), 30 (JS 20 + 10D 10), 17 (9S 14 + QD 3), 17 (AS 11 + JD 2 + "
         "KD 4), 31 (10S 10 + 10H 10 + AD 11), 18 (KS 4 + JH 2 + 10C 10 + JC 2), 20 (QS 3 + QH 3 + AC 11 + QC 3), "
         "8 + 10 = 18 (KH 4 + KC 4): 162, capot 252. N's 8-card run is a quinte to the ace + a tierce to the nine "
         "(100 + 20, §6.1); E's quinte 10H-AH has the same length and top, N's is trump: NS win. Belote 20. "
         "NS 252 + 120 + 20 = 392 -> 390, EW 0."),
    dict(name="strict/carre_overlapping_run", ruleset="strict", dealer=3, turned="8H",
         hands=D18_HANDS, bids="0:take",
         declares={0: ["JS JH JD JC", "QH KH AH"], 3: ["7D 8D 9D", "7C 8C 9C"]}, tricks=D18_TRICKS,
         expected={"contract": "made", "score": [390, 20]},
         why=D18_WHY_TRICKS + " strict: 145 + 220 + 20 = 385 > 17, made; 385 -> 390 (5 rounds up), 17 -> 20."),
    # ---- all-trumps
    dict(name="all-trumps/round1_litige_belote_scored_at_once", ruleset="all-trumps", dealer=3, turned="7C",
         hands=D10_HANDS, bids="0:take", tricks=D10_TRICKS,
         expected={"contract": "litige", "score": [20, 81], "pot": 81},
         why=D10_WHY_TRICKS + " all-trumps: 81 = 81 is a litige: EW (defenders) score 81 now, NS's 81 go to the "
         "pot; belote is never held: NS 20 now (§6.3 example [20, 81], pot 81)."),
    dict(name="all-trumps/second_litige_adds_to_pot", ruleset="all-trumps", dealer=3, turned="7C", pot=81,
         hands=D10_HANDS, bids="0:take", tricks=D10_TRICKS,
         expected={"contract": "litige", "score": [20, 81], "pot": 162},
         why=D10_WHY_TRICKS + " A pot of 81 comes in; another litige adds the attackers' 81: pot 162; "
         "EW 81, NS belote 20 (§6.3)."),
    dict(name="all-trumps/round3_all_trumps_made", ruleset="all-trumps", dealer=3, turned="QD",
         hands=D13_HANDS, bids=PASS8 + " 0:all-trumps", tricks=D13_TRICKS,
         expected={"contract": "made", "score": [116, 86]},
         why="Rounds 1 and 2 all pass; round 3 N bids all-trumps and receives the turned QD (§4). "
         + D13_WHY_TRICKS + " 96 > 66 made: NS 96 + 20 = 116, EW 66 + 20 = 86."),
    dict(name="all-trumps/pot_to_attackers_when_made", ruleset="all-trumps", dealer=3, turned="QD", pot=81,
         hands=D13_HANDS, bids=PASS8 + " 0:all-trumps", tricks=D13_TRICKS,
         expected={"contract": "made", "score": [197, 86]},
         why=D13_WHY_TRICKS + " Made with a pot of 81 carried in: the attackers win the comparison and add it: "
         "NS 96 + 20 + 81 = 197, EW 86, pot emptied (§6.3)."),
    dict(name="all-trumps/four_belotes_capot_by_defenders", ruleset="all-trumps", dealer=3, turned="KH",
         hands=D11_HANDS, bids=PASS8 + " 0:all-trumps", tricks=D11_TRICKS,
         expected={"contract": "dedans", "score": [80, 252]},
         why=D11_WHY_TRICKS + " Dedans: EW 252 (capot), NS 0 trick points but belote is still scored by its "
         "holder: 80 (§5, §6.2)."),
    dict(name="all-trumps/pot_to_defenders_when_dedans", ruleset="all-trumps", dealer=3, turned="KH", pot=81,
         hands=D11_HANDS, bids=PASS8 + " 0:all-trumps", tricks=D11_TRICKS,
         expected={"contract": "dedans", "score": [80, 333]},
         why=D11_WHY_TRICKS + " Dedans with a pot of 81 carried in: the defenders win the comparison and add "
         "it: EW 252 + 81 = 333, NS 80 (§6.3)."),
    dict(name="all-trumps/round3_no_trumps_capot", ruleset="all-trumps", dealer=3, turned="10C",
         hands=D12_HANDS, bids=PASS8 + " 0:pass 1:pass 2:no-trumps", tricks=D12_TRICKS,
         expected={"contract": "made", "score": [252, 0]},
         why="Round 3: N and E pass, S bids no-trumps and receives the 10C. No-trumps order A 10 K Q J: S wins "
         "every trick: 23 (KS 4 + AS 19), 15 (10S 10 + QS 3 + JS 2), 23, 15, 23, 15, 23, 15 + 10 = 25 "
         "(same pattern in hearts, diamonds, clubs): 162, capot = 252; N's K+Q pairs are no belote in "
         "no-trumps. NS 252, EW 0."),
    dict(name="all-trumps/round2_take_no_undertrump_dedans", ruleset="all-trumps", dealer=0, turned="KC",
         hands=D15_HANDS, bids="1:pass 2:pass 3:pass 0:pass 1:pass 2:take:D", tricks=D15_TRICKS,
         expected={"contract": "dedans", "score": [0, 162]},
         why="Turned KC, all pass round 1; round 2 S names diamonds and gets the KC. Tricks 1-6 as: 1 E 15, "
         "2 E 15, 3 E 18 (AH 11 + KH 4 + QH 3), 4 W 26 (W trumps 9D 14; JH 2 + 10H 10), 5 W 30 (JD 20 + 10D 10), "
         "6 N 27 (10S 10 + AS 11 + JS 2 + KS 4). 7 E 7: E trumps 9H with KD; S holds only the lower QD and in "
         "all-trumps need not undertrump: plays QS (3) (§5.3). 8 N 14 + 10 = 24: S, void in spades with E "
         "master, must trump: QD 3; N's AD 11 wins. EW 15+15+18+26+30+7 = 111, NS 27+24 = 51: dedans, "
         "EW 162, NS 0."),
    dict(name="all-trumps/round1_capot_by_attackers", ruleset="all-trumps", dealer=3, turned="QS",
         hands=D7_HANDS, bids="0:take", tricks=D7_TRICKS,
         expected={"contract": "made", "score": [252, 0]},
         why=D7_TRICKS_WHY + " No declarations in all-trumps: NS 252, EW 0."),
    dict(name="all-trumps/passed_out_pot_stays", ruleset="all-trumps", dealer=3, turned="QD", pot=81,
         hands=D13_HANDS, bids=PASS8 + " 0:pass 1:pass 2:pass 3:pass",
         expected={"contract": "passed", "score": [0, 0], "pot": 81},
         why="Nobody bids in any of the three rounds: passed out 0-0; a passed deal has no contract comparison, "
         "so the pot of 81 stays open (§3.3, §6.3)."),
    # ---- invalid
    dict(name="classic/invalid/void_must_trump", ruleset="classic", dealer=0, turned="QD",
         hands=D6_HANDS, bids="1:pass 2:take",
         tricks=D6_TRICKS[:3] + ["1:7H 2:JH 3:8S!"],
         why="Trick 4: W is void in hearts, S (an opponent) is master and W holds JD 9D: W must trump (§5.3), "
         "8S is refused."),
    dict(name="classic/invalid/must_undertrump", ruleset="classic", dealer=0, turned="QD",
         hands=D6_HANDS, bids="1:pass 2:take",
         tricks=D6_TRICKS[:6] + ["0:9H 1:KD 2:QS!"],
         why="Trick 7: E has trumped with KD; S, void in hearts, holds only the lower QD: in classic S must "
         "still play it (pisser, §5.3); QS is refused (it is legal in all-trumps)."),
    dict(name="classic/invalid/part_of_a_run_declared", ruleset="classic", dealer=3, turned="7S",
         hands=D17_HANDS, bids="0:take", declares={0: ["9S 10S JS QS KS"]}, bad_declare=0,
         tricks=D17_TRICKS[:1],
         why="N's run 9S-AS must be declared as the quinte of its five highest (10S-AS); the quinte 9S-KS is "
         "part of a run and not a legal choice (§6.1)."),
    dict(name="classic/invalid/belote_without_the_pair", ruleset="classic", dealer=3, turned="8H",
         hands=D9_HANDS, bids="0:take", tricks=D9A_TRICKS[:4] + ["0:JH 1:7H 2:QH*!"],
         why="S holds QH but not KH: announcing belote with it is refused (§5 belote-rebelote)."),
    dict(name="classic/invalid/round2_take_of_turned_suit", ruleset="classic", dealer=3, turned="8C",
         hands=D9_HANDS_ROUND2, bids="0:pass 1:pass 2:pass 3:pass 0:take:C!",
         why="In round 2 a take must name a suit other than the turned card's (clubs) (§4)."),
    dict(name="classic/invalid/bid_out_of_turn", ruleset="classic", dealer=3, turned="9H",
         hands=D1_HANDS_N_TAKES, bids="1:take!",
         why="Dealer W: eldest N bids first; E may not (§4)."),
    dict(name="strict/invalid/monter_on_trump_lead", ruleset="strict", dealer=3, turned="9C",
         hands=D3_HANDS, bids="0:take", tricks=["0:9C 1:7C 2:AC!"],
         why="Trick 1: N leads 9C (trump); S holds JC, which beats it: S must play higher (monter, §5.1); "
         "AC does not beat 9C and is refused."),
    dict(name="all-trumps/invalid/monter_in_every_suit", ruleset="all-trumps", dealer=3, turned="QD",
         hands=D13_HANDS, bids=PASS8 + " 0:all-trumps", tricks=D13_TRICKS[:4] + ["0:KD* 1:7D!"],
         why="All-trumps trick 5: N leads KD; E holds AD, which beats it: E must play higher (§5.1, every suit "
         "in all-trumps); 7D is refused."),
    dict(name="all-trumps/invalid/no_belote_in_no_trumps", ruleset="all-trumps", dealer=3, turned="10C",
         hands=D12_HANDS, bids=PASS8 + " 0:pass 1:pass 2:no-trumps", tricks=["0:KS*!"],
         why="In no-trumps there is no belote (§5): N may play KS but not announce belote with it."),
]

# --------------------------------------------------------------------------- 2 players
P1_HANDS = {0: "AS 10S 9S AD 10D 8C 7C JH 10H", 1: "JS QS KS KD QD AC 10C 7H QH"}
P1_TRICKS = ["0:AS 1:JS", "0:10S 1:QS", "0:9S 1:KS", "1:AC 0:7C", "1:10C 0:8C", "1:KD 0:AD",
             "0:10D 1:QD", "0:JH 1:QH*", "0:10H 1:KH"]
P1_WHY = (
    "Hearts trump (turned KH). Seat 1 declares the tierce J-Q-K of spades (20), seat 0 has no sequence; "
    "seat 1 swaps its 7H for the turned KH, completing KH+QH, announced with QH: 20 (§7). Tricks: "
    "0 13 (AS 11 + JS 2), 0 13 (10S 10 + QS 3), 1 4 (KS), 1 11 (AC), 1 10 (10C), 0 15 (KD 4 + AD 11), "
    "0 13 (10D 10 + QD 3), 0 23 (JH 20 + QH 3), 0 14 + 10 = 24 (10H beats KH: 10 + 4). Seat 0: "
    "13+13+15+13+23+24 = 101; seat 1: 4+11+10 + 20 + 20 = 65 (cards played 116 + 10 = 126)."
)
P2_HANDS = {1: "7S 8S 9S AH KH 10D JD QC 8C", 0: "JS AS 10S 10H QH AD 9D AC 7C"}
P2_TRICKS = ["1:9S 0:AS", "1:AH 0:10H", "1:KH 0:QH", "1:JD 0:9D", "1:8C 0:7C", "1:7S 0:JS",
             "0:10S 1:8S", "0:AD 1:10D", "0:AC 1:QC"]
P3_HANDS = {0: "8D 9D 10D JC 7C 7S 8S AH 8H", 1: "QS KS AS 9C 8C AD KD JH 9H"}
P3_TRICKS = ["0:JC 1:8C", "0:7C 1:9C", "1:AS 0:7S", "1:KS 0:8S", "1:QS 0:8H", "1:AD 0:8D",
             "1:KD 0:9D", "1:JH 0:AH", "0:10D 1:9H"]
P4_HANDS = {1: "7D 8D 9D 10D 7S 8S 9S JH 9H", 0: "QC KC AC AD KD AS 10S 10H KH"}
P4_TRICKS = ["1:JH 0:KH", "1:9H 0:10H", "1:7D 0:AD", "0:AC 1:8D", "0:KC 1:7S", "0:QC 1:8S",
             "0:AS 1:9S", "0:10S 1:9D", "0:KD 1:10D"]
P5_HANDS = {1: "8S 9S 10S KD QD KH QH KC QC", 0: "8D 9D 10D AS KS AH 10H AC 10C"}
P5_TRICKS = ["1:10S 0:AS", "0:KS 1:9S", "0:AH 1:QH", "0:10H 1:KH", "0:AC 1:QC", "0:10C 1:KC",
             "0:8D 1:QD", "1:KD 0:9D", "0:10D 1:8S"]
P6_HANDS = {0: "7C 8C 9C 10C JC QC AD 10D JS", 1: "7H 8H 9H 10H 7S AS 9S KC AC"}
P6_TRICKS = ["0:JS 1:10S", "0:AD 1:AS", "1:AC 0:7C", "1:KC 0:QC", "1:7H 0:8C", "1:8H 0:9C",
             "1:9H 0:10D", "1:10H 0:JC", "1:9S 0:10C"]
P7_HANDS = {0: "9H 10H JH KS QS AD 7D 8C 7C", 1: "9C 10C JC JS 7S AH KH 10D KD"}
P7_TRICKS = ["0:AD 1:KD", "0:7D 1:10D", "1:JS 0:QS*", "1:9S 0:KS", "1:AH 0:9H", "1:KH 0:10H",
             "0:JH 1:9C", "0:8C 1:10C", "1:JC 0:7C"]

TWO = [
    dict(name="two-player/made_exchange_completes_belote", ruleset="two-player", dealer=1, turned="KH",
         hands=P1_HANDS, bids="0:take", declare_order=[(1, ["JS QS KS"])], exchange=1, tricks=P1_TRICKS,
         expected={"contract": "made", "score": [101, 65]},
         why="Seat 0 (eldest) takes the turned hearts in round 1. " + P1_WHY
         + " Taker 101 > 65: both record their totals [101, 65]."),
    dict(name="two-player/taker_less_opponent_records_both", ruleset="two-player", dealer=1, turned="KH",
         hands=P1_HANDS, bids="0:pass 1:take", declare_order=[(1, ["JS QS KS"])], exchange=1, tricks=P1_TRICKS,
         expected={"contract": "dedans", "score": [166, 0]},
         why="Seat 0 passes, seat 1 (dealer) takes the turned hearts. " + P1_WHY
         + " Taker 65 < 101: the taker records nothing, the opponent both totals 101 + 65 = 166."),
    dict(name="two-player/schmeiss_refused_round1_equal_totals", ruleset="two-player", dealer=0, turned="KS",
         hands=P2_HANDS, bids="1:schmeiss 0:refuse", declare_order=[(1, ["7S 8S 9S"])], tricks=P2_TRICKS,
         expected={"contract": "tie", "score": [75, 0]},
         why="Eldest seat 1 schmeisses, seat 0 refuses: seat 1 takes the turned suit, spades (§7). Seat 1 "
         "declares the tierce 7-8-9 of spades (20), seat 0 has none; seat 1 keeps its 7S. Tricks: 1 25 "
         "(9S 14 beats AS 11), 1 21 (AH 11 + 10H 10), 1 7 (KH 4 + QH 3), 1 2 (JD 2 + 9D), 1 0 (8C beats 7C), "
         "0 20 (JS 20 + 7S), 0 10 (10S + 8S), 0 21 (AD 11 + 10D 10), 0 14 + 10 = 24 (AC 11 + QC 3). Seat 1: "
         "25+21+7+2+0 = 55 + 20 = 75; seat 0: 20+10+21+24 = 75 (cards 120 + 10 = 130). Equal: the taker "
         "records nothing, the opponent its 75."),
    dict(name="two-player/schmeiss_refused_round2_names_trump_taker_less", ruleset="two-player", dealer=1,
         turned="10H", hands=P3_HANDS, bids="0:pass 1:pass 0:schmeiss 1:refuse 0:name:C",
         declare_order=[(0, ["8D 9D 10D"]), (1, ["QS KS AS"])], tricks=P3_TRICKS,
         expected={"contract": "dedans", "score": [0, 120]},
         why="Both pass round 1; round 2 seat 0 schmeisses, seat 1 refuses: seat 0 takes and names clubs (§7); "
         "trump is not the turned suit, so no exchange although seat 0 holds 7C. Sequences: tierce to the 10 "
         "(seat 0) vs tierce to the ace (seat 1): equal length, higher top wins: seat 1 scores 20. Tricks: "
         "0 20 (JC + 8C), 1 14 (9C 14 beats 7C), 1 11 (AS + 7S), 1 4 (KS + 8S), 1 3 (QS; seat 0 void, no "
         "trump left: 8H), 1 11 (AD + 8D), 1 4 (KD + 9D), 0 13 (AH 11 + JH 2), 0 10 + 10 = 20 (10D; 9H). Seat 0: "
         "20+13+20 = 53; seat 1: 14+11+4+3+11+4 = 47 + 20 = 67. Taker less: opponent records 53 + 67 = 120."),
    dict(name="two-player/round2_take_longer_sequence_scores_all", ruleset="two-player", dealer=0,
         turned="KS", hands=P4_HANDS, bids="1:pass 0:pass 1:take:H",
         declare_order=[(1, ["7D 8D 9D 10D", "7S 8S 9S"]), (0, ["QC KC AC"])], tricks=P4_TRICKS,
         expected={"contract": "made", "score": [50, 142]},
         why="Both pass round 1; seat 1 names hearts in round 2 (no exchange: not the turned suit). Seat 1's "
         "best sequence is a quarte (4 cards) against seat 0's tierce: longer wins, and seat 1 scores all its "
         "sequences: 50 + 20 = 70 (§7). Tricks: 1 24 (JH 20 + KH 4), 1 24 (9H 14 + 10H 10), 0 11 (AD; 7D), "
         "0 11 (AC; 8D), 0 4 (KC), 0 3 (QC), 0 11 (AS; 9S), 0 10 (10S; seat 1 void: 9D), 1 14 + 10 = 24 (10D "
         "beats KD). Seat 1: 24+24+24 = 72 + 70 = 142; seat 0: 11+11+4+3+11+10 = 50. Taker more: [50, 142]."),
    dict(name="two-player/equal_sequences_trump_wins", ruleset="two-player", dealer=0, turned="AD",
         hands=P5_HANDS, bids="1:pass 0:take", declare_order=[(0, ["8D 9D 10D"]), (1, ["8S 9S 10S"])],
         tricks=P5_TRICKS, expected={"contract": "made", "score": [139, 3]},
         why="Seat 1 passes, seat 0 takes diamonds. Tierces 8-9-10 of diamonds (seat 0) and of spades (seat 1): "
         "same length and top, the trump one wins: seat 0 scores 20. Seat 1 holds KD+QD but does not announce. "
         "Tricks: 0 21 (10S 10 + AS 11), 0 4 (KS), 0 14 (AH + QH), 0 14 (10H + KH), 0 14 (AC + QC), 0 14 "
         "(10C + KC), 1 3 (QD beats 8D), 0 18 (9D 14 beats KD 4), 0 10 + 10 = 20. Seat 0: "
         "21+4+14+14+14+14+18+20 = 119 + 20 = 139; seat 1: 3. Taker more: [139, 3]."),
    dict(name="two-player/run_of_6_is_50_exchange_by_taker", ruleset="two-player", dealer=1, turned="10S",
         hands=P6_HANDS, bids="0:pass 1:take",
         declare_order=[(1, ["7H 8H 9H 10H"]), (0, ["7C 8C 9C 10C JC QC"])], exchange=1, tricks=P6_TRICKS,
         expected={"contract": "made", "score": [80, 96]},
         why="Seat 1 takes spades in round 1 and swaps its 7S for the turned 10S. Seat 0's six clubs 7-Q are "
         "one sequence worth 50 (4 or more = 50, no split with two players) and longer than seat 1's quarte: "
         "seat 0 scores 50. Tricks: 0 30 (JS 20 + 10S 10), 1 22 (seat 1 void in diamonds must trump: AS 11 + "
         "AD 11), 1 11 (AC), 1 7 (KC 4 + QC 3), 1 0, 1 0 (seat 0 void in hearts, no trump: discards), 1 10 "
         "(10D), 1 12 (10H 10 + JC 2), 1 24 + 10 = 34 (9S 14 + 10C 10). Seat 1: 22+11+7+10+12+34 = 96; "
         "seat 0: 30 + 50 = 80. Taker more: [80, 96]."),
    dict(name="two-player/equal_sequences_cancel_opponent_belote", ruleset="two-player", dealer=1, turned="9S",
         hands=P7_HANDS, bids="0:pass 1:take", declare_order=[(1, ["9C 10C JC"]), (0, ["9H 10H JH"])],
         exchange=1, tricks=P7_TRICKS, expected={"contract": "made", "score": [51, 84]},
         why="Seat 1 takes spades, swaps 7S for the turned 9S. Tierces 9-10-J of clubs and of hearts, neither "
         "trump: equal, nobody scores (§7). Seat 0 announces belote with QS: 20. Tricks: 0 15 (AD 11 + KD 4), "
         "1 10 (10D), 1 23 (JS 20 + QS 3), 1 18 (9S 14 + KS 4), 1 11 (AH), 0 14 (10H beats KH), 0 2 (seat 1 "
         "void, no trump left: 9C), 1 10 (10C), 1 2 + 10 = 12 (JC). Seat 0: 15+14+2 + 20 = 51; seat 1: "
         "10+23+18+11+10+12 = 84. Taker more: [51, 84]."),
    dict(name="two-player/both_sequences_left_undeclared", ruleset="two-player", dealer=0, turned="AD",
         hands=P5_HANDS, bids="1:pass 0:take", tricks=P5_TRICKS, expected={"contract": "made", "score": [119, 3]},
         why="The deal of equal_sequences_trump_wins with no declare action at all: both players hold a tierce "
         "and both decline (an absent declare means nothing declared, for each of the two choices in a row). "
         "Tricks as there: seat 0 21+4+14+14+14+14+18+20 = 119, seat 1 3 (QD beats 8D). No sequences, no "
         "belote announced: taker 119 > 3, [119, 3]."),
    dict(name="two-player/schmeiss_accepted_round1", ruleset="two-player", dealer=1, turned="KH",
         hands=P1_HANDS, bids="0:schmeiss 1:accept",
         expected={"contract": "passed", "score": [0, 0]},
         why="Seat 0 schmeisses, seat 1 accepts: the deal is redealt by the same dealer, 0-0 (§7)."),
    dict(name="two-player/schmeiss_accepted_round2", ruleset="two-player", dealer=1, turned="10H",
         hands=P3_HANDS, bids="0:pass 1:pass 0:pass 1:schmeiss 0:accept",
         expected={"contract": "passed", "score": [0, 0]},
         why="Both pass round 1; in round 2 seat 0 passes, seat 1 schmeisses, seat 0 accepts: redeal, 0-0."),
    dict(name="two-player/double_pass", ruleset="two-player", dealer=0, turned="KS",
         hands=P4_HANDS, bids="1:pass 0:pass 1:pass 0:pass",
         expected={"contract": "passed", "score": [0, 0]},
         why="Both pass in both rounds: the dealer changes and the deal is redealt, 0-0 (§7)."),
    # ---- invalid
    dict(name="two-player/invalid/void_must_trump", ruleset="two-player", dealer=1, turned="10S",
         hands=P6_HANDS, bids="0:pass 1:take",
         declare_order=[(1, ["7H 8H 9H 10H"]), (0, ["7C 8C 9C 10C JC QC"])], exchange=1,
         tricks=["0:JS 1:10S", "0:AD 1:9H!"],
         why="Trick 2: seat 1 cannot follow diamonds and holds trumps (AS 9S): it must play a trump (§7)."),
    dict(name="two-player/invalid/no_exchange_after_other_suit", ruleset="two-player", dealer=1, turned="10H",
         hands=P3_HANDS, bids="0:pass 1:pass 0:schmeiss 1:refuse 0:name:C",
         declare_order=[(0, ["8D 9D 10D"]), (1, ["QS KS AS"])], exchange=0, bad_exchange=True,
         why="Trump (clubs) was named in round 2 and is not the turned card's suit: there is no trump-7 "
         "exchange (§7), so seat 0's exchange is refused."),
    dict(name="two-player/invalid/schmeiss_answered_by_bidder", ruleset="two-player", dealer=1, turned="KH",
         hands=P1_HANDS, bids="0:schmeiss 0:accept!",
         why="The other player answers a schmeiss (§7), not the bidder."),
]

# ---- RULES.md §6.4 options: no declarations, contrée (the cards of D2, D3, D7 above, already checked)
CONTREE = {"contree": "on"}
NO_DECLARATIONS = {"declarations": "off"}
OPTIONS = [
    dict(name="classic/contree_doubled_dedans", ruleset="classic", dealer=3, turned="7S", options=CONTREE,
         hands=D2_HANDS, bids="0:pass 1:take", calls="2:pass 0:contre 1:pass 3:pass", declares={1: ["7D 8D 9D"]},
         tricks=D2_TRICKS, expected={"contract": "dedans", "score": [324, 20]},
         why="E took; the defenders call from the seat after the taker: S passes, N doubles (contre); the "
         "attackers from the taker: E and W pass (§6.4). " + D2_TRICKS_WHY + " classic: 76 < 86, dedans. "
         "Doubled: the defenders NS score 162 x 2 = 324, the attackers 0 trick points; EW's tierce is scored "
         "as undoubled, 20 (§6.4, §6.2)."),
    dict(name="classic/contree_redoubled_capot", ruleset="classic", dealer=3, turned="QS", options=CONTREE,
         hands=D7_HANDS, bids="0:take", calls="1:contre 0:surcontre", declares={0: ["9S 10S JS QS"], 1: ["7H 8H 9H"]},
         tricks=D7_TRICKS, expected={"contract": "made", "score": [1058, 0]},
         why="N took; E (the seat after the taker) doubles, which ends the defenders' calls; N (the taker) "
         "redoubles, which ends the calls (§6.4). " + D7_TRICKS_WHY + " Made with every trick, redoubled: NS "
         "252 x 4 = 1008 + the quarte 50 (it beats E's tierce, not multiplied) = 1058, EW 0 (§6.4)."),
    dict(name="classic/no_declarations_carres_not_scored", ruleset="classic", dealer=3, turned="9C",
         options=NO_DECLARATIONS, hands=D3_HANDS, bids="0:take", tricks=D3_TRICKS,
         expected={"contract": "made", "score": [132, 30]},
         why=D3_WHY + " With declarations off nobody is asked to declare and the carrés score nothing (§6.4): "
         "NS 132, EW 30."),
    dict(name="strict/contree_doubled_made_rounded", ruleset="strict", dealer=3, turned="7S", options=CONTREE,
         hands=D2_HANDS, bids="0:pass 1:take", calls="2:contre 1:pass 3:pass", declares={1: ["7D 8D 9D"]},
         tricks=D2_TRICKS, expected={"contract": "made", "score": [0, 340]},
         why="E took; S doubles at once; E and W pass (§6.4). " + D2_TRICKS_WHY + " strict: EW 76 + 20 = 96 > "
         "86, made. Doubled: EW 162 x 2 = 324 + the tierce 20 = 344, rounded after everything to 340; NS 0 "
         "(§6.4, §6.2 rounding)."),
    dict(name="strict/no_declarations_dedans", ruleset="strict", dealer=3, turned="7S", options=NO_DECLARATIONS,
         hands=D2_HANDS, bids="0:pass 1:take", tricks=D2_TRICKS, expected={"contract": "dedans", "score": [160, 0]},
         why=D2_TRICKS_WHY.replace(" E declares the tierce 7D-8D-9D (20), nobody else declares: EW win the "
                                   "comparison.", "") + " With declarations off E's tierce is no declaration "
         "(§6.4): EW 76 < NS 86, dedans (made_by_declarations with it): NS 162 -> 160, EW 0."),
    dict(name="classic/invalid/contre_by_an_attacker", ruleset="classic", dealer=3, turned="7S", options=CONTREE,
         hands=D2_HANDS, bids="0:pass 1:take", calls="1:contre!", tricks=D2_TRICKS,
         why="E took: only a defender (S, then N) may double (§6.4)."),
    dict(name="classic/invalid/surcontre_without_a_contre", ruleset="classic", dealer=3, turned="7S",
         options=CONTREE, hands=D2_HANDS, bids="0:pass 1:take", calls="2:pass 0:pass 1:surcontre!", tricks=D2_TRICKS,
         why="E took; S and N pass: nobody doubled, so the calls are over and E may not redouble (§6.4)."),
    dict(name="classic/invalid/call_out_of_turn", ruleset="classic", dealer=3, turned="7S", options=CONTREE,
         hands=D2_HANDS, bids="0:pass 1:take", calls="0:contre!", tricks=D2_TRICKS,
         why="E took: the defenders call from the seat after the taker, S first; N calls out of turn (§6.4)."),
    dict(name="classic/invalid/declaration_with_declarations_off", ruleset="classic", dealer=3, turned="7S",
         options=NO_DECLARATIONS, hands=D2_HANDS, bids="0:pass 1:take", declares={1: ["7D 8D 9D"]}, bad_declare=1,
         tricks=D2_TRICKS, why="With declarations off no seat is asked to declare (§6.4): E's declare is refused."),
]

SPECS = FOUR + TWO + OPTIONS


def main() -> None:
    root = Path(__file__).resolve().parent / "cases"
    for path in write(SPECS, root):
        print(path.relative_to(root))


if __name__ == "__main__":
    main()
