"""Reports: what the CLI and the web show, computed once for both: rating tables and
their JSON, head-to-head tables, field scores, rating history, the board-pair plan,
derived exports (:mod:`~arena.report.tables`), a board's two tables side by side
(:mod:`~arena.report.boardview`) and a deal drawn in the terminal
(:mod:`~arena.report.render`).

Reads :mod:`arena.store`, computes with :mod:`arena.stats`; never plays or writes
(docs/ARCHITECTURE.md).
"""
