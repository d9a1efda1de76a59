"""Playing: the schedule of a duplicate tournament, the executors and the Dask cluster that
play its board pairs through the referee, the tournament runner, entrants and their
sandbox limits, the bot check, freezing and submitting bots, and ``arena match``'s live view.

Imports ``arena.report`` (the terminal tables of ``arena match``) and ``arena.store`` below it;
nothing below imports it (docs/ARCHITECTURE.md).
"""
