"""A bot fault in plain words (issue 20 item 7): what each kind of fault
(:class:`referee.records.FaultKind`) means for the bot's author, and a fault told with its
place (board, table, seat) and the referee's own detail."""

from __future__ import annotations

#: What each fault kind means, in plain words: what happened, then its usual causes.
FAULT_WORDS = {
    "timeout": "the bot did not answer within the deadline (--decision-ms, plus its time bank): a search "
               "too long, a bot stuck, or an overloaded machine",
    "crash": "the bot's process exited during the game: an uncaught error, a signal, or a sandbox limit "
             "(memory, CPU seconds, processes) reached",
    "connection": "the connection to the bot failed (lost or refused) although its process was alive",
    "bot-error": "the bot answered with an error: an exception in its decide code (its output, kept with "
                 "--logs, says which)",
    "malformed": "the bot's answer could not be read: empty, too large, or not a DecideResponse",
    "wrong-kind": "the bot answered another kind of decision than the one asked (e.g. a card during the bidding)",
    "illegal": "the bot played an action that is not among the legal actions it was sent",
    "start": "the bot did not start: it did not accept a connection within the start-up time (10 s; a slow "
             "start or an overloaded machine) at any of its 3 starts, its process exited at start-up (not "
             "retried), or the sandbox could not start it",
}


def fault_words(kind: str) -> str:
    """What a fault of ``kind`` means, in plain words (an unknown kind: the kind itself)."""
    return FAULT_WORDS.get(kind, kind)


def fault_line(kind: str, board: int, table: int, seat: int, detail: str, entrant: str | None = None) -> str:
    """One fault told whole, plain text (escape it for rich markup): ``"board 4 table 2 seat 1
    (x@1): timeout: the bot did not answer …; detail: …"``; board numbers from 0, seats 0–3
    (N, E, S, W)."""
    who = f" ({entrant})" if entrant else ""
    return f"board {board} table {table} seat {seat}{who}: {kind}: {fault_words(kind)}; detail: {detail}"
