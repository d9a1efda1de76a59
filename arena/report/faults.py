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


#: A start fault in plain words by what its detail (the referee's ``BotStartError``) says happened.
START_WORDS = (
    (("exited with status", "was killed by signal"),
     "the bot's process ended at start-up (not retried: its own error, in the detail)"),
    (("did not listen on its socket within", "accepted no gRPC connection within", "did not start within"),
     "the bot did not accept a connection within the start-up time at any of its 3 starts: a slow start, "
     "an overloaded machine, or a bot that never serves gRPC on its socket (what it printed is in the detail)"),
)


def fault_words(kind: str, detail: str = "") -> str:
    """What a fault of ``kind`` means, in plain words (an unknown kind: the kind itself); a
    ``start`` fault's words say which of its causes its ``detail`` names."""
    if kind == "start":
        for marks, words in START_WORDS:
            if any(mark in detail for mark in marks):
                return words
    return FAULT_WORDS.get(kind, kind)


def fault_line(kind: str, board: int, table: int, seat: int, detail: str, entrant: str | None = None) -> str:
    """One fault told whole, plain text (escape it for rich markup): ``"board 4 table 2 seat 1
    (x@1): timeout: the bot did not answer …; detail: …"``; board numbers from 0, seats 0–3
    (N, E, S, W)."""
    who = f" ({entrant})" if entrant else ""
    return f"board {board} table {table} seat {seat}{who}: {kind}: {fault_words(kind, detail)}; detail: {detail}"


def fault_lines(faults, limit: int = 10) -> list[str]:
    """``faults`` (each with ``entrant``, ``kind``, ``board``, ``table``, ``seat``,
    ``detail``: :class:`referee.records.Fault`) told as :func:`fault_line` does, those of one
    entrant with the same kind and detail once, with every place (a bot that fails to start
    fails at every seat, with the same error): ``(entrant, line)`` pairs, at most ``limit``
    lines, then a line that says how many more."""
    groups: dict[tuple, list] = {}
    for f in faults:
        groups.setdefault((f.entrant, f.kind, f.detail), []).append(f)
    out = []
    for (entrant, kind, detail), same in list(groups.items())[:limit]:
        where = list(dict.fromkeys(f"board {f.board} table {f.table} seat {f.seat}" for f in same))  # each place once
        places = "; ".join(where[:4])
        more = f" and {len(where) - 4} more places" if len(where) > 4 else ""
        times = f" ({len(same)} times)" if len(same) > 1 else ""
        out.append((entrant, f"{places}{more}{times}: {kind}: {fault_words(kind, detail)}; detail: {detail}"))
    if len(groups) > limit:
        out.append((None, f"… and {len(groups) - limit} more kinds of fault"))
    return out
