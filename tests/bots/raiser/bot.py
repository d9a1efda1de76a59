"""Test bot 'raiser': its decide() raises on chosen play decisions (the SDK answers INTERNAL).

``python bot.py [--deals 2,3] [--nth N] [--every] [--message TEXT] [--exit]`` (tests/bots/README.md);
``--message`` is the exception's text (default "deliberate failure in decide()"; ``<ESC>``,
``<BEL>`` and ``<LF>`` stand for those control characters); ``--exit`` calls ``sys.exit(3)``
instead (SystemExit: an error too, not a hang).
Only play decisions can trigger; other decisions are answered legally.
The referee should record a ``bot-error`` fault, play the fallback and keep the process.
"""

from __future__ import annotations

import argparse
import sys

from belote_arena_sdk import Bot, pb, serve

from trigger import Trigger, parse_args  # copied beside bot.py by the test kit


class RaiserBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger = Trigger(args, phases=(pb.PHASE_PLAY,))
        self.exit = args.exit
        self.message = args.message.replace("<ESC>", "\x1b").replace("<BEL>", "\x07").replace("<LF>", "\n")

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if self.trigger(request):
            if self.exit:
                sys.exit(3)
            raise RuntimeError(self.message)
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--message", default="deliberate failure in decide()")
        p.add_argument("--exit", action="store_true")

    args, rest = parse_args(options)
    raise SystemExit(serve(RaiserBot(args), rest))
