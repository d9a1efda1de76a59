"""No hand crosses through the caches of the files sandboxes share (issue 19, red teams 4 and 5).

Every sandbox sees the same read-only files, and an entrant's processes at both tables of a
board see the same frozen code.  On a disk file system they share the kernel's caches of
those files, which outlive a process: a page read in (round 4: 40 of 40 table-2 processes
got the opponents' hidden hands), a failed lookup remembered (round 5: 40 of 40, the page
cache held in memory notwithstanding).  The referee now serves everything a sandbox shows,
the bot's code included, from an image on a tmpfs (``referee.image``): nothing there is
evicted, and a failed lookup is forgotten at once.

Attacked by effect: ``attack_caches`` (tests/bots/attack_caches) marks, at table 1, the
first five cards of its hand in cold pages of its folder or as names that do not exist under
``/usr/bin``, and at table 2 times them for its opponents' seats.  Control: the same match
with the host's files bound directly (``Limits(image=False)``).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

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


def attacker(tmp_path: Path, out: Path, channel: str) -> Path:
    """The attack bot's folder: a fresh ``SALT`` (names never looked up before) and, for the
    ``pages`` channel, one cold 4 KiB file per (deal, seat, card)."""
    folder = copy_bot(Path(__file__).parents[1] / "bots" / "attack_caches", tmp_path / "caches", "1.0.0")
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text().replace(
        'command = ["python", "bot.py"]', f'command = ["python", "bot.py", "--out", "{out}", "--channel", "{channel}"]'))
    (folder / "SALT").write_text(secrets.token_hex(8))
    if channel == "pages":
        pages = folder / "pages"
        pages.mkdir()
        for n in range(BOARDS):
            for seat in range(4):
                for s in SUITS:
                    for r in RANKS:
                        (pages / f"{n}_{seat}_{r}{s}").write_bytes(os.urandom(4096))
        os.sync()
        for page in pages.iterdir():  # cold: dropped from the page cache, as most of /usr is on a running machine
            fd = os.open(page, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
    tmp_path.chmod(0o755)
    return folder


def _play(tmp_path: Path, channel: str, *, image: bool) -> tuple[int, int]:
    out = out_folder(tmp_path)
    rs = get_ruleset("classic")
    x, r = load_manifest(attacker(tmp_path, out, channel)), load_manifest(SAMPLES / "random")
    config = MatchConfig(ruleset=rs, seed=SEED, limits=Limits(writable=(str(out),), image=image))
    boards = [make_board(SEED, k, rs.seats) for k in range(BOARDS)]
    tables = [t for bp in play_match("x-r", Entrant(x.key, x), Entrant(r.key, r), boards, config,
                                     permutations=lambda k: suit_permutation(SEED, k)) for t in bp.tables]
    return opponent_hands_received(out, {"x-r": tables})


@pytest.mark.parametrize("channel", ["pages", "names"])
def test_no_hand_crosses_tables_through_the_files_caches(tmp_path, channel):
    leaks, received = _play(tmp_path, channel, image=True)
    assert leaks == 0, (leaks, received)


@pytest.mark.parametrize("channel", ["pages", "names"])
def test_control_the_caches_carry_hands_when_the_host_files_are_bound(tmp_path, channel):
    leaks, received = _play(tmp_path, channel, image=False)
    # a reception wherever the writer was asked in the bidding (with its first five cards):
    # nearly all exact
    assert leaks >= 5 and leaks >= 0.8 * received, (leaks, received)
