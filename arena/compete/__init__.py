"""Competitions: a server participants reach from their own machines (issue 22, first phase).

``arena compete create NAME`` stores a competition and its policy; ``arena compete participant
add`` issues tokens; ``arena compete serve NAME`` runs the one process that owns the database
(its only writer): the authenticated API under ``/api/v1`` beside today's pages, and the intake
that checks, freezes and validates uploaded bots, and the ladder that rates active versions on
fresh blocks of boards; ``arena compete close`` ends it with a final. ``arena remote …`` is the
participant's client.

Modules: ``policy.py`` (the policy, tokens and participants: :func:`create`, :func:`add_participant`,
…), ``archive.py`` (packing and checking ``.tar.gz`` uploads), ``intake.py`` (an upload's way from
``queued`` to ``active`` or ``rejected``), ``pairing.py`` (who plays the next ladder block: pure),
``ladder.py`` (the ladder's units, ratings and standings), ``final.py`` (closing, the final),
``api.py`` (the ``/api/v1`` routes), ``server.py`` (``arena compete serve``), ``client.py`` (``arena remote``, over httpx).

Layering: this part sits between the CLI and the web (``cli → compete → web → play → …``): it
extends :func:`arena.web.create_app` and plays through :mod:`arena.play` and :mod:`referee`.
"""
