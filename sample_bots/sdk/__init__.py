"""Deprecated: the bot SDK's old name. Bots written before the SDK became its own
distribution import ``sample_bots.sdk`` (``from sample_bots.sdk import Bot, pb, serve``);
this alias keeps them playing. New bots import :mod:`belote_arena_sdk`."""

from __future__ import annotations

import importlib
import sys

from belote_arena_sdk import *  # noqa: F401,F403 - the whole public API, unchanged
from belote_arena_sdk import __all__, pb  # noqa: F401

for _module in ("actions", "bot", "cards", "observation", "server"):
    sys.modules[f"{__name__}.{_module}"] = importlib.import_module(f"belote_arena_sdk.{_module}")
