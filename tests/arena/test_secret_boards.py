"""Issue 9 / secret boards, through ``arena`` (typer CliRunner).

A tournament created without ``--seed`` gets 256 random bits, secret: ``tournament
run``, ``list``, ``show`` and ``export`` give its commitment only, until the
tournament is complete; then they give the seed, which matches the commitment and
re-deals every stored board and every table's deck. A seed given with ``--seed`` is
kept, shown and said not secret. ``arena match`` draws a secret seed too: its
commitment before play, the seed after.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest

import arena.play.tournament as tour
from arena.play.schedule import suit_permutation
from arena.store import Store
from referee.rules import make_board, relabel

from .conftest import SAMPLES, cli, copy_bot, output

BOTS = ["--bots", str(SAMPLES / "random"), "--bots", str(SAMPLES / "greedy")]
BOARDS = 2


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def stored_seed(db, name: str) -> int:
    """The seed as stored (the test reads the database itself, as no command may show it)."""
    with Store.open(db) as s:
        return s.get_tournament(name).seed


def exported(db, out) -> tuple[dict, list, str]:
    """``arena export --format jsonl``: the tournaments by name, the boards rows, every file's text."""
    r = cli("export", "--format", "jsonl", "--out", out, "--db", db)
    assert r.exit_code == 0, output(r)
    tournaments = {t["name"]: t for t in map(json.loads, (out / "tournaments.jsonl").read_text().splitlines())}
    boards = [json.loads(line) for line in (out / "boards.jsonl").read_text().splitlines()]
    return tournaments, boards, "".join(p.read_text() for p in out.iterdir()) + output(r)


@pytest.fixture(scope="module")
def created(tmp_path_factory):
    """A tournament created by ``arena tournament run`` without --seed, stopped before any play
    (its run replaced by one that plays nothing), so it is neither complete nor revealed."""
    root = tmp_path_factory.mktemp("secret")
    db = root / "arena.duckdb"
    mp = pytest.MonkeyPatch()

    def play_nothing(store, name, **_):
        store.set_tournament_status(name, "interrupted")
        return tour.RunSummary(total=BOARDS, interrupted=True)

    mp.setattr(tour, "run", play_nothing)
    try:
        r = cli("tournament", "run", "sec", *BOTS, "--boards", BOARDS, "--db", db)
    finally:
        mp.undo()
    assert r.exit_code == 130, output(r)
    return root, db, r


def test_a_new_tournament_seed_is_256_random_bits_committed_and_hidden(created):
    """Issue 9 / secret boards: without --seed, the seed has 256 bits; the run prints its
    commitment (SHA-256 of its decimal digits), and list, show and export hide the seed."""
    root, db, run = created
    seed = stored_seed(db, "sec")
    assert 200 < seed.bit_length() <= 256  # below 2**200 by chance: 2**-56
    commitment = sha256(str(seed))
    assert f"seed commitment {commitment} (seed secret until the tournament is complete)" in run.stdout
    texts = [output(run)]

    with Store.open(db) as s:
        t = s.get_tournament("sec")
        assert (t.seed_secret, t.commitment, t.status, t.public_seed) == (True, commitment, "interrupted", None)

    r = cli("tournament", "list", "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    (row,) = json.loads(r.stdout)
    assert (row["commitment"], row["seed"], row["seed_secret"], row["seed_revealed"]) == (commitment, None, True, False)
    texts.append(output(r))
    r = cli("tournament", "list", "--db", db)
    assert r.exit_code == 0 and commitment[:16] in r.stdout and "secret" in r.stdout, output(r)
    texts.append(output(r))

    r = cli("tournament", "show", "sec", "--db", db)
    assert r.exit_code == 0, output(r)
    assert commitment in r.stdout and "secret until the tournament is complete" in r.stdout
    assert "random@1.0.0, greedy@1.0.0 (1 pair)" in r.stdout and "0 of 2 stored" in r.stdout
    lines = r.stdout.splitlines()
    assert [line.split()[0] for line in lines if line[:1].strip()][:4] == ["tournament", "ruleset", "options", "boards"]
    assert [line for line in lines if line != line.rstrip()] == []  # one field a line, none padded with spaces
    texts.append(output(r))
    r = cli("tournament", "show", "sec", "--json", "--db", db)
    info = json.loads(r.stdout)
    assert (info["commitment"], info["seed"], info["board_pairs_total"], info["entrants"]) == (
        commitment, None, BOARDS, [{"name": "random", "version": "1.0.0"}, {"name": "greedy", "version": "1.0.0"}])
    texts.append(output(r))

    tournaments, boards, text = exported(db, root / "export-hidden")
    assert tournaments["sec"]["seed"] is None and tournaments["sec"]["commitment"] == commitment
    assert boards == []  # the decks it deals are left out too
    assert "secret seeds left out" in text
    texts.append(text)

    for t in texts:
        assert str(seed) not in t and format(seed, "x") not in t


def test_once_complete_the_seed_is_shown_verifies_and_redeals_every_board(created, tmp_path):
    """Issue 9 / secret boards: the run finishes the tournament; list, show and export then give
    the seed; it matches the commitment and re-deals the stored boards and both tables' decks;
    the tournament takes no new entrant."""
    root, db, _ = created
    seed = stored_seed(db, "sec")
    r = cli("tournament", "run", "sec", "--db", db)
    assert r.exit_code == 0, output(r)
    assert f"{BOARDS} board pairs played now" in r.stdout
    assert str(seed) not in output(r)  # the run itself never prints it

    r = cli("tournament", "show", "sec", "--json", "--db", db)
    info = json.loads(r.stdout)
    assert (info["status"], info["seed"], info["seed_revealed"]) == ("complete", str(seed), True)
    assert sha256(info["seed"]) == info["commitment"]  # printf '%s' SEED | sha256sum
    r = cli("tournament", "show", "sec", "--db", db)
    assert str(seed) in r.stdout.replace("\n", "") and "sha256sum" in r.stdout
    r = cli("tournament", "list", "--json", "--db", db)
    assert json.loads(r.stdout)[0]["seed"] == str(seed)

    tournaments, boards, _ = exported(db, tmp_path / "export")
    revealed = int(tournaments["sec"]["seed"])
    assert revealed == seed and sha256(tournaments["sec"]["seed"]) == tournaments["sec"]["commitment"]
    assert sorted((b["board"], b["deck"]) for b in boards) == [
        (k, make_board(revealed, k).deck_text()) for k in range(BOARDS)]
    deals = [json.loads(line) for line in (tmp_path / "export" / "deals.jsonl").read_text().splitlines()]
    assert len(deals) == 2 * BOARDS
    for d in deals:  # an auditor re-deals every table from the revealed seed
        deck = make_board(revealed, d["board"]).deck
        if d["table_no"] == 2:
            deck = relabel(deck, suit_permutation(revealed, d["board"]))
            assert d["permutation"] == list(suit_permutation(revealed, d["board"]))
        assert d["deck"] == [str(c) for c in deck]

    # a revealed seed: a new entrant could know every board
    newcomer = copy_bot(SAMPLES / "random", tmp_path / "r2", "2.0.0")
    for args in (("tournament", "run", "sec", "--bots", newcomer), ("bots", "submit", newcomer, "--tournament", "sec")):
        r = cli(*args, "--db", db)
        text = output(r)
        assert r.exit_code == 1 and "secret seed is revealed" in text and "Traceback" not in text, text
    with Store.open(db) as s:
        assert s.get_tournament("sec").entrants == ("random@1.0.0", "greedy@1.0.0")
        assert s.get_bot("random", "2.0.0") is None  # refused before it was checked, frozen or registered
    assert not (tmp_path / "bots" / "random" / "2.0.0").exists()


def test_a_given_seed_is_kept_and_said_not_secret(tmp_path):
    db = tmp_path / "arena.duckdb"
    r = cli("tournament", "run", "pub", *BOTS, "--boards", 1, "--seed", 5, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "seed 5 was given with --seed: it is not secret" in r.stderr
    assert f"seed commitment {sha256('5')} (seed 5, given with --seed: not secret)" in r.stdout
    assert stored_seed(db, "pub") == 5
    r = cli("tournament", "show", "pub", "--json", "--db", db)
    info = json.loads(r.stdout)
    assert (info["seed"], info["seed_secret"], info["commitment"]) == ("5", False, sha256("5"))
    r = cli("tournament", "run", "pub", "--seed", 6, "--db", db)
    assert r.exit_code == 1 and "exists with --seed 5" in output(r)


def test_arena_match_commits_to_a_secret_seed_then_reveals_it():
    r = cli("match", "--bot", SAMPLES / "random", "--bot", SAMPLES / "greedy", "--boards", 1)
    assert r.exit_code == 0, output(r)
    committed = re.search(r"board seed: secret until the match ends; commitment ([0-9a-f]{64})", r.stdout)
    revealed = re.search(r"board seed revealed: (\d+)", r.stdout)
    assert committed and revealed, r.stdout
    assert committed.start() < r.stdout.index("duplicate, 1 boards") < revealed.start()
    assert sha256(revealed.group(1)) == committed.group(1) and int(revealed.group(1)) < 2**256

    r = cli("match", "--bot", SAMPLES / "random", "--bot", SAMPLES / "greedy", "--boards", 1, "--seed", 3)
    assert r.exit_code == 0, output(r)
    assert "board seed: 3 (given with --seed: not secret)" in r.stdout and "revealed" not in r.stdout
