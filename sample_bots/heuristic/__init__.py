"""The heuristic sample bot (run `python bot.py --listen PATH` in this folder)."""
