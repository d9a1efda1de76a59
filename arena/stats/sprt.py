"""Sequential probability ratio test between two bots on duplicate board pairs.

``arena sprt A B`` plays board pairs (RULES.md §8: one board at both tables,
seats swapped) until the evidence decides between

* H0: A is ``elo0`` Elo stronger than B (default 0: no stronger), and
* H1: A is ``elo1`` Elo stronger (default 50),

with error rates α (accepting H1 when H0 holds) and β (accepting H0 when H1
holds), or until ``max_boards`` board pairs (no decision).

**Unit and model.** The unit is the board pair and its result W/D/L, scored
1, ½, 0 — the unit of ``arena ratings``, so an Elo here means what it means
there: expected score ``s = 1/(1 + 10^(−elo/400))``. A board pair already
holds the two tables of one deal, the pairing that fishtest's pentanomial
model gets from game pairs; what is left is a trinomial outcome. The test is
the generalized SPRT of fishtest (Van den Bergh): the log-likelihood ratio of
the multinomial W/D/L probabilities of largest likelihood among those with
mean score s1 against those with mean score s0 (the draw rate is not
assumed, it is estimated from the results). The duplicate *margin* would
need fewer board pairs for close bots, but a test on margins is in points,
not Elo (its hypotheses would be t-values, fishtest's "normalized Elo"),
so its elo0/elo1 could not mean the Elo of the ratings table.

**Bounds.** Wald's: accept H1 when ``LLR ≥ log((1 − β)/α)``, H0 when
``LLR ≤ log(β/(1 − α))``.

**Estimate.** The Elo difference after the test with its 95% interval, from
:func:`arena.stats.ratings.fit_model` on the two entrants (same prior and draw
model as the ratings). A sequential test stops when the results lean far, so
this estimate is biased away from the bound it crossed; read it as a
description, the decision is the test's result.

**Blocks.** The match is played in blocks of :data:`BLOCK_BOARDS` boards, one table at
a time (:mod:`referee.match`); the test is checked once a block is stored, in board
order, so it may store up to a block's board pairs past its decision (``board_pairs``
against ``board_pairs_stored`` in ``sprt_tests``): kept, shown as played after the
decision, and left out of every rating (:meth:`arena.store.Store.board_pair_results`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from .ratings import fit_model
from .simulate import play_pair
from .tally import scores
#: Boards of a block in an SPRT's match (a tournament's are 100): new bot processes start
#: every block, so a block costs ~0.5 s of start-up; a smaller block stops sooner after a decision.
BLOCK_BOARDS = 20

__all__ = [
    "MODEL",
    "SimResult",
    "SprtSettings",
    "SprtState",
    "elo_to_score",
    "fixed_sample_size",
    "max_boards_warning",
    "llr",
    "simulate",
    "state_of",
    "wald_bounds",
]

#: The test's model, as stored.
MODEL = "gsprt-trinomial"

#: Pseudo-count added to each of W, D, L so that the maximum-likelihood
#: probabilities exist before every outcome has been seen (fishtest does the same).
_PSEUDO = 1e-3


def elo_to_score(elo: float | ArrayLike) -> NDArray[np.float64]:
    """Expected board-pair score of an entrant ``elo`` Elo stronger (any shape)."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=np.float64) / 400.0))


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds ``(log(β/(1−α)), log((1−β)/α))`` on the LLR.

    Raises:
        ValueError: α or β outside (0, 0.5).
    """
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < v < 0.5:
            raise ValueError(f"{name} must be between 0 and 0.5, got {v}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _lambda(p: NDArray[np.float64], s: NDArray[np.float64]) -> NDArray[np.float64]:
    """The Lagrange multiplier λ with Σ p_i·d_i / (1 + λ·d_i) = 0, d = (1, ½, 0) − s.

    p has shape (..., 3) (W, D, L frequencies, all > 0), s shape (...) or
    scalar in (0, 1). The function is decreasing in λ on (−1/(1−s), 1/s);
    bisection, vectorised.
    """
    d = np.array([1.0, 0.5, 0.0]) - np.asarray(s)[..., None]
    lo = np.broadcast_to(-1.0 / (1.0 - np.asarray(s)), p.shape[:-1]) * (1 - 1e-12)
    hi = np.broadcast_to(1.0 / np.asarray(s), p.shape[:-1]) * (1 - 1e-12)
    lo, hi = lo.copy(), hi.copy()
    for _ in range(60):
        mid = (lo + hi) / 2.0
        g = np.sum(p * d / (1.0 + mid[..., None] * d), axis=-1)
        up = g > 0
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    return (lo + hi) / 2.0


def llr(wins: ArrayLike, draws: ArrayLike, losses: ArrayLike, elo0: float, elo1: float) -> NDArray[np.float64]:
    """Generalized log-likelihood ratio of H1 (elo1) against H0 (elo0).

    Args:
        wins, draws, losses: board pairs A won, drew, lost (any broadcastable
            shapes: one test, or a whole simulated history at once).
        elo0, elo1: the hypotheses, A's advantage in Elo (elo0 < elo1).

    Returns:
        ``Σ_i n_i·log(p1_i / p0_i)`` over W, D, L, where p_k are the W/D/L
        probabilities of largest likelihood whose mean score is
        ``elo_to_score(elo_k)``: ``p_k,i = p̂_i / (1 + λ_k·(a_i − s_k))``,
        a = (1, ½, 0), p̂ the observed frequencies (module docstring).
        0 before any board pair.

    Raises:
        ValueError: elo0 ≥ elo1.
    """
    if not elo0 < elo1:
        raise ValueError(f"elo0 must be below elo1, got {elo0} and {elo1}")
    counts = np.stack(np.broadcast_arrays(np.asarray(wins, np.float64), np.asarray(draws, np.float64),
                                          np.asarray(losses, np.float64)), axis=-1)
    real = counts.sum(axis=-1)
    counts = counts + _PSEUDO
    n = counts.sum(axis=-1)
    p = counts / n[..., None]
    a = np.array([1.0, 0.5, 0.0])
    s0, s1 = float(elo_to_score(elo0)), float(elo_to_score(elo1))
    l0, l1 = _lambda(p, np.float64(s0)), _lambda(p, np.float64(s1))
    ratio = np.log1p(l0[..., None] * (a - s0)) - np.log1p(l1[..., None] * (a - s1))
    out = n * np.sum(p * ratio, axis=-1)
    return np.where(real > 0, out, 0.0)


def fixed_sample_size(elo0: float, elo1: float, alpha: float, beta: float, draw_rate: float) -> int:
    """Board pairs a fixed-sample test needs for the same hypotheses and errors.

    One-sided z-test of the mean score: ``n = ((z_{1−α} + z_{1−β})·σ / (s1 − s0))²``
    with σ² the score variance per board pair midway, ``s(1−s) − δ/4``
    (δ the draw rate; :mod:`arena.stats.ratings`, *Error bars*).
    """
    s0, s1 = float(elo_to_score(elo0)), float(elo_to_score(elo1))
    s = (s0 + s1) / 2.0
    var = s * (1.0 - s) - draw_rate / 4.0
    z = float(special.ndtri(1.0 - alpha) + special.ndtri(1.0 - beta))
    return math.ceil((z * math.sqrt(var) / (s1 - s0)) ** 2)


#: ``max_boards`` below this many times the fixed-sample size is warned about.
MAX_BOARDS_FACTOR = 2.0


#: The share of simulated tests ending undecided (at H0 or H1) from which :func:`max_boards_warning` warns.
UNDECIDED_WARN = 0.05


def max_boards_warning(settings: "SprtSettings", draw_rate: float = 0.1, reps: int = 200,
                       seed: int = 1) -> str | None:
    """A warning when ``max_boards`` is below about twice the fixed-sample size and at least
    :data:`UNDECIDED_WARN` of ``reps`` simulated tests end undecided at H0 or H1, else None.

    A truncated SPRT stops undecided when it reaches ``max_boards``; below
    about ``MAX_BOARDS_FACTOR`` × :func:`fixed_sample_size` that happens often
    (H0 0, H1 20, α = β = 0.05, 10% draws: fixed size 2,944; at 2,000 board
    pairs about 20–28% of tests end undecided when the truth is at either
    hypothesis). The warning gives the fixed size and the undecided shares of
    ``reps`` tests simulated at ``elo0`` and ``elo1`` (:func:`simulate`,
    ``draw_rate`` assumed).
    """
    fixed = fixed_sample_size(settings.elo0, settings.elo1, settings.alpha, settings.beta, draw_rate)
    if settings.max_boards >= MAX_BOARDS_FACTOR * fixed:
        return None
    at0 = simulate(settings.elo0, draw_rate, settings, reps=reps, seed=seed).inconclusive
    at1 = simulate(settings.elo1, draw_rate, settings, reps=reps, seed=seed + 1).inconclusive
    if max(at0, at1) < UNDECIDED_WARN:  # the simulation says it is enough (new-user trial 4: "0%, 1%" warned)
        return None
    return (f"--max-boards {settings.max_boards} is below about twice the {fixed} board pairs a fixed-size "
            f"test of these hypotheses and errors needs ({draw_rate:.0%} draws assumed): simulated, "
            f"{at0:.0%} of such tests end undecided when H0 holds, {at1:.0%} when H1 holds. "
            f"Give --max-boards {math.ceil(MAX_BOARDS_FACTOR * fixed)} or more, or a wider --elo1 - --elo0.")


@dataclass(frozen=True)
class SprtSettings:
    """The hypotheses and limits of one test (see the module docstring)."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_boards: int = 2000

    def check(self) -> None:
        """Raises ValueError on settings that make no test."""
        wald_bounds(self.alpha, self.beta)
        if not self.elo0 < self.elo1:
            raise ValueError(f"--elo0 must be below --elo1, got {self.elo0:g} and {self.elo1:g}")
        if self.max_boards < 1:
            raise ValueError(f"--max-boards must be at least 1, got {self.max_boards}")


@dataclass(frozen=True)
class SprtState:
    """Where a test stands after ``board_pairs`` board pairs.

    Attributes:
        board_pairs, wins, draws, losses: A's board-pair record so far.
        llr: the log-likelihood ratio (:func:`llr`).
        lower, upper: Wald's bounds.
        decision: ``"H1"`` (A is at least elo1 stronger, at error α),
            ``"H0"``, ``"inconclusive"`` (``max_boards`` reached) or
            ``None`` (go on).
        elo, elo_low, elo_high: A − B in Elo with its 95% interval
            (NaN with no board pairs; an infinite end at 100% or 0%).
    """

    board_pairs: int
    wins: int
    draws: int
    losses: int
    llr: float
    lower: float
    upper: float
    decision: str | None
    elo: float
    elo_low: float
    elo_high: float


def estimate(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """A − B in Elo with its 95% interval from a two-entrant fit (:mod:`arena.stats.ratings`)."""
    if wins + draws + losses == 0:
        return math.nan, math.nan, math.nan
    w = np.array([[0.0, wins + draws / 2.0], [losses + draws / 2.0, 0.0]])
    result = fit_model(["A", "B"], w, draws=np.array([[0, draws], [draws, 0]]))
    return result.difference("A", "B")  # open-ended after a sweep


def state_of(scores: ArrayLike, settings: SprtSettings) -> SprtState:
    """The test after the board pairs ``scores`` (A's 1, ½, 0), in the order played.

    The decision is taken at the first board pair where the LLR leaves the
    bounds (later board pairs, played while the decision was reached, are
    not counted); ``inconclusive`` once ``max_boards`` are played without.
    """
    s = np.asarray(scores, dtype=np.float64)[: settings.max_boards]
    lower, upper = wald_bounds(settings.alpha, settings.beta)
    w, d = np.cumsum(s == 1.0), np.cumsum(s == 0.5)
    l_ = np.arange(1, len(s) + 1) - w - d
    path = llr(w, d, l_, settings.elo0, settings.elo1) if len(s) else np.zeros(0)
    out = np.flatnonzero((path >= upper) | (path <= lower))
    if len(out):
        k = int(out[0])
        decision = "H1" if path[k] >= upper else "H0"
    else:
        k = len(s) - 1
        decision = "inconclusive" if len(s) >= settings.max_boards else None
    n = k + 1
    wins, draws = (int(w[k]), int(d[k])) if n else (0, 0)
    losses = n - wins - draws
    elo, low, high = estimate(wins, draws, losses)
    return SprtState(board_pairs=n, wins=wins, draws=draws, losses=losses, llr=float(path[k]) if n else 0.0,
                     lower=lower, upper=upper, decision=decision, elo=elo, elo_low=low, elo_high=high)


# --------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SimResult:
    """Outcome of many simulated tests: shares of H1, H0 and no decision, and
    the mean and 95th percentile of board pairs played."""

    accept_h1: float
    accept_h0: float
    inconclusive: float
    mean_boards: float
    p95_boards: float


def simulate(true_elo: float, draw_rate: float, settings: SprtSettings, reps: int, seed: int) -> SimResult:
    """Run ``reps`` tests on simulated board pairs (:mod:`arena.stats.simulate`) with
    A truly ``true_elo`` stronger; vectorised over the tests still running,
    a block of board pairs at a time."""
    rng = np.random.default_rng(seed)
    lower, upper = wald_bounds(settings.alpha, settings.beta)
    scores = play_pair(true_elo, draw_rate, (reps, settings.max_boards), rng)
    w, d = np.cumsum(scores == 1.0, axis=1), np.cumsum(scores == 0.5, axis=1)
    boards = np.full(reps, settings.max_boards)
    verdict = np.zeros(reps)  # +1 H1, -1 H0, 0 none
    active = np.arange(reps)
    start, block = 0, 64
    while len(active) and start < settings.max_boards:
        stop = min(settings.max_boards, start + block)
        n = np.arange(start + 1, stop + 1)[None, :]
        ww, dd = w[active, start:stop], d[active, start:stop]
        path = llr(ww, dd, n - ww - dd, settings.elo0, settings.elo1)
        crossed = (path >= upper) | (path <= lower)
        hit = crossed.any(axis=1)
        k = crossed.argmax(axis=1)
        done = active[hit]
        boards[done] = start + k[hit] + 1
        verdict[done] = np.where(path[hit, k[hit]] >= upper, 1.0, -1.0)
        active = active[~hit]
        start, block = stop, block * 2
    return SimResult(accept_h1=float(np.mean(verdict > 0)), accept_h0=float(np.mean(verdict < 0)),
                     inconclusive=float(np.mean(verdict == 0)), mean_boards=float(boards.mean()),
                     p95_boards=float(np.percentile(boards, 95)))


# --------------------------------------------------------------------------
# Storage (table sprt_tests, arena/store/schema.sql)
# --------------------------------------------------------------------------


def load(store, name: str) -> dict | None:
    """The stored test ``name`` as a dict of its columns, or None."""
    cur = store.con.execute("SELECT * FROM sprt_tests WHERE name = ?", [name])
    row = cur.fetchone()
    if row is None:
        return None
    return dict(zip([c[0] for c in cur.description], row, strict=True))


def save(store, name: str, a: str, b: str, settings: SprtSettings, state: SprtState, stored: int) -> None:
    """Insert or update the test ``name`` with its current state."""
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    status = state.decision or "running"

    def num(x: float) -> float | None:
        return None if math.isnan(x) else x
    store.con.execute(
        """INSERT INTO sprt_tests VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET status = excluded.status, board_pairs = excluded.board_pairs,
             board_pairs_stored = excluded.board_pairs_stored, wins = excluded.wins, draws = excluded.draws,
             losses = excluded.losses, llr = excluded.llr, elo = excluded.elo, elo_low = excluded.elo_low,
             elo_high = excluded.elo_high, updated_at = excluded.updated_at""",
        [name, name, a, b, MODEL, settings.elo0, settings.elo1, settings.alpha, settings.beta, settings.max_boards,
         status, state.board_pairs, stored, state.wins, state.draws, state.losses, state.llr, state.lower,
         state.upper, num(state.elo), num(state.elo_low), num(state.elo_high), now, now],
    )


def scores_in_order(store, tournament: str, a: str) -> NDArray[np.float64]:
    """A's board-pair scores in the tournament, in board order (the order played by one worker)."""
    rows = store.board_pair_results(tournament=tournament)
    if not len(rows):
        return np.zeros(0)
    s = scores(rows)
    if rows.entrants[rows.a[0]] != a:  # stored from B's side
        s = 1.0 - s
    return s[np.argsort(rows.board, kind="stable")]


def run_test(store, name: str, a: str, b: str, settings: SprtSettings, play: Callable, *,
             on_update: Callable[[SprtState, int], None] | None = None) -> SprtState:
    """Play board pairs of tournament ``name`` (A against B) until the test decides.

    Args:
        play: ``play(on_progress, stop)`` runs the tournament (e.g.
            :func:`arena.play.tournament.run` with those two arguments), calling
            ``on_progress(done, total)`` after stored board pairs and
            stopping after those in flight once ``stop`` is set.
        on_update: called with the state and the board pairs stored, after
            every check.

    Returns:
        The state; saved in ``sprt_tests`` after every check, so an
        interrupted test resumes from the stored board pairs.
    """
    import threading

    def check() -> SprtState:
        s = scores_in_order(store, name, a)  # once decided, without those stored past the decision
        st = state_of(s, settings)
        (stored,) = store.con.execute("SELECT count(*) FROM board_pairs JOIN matches USING (match_id) "
                                      "WHERE tournament = ?", [name]).fetchone()
        save(store, name, a, b, settings, st, stored)
        store.release()  # let readers (arena ratings) open the file between batches
        if on_update:
            on_update(st, len(s))
        return st

    state = check()
    if state.decision is not None:
        return state
    stop = threading.Event()

    def on_progress(done: int, total: int) -> None:
        if check().decision is not None:
            stop.set()

    play(on_progress, stop)
    return check()


# --------------------------------------------------------------------------
# Which bot a command-line argument names
# --------------------------------------------------------------------------


def resolve_bot(spec: str, registered: list) -> tuple[str, object]:
    """What ``arena sprt``'s bot argument names.

    Returns:
        ``("folder", Path)`` for a folder holding ``bot.toml``;
        ``("stored", bot)`` for a registered bot given as ``name@version`` or
        ``name`` (its newest version, by submission); ``("folder", Path)`` for
        the name of a sample bot (:data:`referee.evict.HOUSE_BOTS`: ``random``, ``greedy``,
        ``heuristic``, ``expert``), or its name and shipped version (``greedy@1.0.0``) where
        no registered bot has that key.

    Raises:
        ValueError: none of these; the message lists what would be accepted.
    """
    from pathlib import Path

    import sample_bots
    from referee.evict import HOUSE_BOTS

    path = Path(spec)
    if (path / "bot.toml").is_file():
        return "folder", path
    exact = [b for b in registered if b.key == spec]
    if exact:
        return "stored", exact[0]
    named = sorted((b for b in registered if b.name == spec), key=lambda b: b.submitted_at)
    if named:
        return "stored", named[-1]
    name, _, version = spec.partition("@")
    sample = Path(sample_bots.__path__[0]) / name
    if name and "/" not in name and (sample / "bot.toml").is_file():
        if not version:
            return "folder", sample
        from referee.manifest import load_manifest

        if load_manifest(sample).version == version:  # the sample as shipped, by its key (`greedy@1.0.0`)
            return "folder", sample
    versions = [b.version for b in sorted(registered, key=lambda b: b.submitted_at) if b.name == name]
    if version and versions:  # a registered name with another version (new-user trial 4: versions not said)
        raise ValueError(f"{spec!r}: {name} has no version {version!r}; registered versions: {', '.join(versions)} "
                         f"(give {name}@VERSION, or {name} alone for the newest)")
    known = sorted({b.name for b in registered} | set(HOUSE_BOTS))
    raise ValueError(f"{spec!r} is not a bot folder (holding bot.toml), a registered bot or a sample bot; "
                     f"known names: {', '.join(known)} (see `arena bots list`)")
