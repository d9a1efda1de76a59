"""Statistics: board-pair outcomes and tallies, the Bradley–Terry Elo fit with its
intervals, head-to-head tables, the SPRT and the simulations that check them.

Pure computation over arrays, except :mod:`arena.stats.sprt`'s saved test state, which
it keeps through :mod:`arena.store` (docs/ARCHITECTURE.md).
"""
