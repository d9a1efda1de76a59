"""No hand crosses through the page cache of the files sandboxes share (issue 19, round 4).

Every sandbox sees the same read-only files, and an entrant's processes at both tables of a
board see the same frozen code: the same page cache.  The red team's round-4 bots marked
pages by reading them while cold and had a later process time a read (SECURITY.md): 40 of 40
table-2 processes got the opponents' hidden hands, across matches too, whatever the schedule.
The referee now holds every file a sandbox shows, the bot's code included, in memory before
a bot starts (``referee.pin``): a read changes nothing another process can time.

Attacked by effect: ``attack_pagecache`` (tests/bots/attack_pagecache) keeps a cold 4 KiB file
per (deal, seat, card) in its folder, reads those of its hand, and at the other table times
those of its opponents' seats.  Control: the same match with the pinning off.
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.play.schedule import suit_permutation
from referee.botproc import Limits
from referee.manifest import load_manifest
from referee.match import Entrant, MatchConfig, play_match
from referee.rules import get_ruleset, make_board
from tests.referee import conftest as referee_conftest

from .conftest import SAMPLES, copy_bot
from .test_cross_table import SEED, opponent_hands_received, out_folder

_time_guard = referee_conftest._time_guard

BOARDS = 10
SUITS, RANKS = range(1, 5), range(7, 15)


def attacker(tmp_path: Path, out: Path) -> Path:
    """The attack bot's folder with its cold pages: one 4 KiB file per (deal, seat, card)."""
    folder = copy_bot(Path(__file__).parents[1] / "bots" / "attack_pagecache", tmp_path / "pagecache", "1.0.0")
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text().replace('command = ["python", "bot.py"]',
                                             f'command = ["python", "bot.py", "--out", "{out}"]'))
    pages = folder / "pages"
    pages.mkdir()
    for n in range(BOARDS):
        for seat in range(4):
            for s in SUITS:
                for r in RANKS:
                    with open(pages / f"{n}_{seat}_{r}{s}", "wb") as f:
                        f.write(os.urandom(4096))
    os.sync()
    for page in pages.iterdir():  # cold: dropped from the page cache, as most of /usr is on a running machine
        fd = os.open(page, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    tmp_path.chmod(0o755)
    return folder


def _play(tmp_path: Path, *, pin: bool) -> tuple[int, int]:
    out = out_folder(tmp_path)
    rs = get_ruleset("classic")
    x, r = load_manifest(attacker(tmp_path, out)), load_manifest(SAMPLES / "random")
    config = MatchConfig(ruleset=rs, seed=SEED, limits=Limits(writable=(str(out),), pin=pin))
    boards = [make_board(SEED, k, rs.seats) for k in range(BOARDS)]
    tables = [t for bp in play_match("x-r", Entrant(x.key, x), Entrant(r.key, r), boards, config,
                                     permutations=lambda k: suit_permutation(SEED, k)) for t in bp.tables]
    return opponent_hands_received(out, {"x-r": tables})


def test_no_hand_crosses_tables_through_the_page_cache(tmp_path):
    leaks, received = _play(tmp_path, pin=True)
    assert received > 0  # the bot read its pages: every one cached (in memory before it started)
    assert leaks == 0, (leaks, received)


def test_control_the_page_cache_carries_hands_when_files_are_not_held(tmp_path):
    leaks, received = _play(tmp_path, pin=False)
    # a reception wherever the writer was asked in the bidding (with its first five cards):
    # nearly all exact
    assert leaks >= 5 and leaks >= 0.8 * received, (leaks, received)
