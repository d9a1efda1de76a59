"""The expert sample bot: card play by sampled deals solved double dummy (run `python bot.py --listen PATH` in this folder)."""
