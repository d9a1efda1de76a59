"""The random sample bot: a uniformly random legal action, drawn from ``self.rng``.

Run: ``python bot.py --listen /tmp/random/bot.sock [--seed N]`` (or the
``BELOTE_BOT_LISTEN`` / ``BELOTE_BOT_SEED`` environment variables).
"""

from __future__ import annotations

from belote_arena_sdk import Bot, pb, serve


class RandomBot(Bot):
    """Plays a uniformly random legal action (every ruleset); a baseline to beat."""

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        """One of ``request.legal_actions``, each with equal probability."""
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    raise SystemExit(serve(RandomBot()))
