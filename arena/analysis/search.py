"""The double-dummy search: alpha-beta over bitboards, compiled with numba.

A position is every hand as a 32-bit card mask (bit ``suit * 8 + natural rank``, as in
:mod:`referee.rules.cards`), the trick in progress and the per-card tables of the trump
mode (strength within its suit, points, the mask of the same suit's stronger cards:
RULES.md §2). The search returns the **future trick points of NS** (seat 0, two
players) from the position: card points of the tricks still to finish plus the dix de
der, with a capot encoded additively (RULES.md §6.2): when one team takes every trick
of the deal, ``capot_half`` (45 for the 90-point capot bonus) is added for NS or taken
off for EW, so that ``2 * (NS points) - total`` is the capot-adjusted margin (±252 for a
capot). NS seats maximise, EW seats minimise; the score of a deal is a non-decreasing
function of that margin in every ruleset (:mod:`arena.analysis.solver`), so the same
play is perfect for both.

A transposition table of bounds is kept at trick starts only, keyed by the cards still
held (their owners are fixed within a deal), the leader and the capot state; a
generation number in the key empties it for the next deal without clearing memory.

Legal cards mirror :meth:`referee.rules.deal.DealState.legal_card_mask` (RULES.md §5,
§7 "Play") exactly; ``tests/analysis/test_solver_brute.py`` checks them against it on
every node of thousands of endgames.

This module holds only numeric code (numpy arrays and integers); :mod:`.solver` builds
its inputs from the rules engine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# --- the rules array: int64[9] ------------------------------------------------------
R_SEATS = 0          # 4, or 2 (two-player)
R_TRUMP = 1          # the trump suit 0..3, or -1 (all-trumps, no-trumps)
R_MONTER = 2         # bit per suit whose lead obliges a higher card (§5.1 monter)
R_OVERTRUMP = 3      # void: must trump higher than the trick's best trump when able (§5.3)
R_UNDERTRUMP = 4     # void, only lower trumps: must still trump (pisser, §5.3)
R_VS_OPPONENT = 5    # the trump obligation only when an opponent is master (§5.2)
R_DIX = 6            # dix de der, points
R_CAPOT_HALF = 7     # half the capot bonus, points (45; 0 in two-player)
R_RULES_LEN = 9

TT_BITS = 20
TT_SIZE = 1 << TT_BITS
NO_CARD = -1
ZERO = np.int64(0)
NONE = np.int64(-1)
INF = 1 << 20

#: capot state: 0 no trick taken yet, 1 NS has taken every trick so far, 2 EW has, 3 neither.
_CAPOT_AFTER = np.array([[1, 2], [1, 3], [3, 2], [3, 3]], dtype=np.int64)


def new_table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A fresh transposition table: keys, lower bounds, upper bounds, best lead card."""
    return (np.zeros(TT_SIZE, np.int64), np.zeros(TT_SIZE, np.int32), np.zeros(TT_SIZE, np.int32),
            np.zeros(TT_SIZE, np.int8))


@njit(cache=True, inline="always")
def _bit_index(b):
    # index of the lowest set bit of a power of two below 2**32
    i = 0
    if b & 0xFFFF0000:
        i += 16
        b >>= 16
    if b & 0xFF00:
        i += 8
        b >>= 8
    if b & 0xF0:
        i += 4
        b >>= 4
    if b & 0xC:
        i += 2
        b >>= 2
    if b & 0x2:
        i += 1
    return i


@njit(cache=True)
def legal_mask(hands, rules, strength, above, seat, ntrick, led, best, best_seat):
    """The cards ``seat`` may play: RULES.md §5 rules 1–4 (§7 "Play" for two players)."""
    hand = hands[seat]
    if ntrick == 0:
        return hand
    follow = hand & (np.int64(0xFF) << (8 * led))
    if follow:
        if (rules[R_MONTER] >> led) & 1 and (best >> 3) == led:
            higher = follow & above[best]
            if higher:
                return higher
        return follow
    trump = rules[R_TRUMP]
    if trump < 0:
        return hand
    if rules[R_VS_OPPONENT] and (best_seat - seat) % 2 == 0:
        return hand
    trumps = hand & (np.int64(0xFF) << (8 * trump))
    if not trumps:
        return hand
    if not rules[R_OVERTRUMP]:
        return trumps
    if (best >> 3) == trump:
        higher = trumps & above[best]
    else:
        higher = trumps
    if higher:
        return higher
    if rules[R_UNDERTRUMP]:
        return trumps
    return hand


@njit(cache=True, inline="always")
def _beats(card, best, strength, trump):
    if (card >> 3) == (best >> 3):
        return strength[card] > strength[best]
    return (card >> 3) == trump


@njit(cache=True, inline="always")
def _end_value(pts, team, capot, rules):
    # NS's points from the last trick (worth ``pts`` with the dix de der), with the capot's half bonus
    cap = _CAPOT_AFTER[capot, team]
    v = pts if team == 0 else 0
    if cap == 1:
        v += rules[R_CAPOT_HALF]
    elif cap == 2:
        v -= rules[R_CAPOT_HALF]
    return v


@njit(cache=True)
def _last_trick(hands, rules, strength, points, leader, capot):
    """The forced last trick from its lead: NS's points with the dix de der and capot."""
    n = rules[R_SEATS]
    trump = rules[R_TRUMP]
    best = _bit_index(hands[leader])
    best_seat = leader
    pts = points[best]
    for k in range(1, n):
        s = (leader + k) % n
        c = _bit_index(hands[s])
        pts += points[c]
        if _beats(c, best, strength, trump):
            best, best_seat = c, s
    return _end_value(pts + rules[R_DIX], best_seat & 1, capot, rules)


#: numba signatures: the position's 20 arguments, then each function's own
_POSITION = ("i8[:], i8[:], i8[:], i8[:], i8[:], i8[:], i4[:], i4[:], i1[:], i8, i8[:], "
             "i8, i8, i8, i8, i8, i8, i8, i8, i8, ")
_SIG = _POSITION + "i8, i8, i8[:, :], i8[:]"


@njit("i8(" + _SIG + ")", cache=True)
def search(hands, rules, strength, points, above, tt_keys, tt_lo, tt_hi, tt_move, gen, trick, ntrick, leader,
           led, best, best_seat, trick_pts, rem_pts, capot, tricks_left, alpha, beta, buf, stats):
    """NS's future trick points from this position, fail-soft within ``(alpha, beta)``.

    ``trick[:ntrick]`` are the cards of the trick in progress (``led`` its suit, ``best``
    and ``best_seat`` its master, ``trick_pts`` their points), ``rem_pts`` the points of
    the cards still held, ``tricks_left`` counts the trick in progress.
    """
    n = rules[R_SEATS]
    stats[0] += 1
    key = np.int64(0)
    slot = -1
    tt_card = -1
    if ntrick == 0:
        if tricks_left == 1:
            return _last_trick(hands, rules, strength, points, leader, capot)
        hi_b = rem_pts + rules[R_DIX]
        lo_b = 0
        if capot <= 1:
            hi_b += rules[R_CAPOT_HALF]
        if capot == 0 or capot == 2:
            lo_b -= rules[R_CAPOT_HALF]
        if hi_b <= alpha:
            return hi_b
        if lo_b >= beta:
            return lo_b
        rem = np.int64(0)
        for s in range(n):
            rem |= hands[s]
        key = rem | (np.int64(leader) << 32) | (np.int64(capot) << 34) | (np.int64(gen) << 36)
        h = ((key * np.int64(0x9E3779B97F4A7C15)) >> 40) & (TT_SIZE - 1)
        for probe in range(4):
            j = (h + probe) & (TT_SIZE - 1)
            if tt_keys[j] == key:
                slot = j
                break
            if tt_keys[j] == 0 or (tt_keys[j] >> 36) != gen:
                if slot < 0:
                    slot = j
                break
        if slot < 0:
            slot = h
        if tt_keys[slot] == key:
            lo = tt_lo[slot]
            hi = tt_hi[slot]
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
            tt_card = tt_move[slot]
        else:
            tt_keys[slot] = key
            tt_lo[slot] = -INF
            tt_hi[slot] = INF
            tt_move[slot] = -1
    a0 = alpha
    b0 = beta
    seat = (leader + ntrick) % n
    trump = rules[R_TRUMP]
    legal = legal_mask(hands, rules, strength, above, seat, ntrick, led, best, best_seat)
    # order the legal cards: a score per card, then insertion sort (best first)
    depth = stats[1]
    m = 0
    rem_all = np.int64(0)
    for s in range(n):
        rem_all |= hands[s]
    # cards of other hands or of this trick: two of this hand's legal cards of one suit and
    # the same points with none of those between them in strength are equivalent (one is tried)
    others = rem_all & ~hands[seat]
    for i in range(ntrick):
        others |= np.int64(1) << trick[i]
    partner_master = ntrick > 0 and ((best_seat - seat) & 1) == 0
    x = legal
    while x:
        low = x & -x
        x ^= low
        c = _bit_index(low)
        y = legal & above[c] & ~low
        twin = False
        while y:
            dl = y & -y
            y ^= dl
            d = _bit_index(dl)
            if points[d] == points[c] and (above[c] & ~above[d] & ~dl & others) == 0:
                twin = True
                break
        if twin:
            continue
        if c == tt_card:
            sc = 100000
        elif ntrick == 0:
            if (above[c] & others) == 0:
                sc = 100 + points[c]
            else:
                sc = -points[c] - 4 * strength[c]
        elif _beats(c, best, strength, trump) and not partner_master:
            sc = 60 + points[c] - strength[c] if ntrick == n - 1 else 40 + strength[c]
        elif _beats(c, best, strength, trump):
            sc = -20 - points[c]
        elif partner_master:
            sc = points[c]
        else:
            sc = -points[c] - strength[c]
        sc = sc * 4096 + min(stats[2 + 32 * seat + c], 4095)
        k = m
        while k > 0 and buf[depth, 2 * (k - 1) + 1] < sc:
            buf[depth, 2 * k] = buf[depth, 2 * (k - 1)]
            buf[depth, 2 * k + 1] = buf[depth, 2 * (k - 1) + 1]
            k -= 1
        buf[depth, 2 * k] = c
        buf[depth, 2 * k + 1] = sc
        m += 1
    maximize = (seat & 1) == 0
    g = -INF if maximize else INF
    best_card = -1
    stats[1] = depth + 1
    for i in range(m):
        c = buf[depth, 2 * i]
        bit = np.int64(1) << c
        hands[seat] ^= bit
        trick[ntrick] = c
        if ntrick == 0:
            nled, nbest, nseat = c >> 3, c, seat
        elif _beats(c, best, strength, trump):
            nled, nbest, nseat = led, c, seat
        else:
            nled, nbest, nseat = led, best, best_seat
        tp = trick_pts + points[c]
        if ntrick + 1 == n and tricks_left == 1:
            team = nseat & 1
            v = _end_value(tp + rules[R_DIX], team, capot, rules)
        elif ntrick + 1 == n:
            team = nseat & 1
            ns = tp if team == 0 else 0
            v = ns + search(hands, rules, strength, points, above, tt_keys, tt_lo, tt_hi, tt_move, gen, trick, ZERO,
                            nseat, NONE, ZERO, ZERO, ZERO, rem_pts - points[c], _CAPOT_AFTER[capot, team], tricks_left - 1,
                            alpha - ns, beta - ns, buf, stats)
        else:
            v = search(hands, rules, strength, points, above, tt_keys, tt_lo, tt_hi, tt_move, gen, trick,
                       ntrick + 1, leader, nled, nbest, nseat, tp, rem_pts - points[c], capot, tricks_left, alpha,
                       beta, buf, stats)
        hands[seat] ^= bit
        if maximize:
            if v > g:
                g = v
                best_card = c
            if g > alpha:
                alpha = g
            if g >= beta:
                break
        else:
            if v < g:
                g = v
                best_card = c
            if g < beta:
                beta = g
            if g <= alpha:
                break
    stats[1] = depth
    if best_card >= 0:
        stats[2 + 32 * seat + best_card] += tricks_left * tricks_left
    if slot >= 0 and tt_keys[slot] == key:
        if g <= a0:
            if g < tt_hi[slot]:
                tt_hi[slot] = g
        elif g >= b0:
            if g > tt_lo[slot]:
                tt_lo[slot] = g
            tt_move[slot] = best_card
        else:
            tt_lo[slot] = g
            tt_hi[slot] = g
            tt_move[slot] = best_card
    return g


@njit("i8(" + _POSITION + "i8, i8[:, :], i8[:])", cache=True)
def solve(hands, rules, strength, points, above, tt_keys, tt_lo, tt_hi, tt_move, gen, trick, ntrick, leader, led,
          best, best_seat, trick_pts, rem_pts, capot, tricks_left, guess, buf, stats):
    """The exact value of :func:`search` by MTD(f): null-window searches from ``guess``
    until the lower and upper bounds meet (the table keeps the bounds between them)."""
    lo = -INF
    hi = INF
    g = guess
    while lo < hi:
        beta = g + 1 if g == lo else g
        g = search(hands, rules, strength, points, above, tt_keys, tt_lo, tt_hi, tt_move, gen, trick, ntrick,
                   leader, led, best, best_seat, trick_pts, rem_pts, capot, tricks_left, beta - 1, beta, buf, stats)
        if g < beta:
            hi = g
        else:
            lo = g
    return g


@njit("i8(" + _POSITION + "i8[:], i8[:], i8[:, :], i8[:])", cache=True)
def card_values(hands, rules, strength, points, above, tt_keys, tt_lo, tt_hi, tt_move, gen, trick, ntrick, leader,
                led, best, best_seat, trick_pts, rem_pts, capot, tricks_left, cards_out, values_out, buf, stats):
    """The exact value (NS's future trick points) of every legal card of the seat to play.

    Writes the cards to ``cards_out`` and their values to ``values_out`` (in card order)
    and returns how many there are.
    """
    n = rules[R_SEATS]
    seat = (leader + ntrick) % n
    trump = rules[R_TRUMP]
    legal = legal_mask(hands, rules, strength, above, seat, ntrick, led, best, best_seat)
    guess = rem_pts // 2
    m = 0
    x = legal
    while x:
        low = x & -x
        x ^= low
        c = _bit_index(low)
        hands[seat] ^= low
        trick[ntrick] = c
        if ntrick == 0:
            nled, nbest, nseat = c >> 3, c, seat
        elif _beats(c, best, strength, trump):
            nled, nbest, nseat = led, c, seat
        else:
            nled, nbest, nseat = led, best, best_seat
        tp = trick_pts + points[c]
        if ntrick + 1 == n:
            team = nseat & 1
            ns = tp if team == 0 else 0
            if tricks_left == 1:
                v = _end_value(tp + rules[R_DIX], team, capot, rules)
            else:
                v = ns + solve(hands, rules, strength, points, above, tt_keys, tt_lo, tt_hi, tt_move, gen, trick,
                               ZERO, nseat, NONE, ZERO, ZERO, ZERO, rem_pts - points[c], _CAPOT_AFTER[capot, team],
                               tricks_left - 1, guess - ns, buf, stats)
        else:
            v = solve(hands, rules, strength, points, above, tt_keys, tt_lo, tt_hi, tt_move, gen, trick,
                      ntrick + 1, leader, nled, nbest, nseat, tp, rem_pts - points[c], capot, tricks_left,
                      guess, buf, stats)
        hands[seat] ^= low
        cards_out[m] = c
        values_out[m] = v
        guess = v
        m += 1
    return m
