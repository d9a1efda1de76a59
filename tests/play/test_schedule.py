"""Tests for arena.play.schedule: the duplicate round robin (RULES.md §8)."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.play.schedule import (
    SECRET_SEED_BITS,
    SUITS,
    BoardPair,
    board_seed,
    missing,
    new_seed,
    pair_index,
    pairs,
    schedule,
    suit_permutation,
)
from arena.store import seed_commitment

entrant_lists = st.lists(
    st.text(alphabet="abcdefgh_-.0123456789", min_size=1, max_size=6),
    min_size=2,
    max_size=9,
    unique=True,
)
seeds = st.integers(min_value=-(2**70), max_value=2**70)


# --------------------------------------------------------------------------
# Coverage: every pair, every board, both tables, exactly once
# --------------------------------------------------------------------------


def test_three_entrants_two_boards_by_hand() -> None:
    jobs = schedule(["A", "B", "C"], 2, seed=1)
    assert len(jobs) == 3 * 2
    assert sorted(j.key for j in jobs) == [
        ("A", "B", 0), ("A", "B", 1),
        ("A", "C", 0), ("A", "C", 1),
        ("B", "C", 0), ("B", "C", 1),
    ]  # fmt: skip
    # Board-major: all of board 0 before any of board 1.
    assert [j.board for j in jobs] == [0, 0, 0, 1, 1, 1]


def _check_round_robin(entrants: list[str], n_boards: int, seed: int) -> list[BoardPair]:
    jobs = schedule(entrants, n_boards, seed)
    expected = {(a, b, k) for a, b in itertools.combinations(entrants, 2) for k in range(n_boards)}
    keys = [j.key for j in jobs]
    assert len(keys) == len(set(keys)) == len(expected)
    assert set(keys) == expected

    # Every table (board, NS entrant, EW entrant) exactly once.
    tables = Counter((j.board, t.ns, t.ew) for j in jobs for t in j.tables)
    assert set(tables.values()) == {1}
    assert len(tables) == 2 * len(expected)
    for j in jobs:
        t1, t2 = j.tables
        assert (t1.number, t2.number) == (1, 2)
        # RULES.md §8: A holds NS at table 1, B at table 2; seats swapped.
        assert (t1.ns, t1.ew) == (j.a, j.b)
        assert (t2.ns, t2.ew) == (j.b, j.a)
        assert t1.suits == (0, 1, 2, 3)
        assert t2.suits == j.suits == suit_permutation(seed, j.board)
        assert j.deck_seed == board_seed(seed, j.board)
        assert entrants.index(j.a) < entrants.index(j.b)
        assert j.pair_index == pair_index(entrants.index(j.a), entrants.index(j.b))

    # The board set, and each board's deal and relabelling, are identical for all pairs.
    boards_of_pair: dict[tuple[str, str], set[int]] = {}
    deal_of_board: dict[int, set[tuple[int, tuple[int, int, int, int]]]] = {}
    for j in jobs:
        boards_of_pair.setdefault((j.a, j.b), set()).add(j.board)
        deal_of_board.setdefault(j.board, set()).add((j.deck_seed, j.suits))
    assert all(bs == set(range(n_boards)) for bs in boards_of_pair.values())
    assert all(len(d) == 1 for d in deal_of_board.values())
    return jobs


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
@pytest.mark.parametrize("n_boards", [1, 3])
def test_every_pair_plays_every_board_at_both_tables_once(n: int, n_boards: int) -> None:
    _check_round_robin([f"bot{i}" for i in range(n)], n_boards, seed=42)


@given(entrants=entrant_lists, n_boards=st.integers(1, 5), seed=seeds)
@settings(max_examples=60, deadline=None)
def test_round_robin_property(entrants: list[str], n_boards: int, seed: int) -> None:
    _check_round_robin(entrants, n_boards, seed)


@given(entrants=entrant_lists, n_boards=st.integers(1, 4), seed=seeds)
@settings(max_examples=60, deadline=None)
def test_partial_runs_are_balanced(entrants: list[str], n_boards: int, seed: int) -> None:
    """Any prefix: pairs within ±1 board, entrants within ±2 board pairs."""
    jobs = schedule(entrants, n_boards, seed)
    per_pair = Counter[tuple[str, str]]()
    per_entrant = Counter[str]({e: 0 for e in entrants})
    all_pairs = list(itertools.combinations(entrants, 2))
    for job in jobs:
        per_pair[(job.a, job.b)] += 1
        per_entrant[job.a] += 1
        per_entrant[job.b] += 1
        counts = [per_pair[p] for p in all_pairs]
        assert max(counts) - min(counts) <= 1
        assert max(per_entrant.values()) - min(per_entrant.values()) <= 2


def test_schedule_is_deterministic() -> None:
    assert schedule(["x", "y", "z"], 4, 99) == schedule(["x", "y", "z"], 4, 99)
    assert schedule(["x", "y", "z"], 4, 99) != schedule(["x", "y", "z"], 4, 100)


# --------------------------------------------------------------------------
# Resuming and extending
# --------------------------------------------------------------------------


def test_adding_a_fourth_entrant_yields_exactly_its_pairs() -> None:
    old = schedule(["A", "B", "C"], 3, seed=5)
    done = {j.key for j in old}
    new = schedule(["A", "B", "C", "D"], 3, seed=5)
    todo = missing(new, done)
    assert sorted(j.key for j in todo) == sorted(
        (x, "D", k) for x in ("A", "B", "C") for k in range(3)
    )
    # The old jobs are unchanged in the new schedule (same seeds, same pair numbers).
    new_by_key = {j.key: j for j in new}
    assert all(new_by_key[j.key] == j for j in old)
    # The new pairs play the same boards with the same deals.
    assert {(j.board, j.deck_seed, j.suits) for j in todo} == {
        (j.board, j.deck_seed, j.suits) for j in old
    }


@given(entrants=entrant_lists, n_boards=st.integers(1, 4), seed=seeds, data=st.data())
@settings(max_examples=60, deadline=None)
def test_missing_is_the_complement_in_order(
    entrants: list[str], n_boards: int, seed: int, data: st.DataObject
) -> None:
    jobs = schedule(entrants, n_boards, seed)
    done_mask = data.draw(st.lists(st.booleans(), min_size=len(jobs), max_size=len(jobs)))
    done = [j.key for j, d in zip(jobs, done_mask, strict=True) if d]
    expected = [j for j, d in zip(jobs, done_mask, strict=True) if not d]
    assert missing(jobs, set(done)) == expected
    assert missing(jobs, done) == expected  # any collection
    assert missing(jobs, []) == jobs
    assert missing(jobs, {j.key for j in jobs}) == []


@given(entrants=entrant_lists, extra=st.text(alphabet="XYZ", min_size=1, max_size=3), seed=seeds)
@settings(max_examples=40, deadline=None)
def test_appending_an_entrant_only_adds_its_pairs(
    entrants: list[str], extra: str, seed: int
) -> None:
    old = schedule(entrants, 2, seed)
    new = schedule([*entrants, extra], 2, seed)
    todo = missing(new, {j.key for j in old})
    assert {j.key for j in todo} == {(e, extra, k) for e in entrants for k in range(2)}
    assert pairs(entrants) == pairs([*entrants, extra])[: len(pairs(entrants))]


# --------------------------------------------------------------------------
# Pairs and their numbers
# --------------------------------------------------------------------------


def test_pair_index_is_dense_and_stable() -> None:
    assert pairs(["A", "B", "C", "D"]) == [
        ("A", "B"), ("A", "C"), ("B", "C"), ("A", "D"), ("B", "D"), ("C", "D"),
    ]  # fmt: skip
    numbers = [pair_index(i, j) for j in range(6) for i in range(j)]
    assert numbers == list(range(15))
    assert pair_index(3, 1) == pair_index(1, 3)
    with pytest.raises(ValueError):
        pair_index(2, 2)


# --------------------------------------------------------------------------
# Seats
# --------------------------------------------------------------------------


def test_seats_four_and_two_players() -> None:
    job = schedule(["A", "B"], 1, seed=0)[0]
    t1, t2 = job.tables
    assert [t1.entrant_at(s) for s in range(4)] == ["A", "B", "A", "B"]
    assert [t2.entrant_at(s) for s in range(4)] == ["B", "A", "B", "A"]
    # Two players: seats 0 and 1 swap between the tables.
    assert [t1.entrant_at(s, players=2) for s in range(2)] == ["A", "B"]
    assert [t2.entrant_at(s, players=2) for s in range(2)] == ["B", "A"]
    with pytest.raises(ValueError, match="seat"):
        t1.entrant_at(2, players=2)
    with pytest.raises(ValueError, match="players"):
        t1.entrant_at(0, players=3)


# --------------------------------------------------------------------------
# Suit permutations and seeds
# --------------------------------------------------------------------------


@given(seed=seeds, board=st.integers(0, 10**6))
@settings(max_examples=200, deadline=None)
def test_suit_permutation_is_a_deterministic_derangement(seed: int, board: int) -> None:
    p = suit_permutation(seed, board)
    assert sorted(p) == [0, 1, 2, 3]
    assert all(p[s] != s for s in range(4))  # every suit is renamed
    assert suit_permutation(seed, board) == p
    assert len(SUITS) == 4


def test_suit_permutation_known_values() -> None:
    """Pinned values: they must not change across Python versions or releases."""
    assert suit_permutation(7, 0) == (2, 0, 3, 1)
    assert board_seed(7, 0) == 7837518282075488925


def test_suit_permutations_vary_over_boards() -> None:
    seen = Counter(suit_permutation(2026, k) for k in range(900))
    assert len(seen) == 9  # all 9 derangements occur
    assert max(seen.values()) < 2 * 900 / 9  # roughly uniform


@given(seed=seeds, board=st.integers(0, 10**6))
@settings(max_examples=100, deadline=None)
def test_suit_permutation_does_not_follow_the_deck_seed(seed: int, board: int) -> None:
    # Derived from its own hash domain, not from the deck seed.
    assert board_seed(seed, board) != board_seed(seed, board + 1)
    assert 0 <= board_seed(seed, board) < 2**63


def test_new_seeds_are_256_bit_and_distinct() -> None:
    """Issue 9 / secret boards: a new tournament's seed is 256 random bits from the OS."""
    drawn = [new_seed() for _ in range(64)]
    assert SECRET_SEED_BITS == 256
    assert all(isinstance(s, int) and 0 <= s < 2**256 for s in drawn)
    assert len(set(drawn)) == 64
    assert max(drawn).bit_length() > 250  # 64 draws: the top bits are used


def test_seed_commitment_is_sha256_of_the_decimal_digits() -> None:
    """Issue 9 / secret boards: the published commitment, as documented (printf '%s' SEED | sha256sum)."""
    # pinned: echo -n 7 | sha256sum
    assert seed_commitment(7) == "7902699be42c8a8e46fbbb4501726517e86b22c56a189f7625a6da49081b2451"
    big = 2**255 + 12345
    assert seed_commitment(big) == hashlib.sha256(str(big).encode("ascii")).hexdigest()
    assert seed_commitment(big) != seed_commitment(big + 1)
    with pytest.raises(ValueError, match="seed"):
        seed_commitment("7")  # type: ignore[arg-type]


def test_big_seeds_schedule_like_small_ones() -> None:
    seed = 2**256 - 1
    jobs = schedule(["A", "B"], 3, seed)
    assert [j.suits for j in jobs] == [suit_permutation(seed, k) for k in range(3)]
    assert all(sorted(j.suits) == [0, 1, 2, 3] for j in jobs)
    assert suit_permutation(seed, 0) == suit_permutation(seed, 0)


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entrants", "n_boards", "seed", "match"),
    [
        (["A"], 1, 0, "at least 2 entrants"),
        ([], 1, 0, "at least 2 entrants"),
        (["A", "A"], 1, 0, "duplicate"),
        (["A", ""], 1, 0, "non-empty"),
        ("AB", 1, 0, "not one string"),
        (["A", "B"], 0, 0, "at least 1 board"),
        (["A", "B"], -3, 0, "at least 1 board"),
        (["A", "B"], 1.5, 0, "boards must be an integer"),
        (["A", "B"], 1, "7", "seed must be an integer"),
    ],
)
def test_bad_input_raises_value_error(
    entrants: object, n_boards: object, seed: object, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        schedule(entrants, n_boards, seed)  # type: ignore[arg-type]


def test_bad_seed_arguments() -> None:
    with pytest.raises(ValueError, match="board"):
        suit_permutation(0, -1)
    with pytest.raises(ValueError, match="seed"):
        board_seed(True, 0)


# ---------------------------------------------------------------- issue 12: lazy schedule
def test_iter_schedule_is_the_schedule_one_job_at_a_time():
    from arena.play.schedule import iter_schedule

    entrants = ["a", "b", "c", "d", "e"]
    assert list(iter_schedule(entrants, 7, 42)) == schedule(entrants, 7, 42)


def test_a_million_board_pairs_need_no_memory_up_front():
    """50 entrants × 817 boards = 1,000,825 board pairs: the first jobs come without the rest
    being made (a list of them would take hundreds of MiB)."""
    import itertools
    import tracemalloc

    from arena.play.schedule import iter_schedule

    entrants = [f"bot{i}@1" for i in range(50)]
    tracemalloc.start()
    try:
        jobs = iter_schedule(entrants, 817, 1)
        first = list(itertools.islice(jobs, 1300))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(entrants) * 49 // 2 * 817 == 1_000_825
    assert first[:1225] == [j for j in schedule(entrants, 1, 1)]  # board 0 for every pair, then board 1
    assert first[1225].board == 1
    assert peak < 2 * 1024 * 1024, f"{peak} bytes for the first 1,300 jobs"


def test_match_order_is_the_order_of_board_0():
    from arena.play.schedule import match_order

    entrants = ["a", "b", "c", "d", "e", "f"]
    assert match_order(entrants) == [(j.a, j.b) for j in schedule(entrants, 1, 3)]
    assert sorted(match_order(entrants)) == sorted(pairs(entrants))
