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

:func:`search` is a fail-soft alpha-beta; :func:`solve` finds the exact value by
null-window searches that halve the interval of possible values. A transposition table of
bounds is kept at trick starts only, keyed by the cards still held (their owners are fixed
within a deal), the leader and the capot state; a generation number in the key empties it
for the next deal without clearing memory. Two legal cards of one hand, one suit and the
same points with no other unplayed card (nor a card of the trick) between them are
equivalent: one is searched. Cards are tried in a heuristic order (the table's best lead,
winning cards, points to a partner who is master, cheap discards), ties by history.

Legal cards mirror :meth:`referee.rules.deal.DealState.legal_card_mask` (RULES.md §5,
§7 "Play") exactly; ``tests/analysis/test_solver_brute.py`` checks them against it on
every node of thousands of endgames.

This module holds only numeric code (numpy arrays and integers) and lives in the bot SDK
so that the arena's analysis (:mod:`arena.analysis.solver` builds its inputs from the
rules engine) and bots (``sample_bots/expert`` builds them from an observation) run the
same search. It needs ``numpy`` and ``numba`` (not dependencies of the SDK itself: the
arena's environment has them; importing :mod:`belote_arena_sdk` never imports this module).

**Compiled once.** The functions are compiled with numba's cache (``cache=True``): the
first import compiles them (~10–20 s) into ``__pycache__`` beside this file (``make setup``
does it); later imports load the machine code (~1–3 s). A sandboxed bot sees this folder
read-only, where numba would not use its cache (it insists on a writable folder) and would
compile again; :func:`_use_read_only_cache` then copies the cache files into a private
temporary folder and points numba there (``NUMBA_CACHE_DIR``), before anything compiles.

**Budget.** ``ws[W_LIMIT]`` (0: none) bounds the nodes of a search: past it each node returns
at once, the result is meaningless (:func:`aborted` tells), and the table's entries of that
generation must not be trusted again (start a new generation). The entry points release the
GIL (``nogil``), so another thread can stop a search under way by setting ``ws[W_LIMIT] = 1``
(a wall-clock deadline: a bot's watchdog).

Each recursive call passes three arrays (numba copies an
array's descriptor per argument, so they are packed): Each recursive call passes three arrays (numba copies an
array's descriptor per argument, so they are packed): ``tab`` the per-card tables,
``tt`` the transposition table, ``ws`` the workspace (rules, hands, the trick's cards,
counters, the history heuristic, the move-ordering buffers).
"""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np


def _use_read_only_cache() -> str | None:
    """Where numba finds this module's compiled code when ``__pycache__`` beside it is read-only
    (a sandbox): a private copy of its cache files in the temporary folder, set as numba's
    cache folder before the first compile. ``None`` (numba's own choice) when the folder is
    writable or the user already set ``NUMBA_CACHE_DIR``."""
    import hashlib

    here = os.path.dirname(os.path.abspath(__file__))
    pycache = os.path.join(here, "__pycache__")
    if os.environ.get("NUMBA_CACHE_DIR") or os.access(pycache if os.path.isdir(pycache) else here, os.W_OK):
        return None
    root = os.path.join(tempfile.gettempdir(), "belote-dd-numba-cache")
    # numba's folder for a source file's cache under NUMBA_CACHE_DIR (numba.core.caching,
    # _CacheLocator.get_suitable_cache_subpath): the folder's name and a SHA-1 of its path
    sub = os.path.join(root, "_".join([os.path.basename(here), hashlib.sha1(here.encode()).hexdigest()]))
    os.makedirs(sub, exist_ok=True)
    stem = os.path.splitext(os.path.basename(__file__))[0] + "."
    if os.path.isdir(pycache):
        for name in os.listdir(pycache):
            if name.startswith(stem) and name.endswith((".nbi", ".nbc")):
                shutil.copyfile(os.path.join(pycache, name), os.path.join(sub, name))
    os.environ["NUMBA_CACHE_DIR"] = root
    return root


CACHE_DIR = _use_read_only_cache()
"""The private copy of the compiled code's cache in use (a read-only install), or ``None``."""

from numba import njit  # noqa: E402  (numba reads NUMBA_CACHE_DIR when it is imported)

# --- tab: int64[3, 32], per card (RULES.md §2 for the trump mode) ----------------------
T_STRENGTH = 0       # strength within its suit's order (higher wins)
T_POINTS = 1         # card points
T_ABOVE = 2          # mask of the same suit's stronger cards

# --- ws: the int64 workspace -----------------------------------------------------------
R_SEATS = 0          # 4, or 2 (two-player)
R_TRUMP = 1          # the trump suit 0..3, or -1 (all-trumps, no-trumps)
R_MONTER = 2         # bit per suit whose lead obliges a higher card (§5.1 monter)
R_OVERTRUMP = 3      # void: must trump higher than the trick's best trump when able (§5.3)
R_UNDERTRUMP = 4     # void, only lower trumps: must still trump (pisser, §5.3)
R_VS_OPPONENT = 5    # the trump obligation only when an opponent is master (§5.2)
R_DIX = 6            # dix de der, points
R_CAPOT_HALF = 7     # half the capot bonus, points (45; 0 in two-player)
W_HANDS = 10         # 4 hands (card masks)
W_TRICK = 14         # the trick's cards in play order
W_NODES = 18         # nodes searched
W_DEPTH = 19         # plies from the root (indexes the ordering buffers)
W_GEN = 20           # the transposition table's generation (one per deal)
W_LIMIT = 21         # a node budget: past it every node returns at once (0 = none; see ``aborted``)
W_HIST = 32          # history heuristic: [seat * 32 + card]
W_BUF = 160          # ordering buffers: per ply, pairs (card, score)
BUF_STRIDE = 24
WS_LEN = W_BUF + 40 * BUF_STRIDE

TT_BITS = 20
TT_SIZE = 1 << TT_BITS
INF = 1 << 20
ZERO = np.int64(0)   # typed constants for recursive calls (numba's cache needs them)
NONE = np.int64(-1)
_OFF = 1 << 20       # a packed bound is value + _OFF in 22 bits
_M22 = (1 << 22) - 1

#: capot state: 0 no trick taken yet, 1 NS has taken every trick so far, 2 EW has, 3 neither.
_CAPOT_AFTER = np.array([[1, 2], [1, 3], [3, 2], [3, 3]], dtype=np.int64)


def new_table() -> np.ndarray:
    """A fresh transposition table: per slot the key and the packed lower bound, upper bound
    and best lead card."""
    return np.zeros((TT_SIZE, 2), np.int64)


def new_workspace() -> np.ndarray:
    """A fresh workspace (int64[WS_LEN]): rules, hands, trick, counters, buffers."""
    return np.zeros(WS_LEN, np.int64)


def aborted(ws: np.ndarray) -> bool:
    """Whether the last search ran out of its node budget ``ws[W_LIMIT]`` (its value is meaningless)."""
    return bool(ws[W_LIMIT]) and int(ws[W_NODES]) > int(ws[W_LIMIT])


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


@njit("i8(i8[:, :], i8[:], i8, i8, i8, i8, i8)", cache=True)
def legal_mask(tab, ws, seat, ntrick, led, best, best_seat):
    """The cards ``seat`` may play: RULES.md §5 rules 1–4 (§7 "Play" for two players)."""
    hand = ws[W_HANDS + seat]
    if ntrick == 0:
        return hand
    follow = hand & (np.int64(0xFF) << (8 * led))
    if follow:
        if (ws[R_MONTER] >> led) & 1 and (best >> 3) == led:
            higher = follow & tab[T_ABOVE, best]
            if higher:
                return higher
        return follow
    trump = ws[R_TRUMP]
    if trump < 0:
        return hand
    if ws[R_VS_OPPONENT] and (best_seat - seat) % 2 == 0:
        return hand
    trumps = hand & (np.int64(0xFF) << (8 * trump))
    if not trumps:
        return hand
    if not ws[R_OVERTRUMP]:
        return trumps
    if (best >> 3) == trump:
        higher = trumps & tab[T_ABOVE, best]
    else:
        higher = trumps
    if higher:
        return higher
    if ws[R_UNDERTRUMP]:
        return trumps
    return hand


@njit(cache=True, inline="always")
def _beats(card, best, tab, trump):
    if (card >> 3) == (best >> 3):
        return tab[T_STRENGTH, card] > tab[T_STRENGTH, best]
    return (card >> 3) == trump


@njit(cache=True, inline="always")
def _end_value(pts, team, capot, ws):
    # NS's points from the last trick (worth ``pts`` with the dix de der), with the capot's half bonus
    cap = _CAPOT_AFTER[capot, team]
    v = pts if team == 0 else 0
    if cap == 1:
        v += ws[R_CAPOT_HALF]
    elif cap == 2:
        v -= ws[R_CAPOT_HALF]
    return v


@njit(cache=True)
def _last_trick(tab, ws, leader, capot):
    """The forced last trick from its lead: NS's points with the dix de der and capot."""
    n = ws[R_SEATS]
    trump = ws[R_TRUMP]
    best = _bit_index(ws[W_HANDS + leader])
    best_seat = leader
    pts = tab[T_POINTS, best]
    for k in range(1, n):
        s = (leader + k) % n
        c = _bit_index(ws[W_HANDS + s])
        pts += tab[T_POINTS, c]
        if _beats(c, best, tab, trump):
            best, best_seat = c, s
    return _end_value(pts + ws[R_DIX], best_seat & 1, capot, ws)


#: numba signatures: the three arrays, then the position's scalars
_POSITION = "i8[:, :], i8[:, :], i8[:], i8, i8, i8, i8, i8, i8, i8, i8, i8, "


@njit("i8(" + _POSITION + "i8, i8)", cache=True, nogil=True)
def search(tab, tt, ws, ntrick, leader, led, best, best_seat, trick_pts, rem_pts, capot, tricks_left, alpha, beta):
    """NS's future trick points from this position, fail-soft within ``(alpha, beta)``.

    ``ws[W_TRICK:][:ntrick]`` are the cards of the trick in progress (``led`` its suit,
    ``best`` and ``best_seat`` its master, ``trick_pts`` their points), ``rem_pts`` the
    points of the cards still held, ``tricks_left`` counts the trick in progress.
    """
    n = ws[R_SEATS]
    ws[W_NODES] += 1
    if ws[W_LIMIT] and ws[W_NODES] > ws[W_LIMIT]:
        return alpha  # out of budget: the caller discards the result (and the table's generation)
    key = np.int64(0)
    slot = -1
    tt_card = -1
    rem_all = np.int64(0)
    for s in range(n):
        rem_all |= ws[W_HANDS + s]
    if ntrick == 0:
        if tricks_left == 1:
            return _last_trick(tab, ws, leader, capot)
        hi_b = rem_pts + ws[R_DIX]
        lo_b = 0
        if capot <= 1:
            hi_b += ws[R_CAPOT_HALF]
        if capot == 0 or capot == 2:
            lo_b -= ws[R_CAPOT_HALF]
        if hi_b <= alpha:
            return hi_b
        if lo_b >= beta:
            return lo_b
        gen = ws[W_GEN]
        key = rem_all | (np.int64(leader) << 32) | (np.int64(capot) << 34) | (gen << 36)
        h = ((key * np.int64(0x9E3779B97F4A7C15)) >> 40) & (TT_SIZE - 1)
        for probe in range(4):
            j = (h + probe) & (TT_SIZE - 1)
            if tt[j, 0] == key:
                slot = j
                break
            if tt[j, 0] == 0 or (tt[j, 0] >> 36) != gen:
                if slot < 0:
                    slot = j
                break
        if slot < 0:
            slot = h
        if tt[slot, 0] == key:
            packed = tt[slot, 1]
            lo = (packed & _M22) - _OFF
            hi = ((packed >> 22) & _M22) - _OFF
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
            tt_card = (packed >> 44) - 1
        else:
            tt[slot, 0] = key
            tt[slot, 1] = (np.int64(0) << 44) | (np.int64(INF + _OFF) << 22) | np.int64(-INF + _OFF)
    a0 = alpha
    b0 = beta
    seat = (leader + ntrick) % n
    trump = ws[R_TRUMP]
    legal = legal_mask(tab, ws, seat, ntrick, led, best, best_seat)
    hand = ws[W_HANDS + seat]
    # cards of other hands or of this trick: two of this hand's legal cards of one suit and
    # the same points with none of those between them in strength are equivalent (one is tried)
    others = rem_all & ~hand
    for i in range(ntrick):
        others |= np.int64(1) << ws[W_TRICK + i]
    partner_master = ntrick > 0 and ((best_seat - seat) & 1) == 0
    depth = ws[W_DEPTH]
    base = W_BUF + depth * BUF_STRIDE
    m = 0
    x = legal
    while x:
        low = x & -x
        x ^= low
        c = _bit_index(low)
        y = legal & tab[T_ABOVE, c] & ~low
        twin = False
        while y:
            dl = y & -y
            y ^= dl
            d = _bit_index(dl)
            if tab[T_POINTS, d] == tab[T_POINTS, c] and (tab[T_ABOVE, c] & ~tab[T_ABOVE, d] & ~dl & others) == 0:
                twin = True
                break
        if twin:
            continue
        pc = tab[T_POINTS, c]
        if c == tt_card:
            sc = 100000
        elif ntrick == 0:
            if (tab[T_ABOVE, c] & others) == 0:
                sc = 100 + pc
            else:
                sc = -pc - 4 * tab[T_STRENGTH, c]
        elif _beats(c, best, tab, trump) and not partner_master:
            sc = 60 + pc - tab[T_STRENGTH, c] if ntrick == n - 1 else 40 + tab[T_STRENGTH, c]
        elif _beats(c, best, tab, trump):
            sc = -20 - pc
        elif partner_master:
            sc = pc
        else:
            sc = -pc - tab[T_STRENGTH, c]
        sc = sc * 4096 + min(ws[W_HIST + 32 * seat + c], 4095)
        k = m
        while k > 0 and ws[base + 2 * (k - 1) + 1] < sc:
            ws[base + 2 * k] = ws[base + 2 * (k - 1)]
            ws[base + 2 * k + 1] = ws[base + 2 * (k - 1) + 1]
            k -= 1
        ws[base + 2 * k] = c
        ws[base + 2 * k + 1] = sc
        m += 1
    maximize = (seat & 1) == 0
    g = -INF if maximize else INF
    best_card = -1
    ws[W_DEPTH] = depth + 1
    for i in range(m):
        c = ws[base + 2 * i]
        bit = np.int64(1) << c
        ws[W_HANDS + seat] = hand ^ bit
        ws[W_TRICK + ntrick] = c
        if ntrick == 0:
            nled, nbest, nseat = c >> 3, c, seat
        elif _beats(c, best, tab, trump):
            nled, nbest, nseat = led, c, seat
        else:
            nled, nbest, nseat = led, best, best_seat
        tp = trick_pts + tab[T_POINTS, c]
        if ntrick + 1 == n and tricks_left == 1:
            v = _end_value(tp + ws[R_DIX], nseat & 1, capot, ws)
        elif ntrick + 1 == n:
            team = nseat & 1
            ns = tp if team == 0 else 0
            v = ns + search(tab, tt, ws, ZERO, nseat, NONE, ZERO, ZERO, ZERO, rem_pts - tab[T_POINTS, c], _CAPOT_AFTER[capot, team],
                            tricks_left - 1, alpha - ns, beta - ns)
        else:
            v = search(tab, tt, ws, ntrick + 1, leader, nled, nbest, nseat, tp, rem_pts - tab[T_POINTS, c], capot,
                       tricks_left, alpha, beta)
        ws[W_HANDS + seat] = hand
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
    ws[W_DEPTH] = depth
    if best_card >= 0:
        ws[W_HIST + 32 * seat + best_card] += tricks_left * tricks_left
    if slot >= 0 and tt[slot, 0] == key:
        packed = tt[slot, 1]
        lo = (packed & _M22) - _OFF
        hi = ((packed >> 22) & _M22) - _OFF
        mv = (packed >> 44) - 1
        if g <= a0:
            if g < hi:
                hi = g
        elif g >= b0:
            if g > lo:
                lo = g
            mv = best_card
        else:
            lo = g
            hi = g
            mv = best_card
        tt[slot, 1] = (np.int64(mv + 1) << 44) | (np.int64(hi + _OFF) << 22) | np.int64(lo + _OFF)
    return g


@njit("i8(" + _POSITION + "i8)", cache=True, nogil=True)
def solve(tab, tt, ws, ntrick, leader, led, best, best_seat, trick_pts, rem_pts, capot, tricks_left, guess):
    """The exact value of :func:`search` by null-window searches that halve the interval of
    possible values (fail-soft: each answer moves a bound past the probe), the first probe at
    ``guess`` when it lies inside (the table keeps the bounds between the probes). Halving
    took half the nodes of MTD(f)'s steps from a guess (median, classic first tricks): the
    values are fine-grained points."""
    lo = -ws[R_CAPOT_HALF]
    hi = rem_pts + trick_pts + ws[R_DIX] + ws[R_CAPOT_HALF]
    probe = guess if lo < guess <= hi else (lo + hi + 1) // 2
    while lo < hi:
        g = search(tab, tt, ws, ntrick, leader, led, best, best_seat, trick_pts, rem_pts, capot, tricks_left,
                   probe - 1, probe)
        if g < probe:
            hi = g
        else:
            lo = g
        probe = (lo + hi + 1) // 2
    return lo


@njit("i8(" + _POSITION + "i8[:], i8[:])", cache=True, nogil=True)
def card_values(tab, tt, ws, ntrick, leader, led, best, best_seat, trick_pts, rem_pts, capot, tricks_left,
                cards_out, values_out):
    """The exact value (NS's future trick points) of every legal card of the seat to play.

    Writes the cards to ``cards_out`` and their values to ``values_out`` (in card order)
    and returns how many there are.
    """
    n = ws[R_SEATS]
    seat = (leader + ntrick) % n
    trump = ws[R_TRUMP]
    legal = legal_mask(tab, ws, seat, ntrick, led, best, best_seat)
    hand = ws[W_HANDS + seat]
    guess = rem_pts // 2
    m = 0
    x = legal
    while x:
        low = x & -x
        x ^= low
        c = _bit_index(low)
        ws[W_HANDS + seat] = hand ^ low
        ws[W_TRICK + ntrick] = c
        if ntrick == 0:
            nled, nbest, nseat = c >> 3, c, seat
        elif _beats(c, best, tab, trump):
            nled, nbest, nseat = led, c, seat
        else:
            nled, nbest, nseat = led, best, best_seat
        tp = trick_pts + tab[T_POINTS, c]
        if ntrick + 1 == n:
            team = nseat & 1
            ns = tp if team == 0 else 0
            if tricks_left == 1:
                v = _end_value(tp + ws[R_DIX], team, capot, ws)
            else:
                v = ns + solve(tab, tt, ws, ZERO, nseat, NONE, ZERO, ZERO, ZERO, rem_pts - tab[T_POINTS, c],
                               _CAPOT_AFTER[capot, team], tricks_left - 1, guess - ns)
        else:
            v = solve(tab, tt, ws, ntrick + 1, leader, nled, nbest, nseat, tp, rem_pts - tab[T_POINTS, c], capot,
                      tricks_left, guess)
        ws[W_HANDS + seat] = hand
        cards_out[m] = c
        values_out[m] = v
        guess = v
        m += 1
    return m
