"""The intake in process (arena/compete/intake.py), bots unsandboxed for speed (the sample bots
only; tests/compete/test_server.py runs it in the sandbox): a newer active version retires the
oldest beyond the policy, a bot name belongs to one participant, the same bot twice is refused,
and a refused version leaves no frozen copy and no bots row."""

from __future__ import annotations

import hashlib

from arena.compete import policy
from arena.compete.archive import pack
from arena.compete.hub import Hub
from arena.compete.intake import Intake
from arena.store import Store
from referee.sandbox import Limits

from .conftest import bot_copy


def upload(hub: Hub, participant: str, folder) -> int:
    data = pack(folder)
    digest = hashlib.sha256(data).hexdigest()
    (hub.archives / f"{digest}.tar.gz").write_bytes(data)
    return hub.run(lambda s: s.add_version("cup", participant, digest, len(data))).id


def test_versions_through_the_intake(tmp_path):
    db = tmp_path / "arena.duckdb"
    with Store.open(db) as s:
        policy.create(s, "cup", "classic", policy={"active_versions": 1, "validation_boards": 1})
        for who in ("ann", "bob"):
            policy.add_participant(s, "cup", who)
    hub = Hub(db, "cup")
    try:
        intake = Intake(hub, Limits(isolate=False))

        def run(version_id):
            claimed = intake._claim()
            assert claimed.id == version_id
            return intake.process(claimed)

        first = upload(hub, "ann", bot_copy("random", tmp_path / "a1", name="anns"))
        second = upload(hub, "ann", bot_copy("greedy", tmp_path / "a2", name="anns", version="2.0.0"))
        stolen = upload(hub, "bob", bot_copy("greedy", tmp_path / "b1", name="anns", version="9.0.0"))
        again = upload(hub, "ann", bot_copy("greedy", tmp_path / "a3", name="anns", version="2.0.0", rulesets=
                                            '["classic"]  # the same files but this comment'))
        assert run(first).status == "active"
        v2 = run(second)
        assert v2.status == "active" and v2.validation["rulesets"]["classic"]["boards"] == 1
        v1 = hub.run(lambda s: s.get_version(first))
        assert v1.status == "retired" and f"version {second} replaced it" in v1.reason
        v3 = run(stolen)
        assert v3.status == "rejected" and "belongs to another participant" in v3.reason
        v4 = run(again)
        assert v4.status == "rejected" and "already registered with other content" in v4.reason
        assert intake._claim() is None
        bots = hub.run(lambda s: [(b.name, b.version) for b in s.list_bots()])
        assert sorted(bots) == [("anns", "1.0.0"), ("anns", "2.0.0")]
        assert sorted(p.name for p in (hub.bots_root / "anns").iterdir()) == ["1.0.0", "2.0.0"]
        assert not list(hub.work.iterdir())
    finally:
        hub.close()


def test_a_bad_manifest_is_rejected_without_showing_the_servers_folders(tmp_path):
    db = tmp_path / "arena.duckdb"
    with Store.open(db) as s:
        policy.create(s, "cup", "classic")
        policy.add_participant(s, "cup", "ann")
    hub = Hub(db, "cup")
    try:
        bot = bot_copy("random", tmp_path / "bad", name="bad")
        (bot / "bot.toml").write_text((bot / "bot.toml").read_text() + "this is = not [toml\n")
        v = upload(hub, "ann", bot)
        out = Intake(hub, Limits(isolate=False)).process(hub.run(lambda s: s.get_version(v)))
        assert out.status == "rejected" and "not valid TOML" in out.reason
        assert str(tmp_path) not in out.reason and "the archive" in out.reason
    finally:
        hub.close()


def test_two_intake_threads_take_each_version_once(tmp_path):
    """--workers 2: two threads, two participants' uploads, each taken by one thread and settled once."""
    from .conftest import until

    db = tmp_path / "arena.duckdb"
    with Store.open(db) as s:
        policy.create(s, "cup", "classic", policy={"validation_boards": 1})
        for who in ("ann", "bob"):
            policy.add_participant(s, "cup", who)
    hub = Hub(db, "cup")
    intake = Intake(hub, Limits(isolate=False), workers=2)
    try:
        ids = [upload(hub, "ann", bot_copy("random", tmp_path / "a", name="anns")),
               upload(hub, "bob", bot_copy("greedy", tmp_path / "b", name="bobs"))]
        taken = []
        original = intake.process
        intake.process = lambda v: (taken.append(v.id), original(v))[1]
        intake.start()
        until(lambda: all(hub.run(lambda s: s.get_version(i)).status in ("active", "rejected") for i in ids),
              120, "both versions to settle")
        assert sorted(taken) == ids
        assert [hub.run(lambda s: s.get_version(i)).status for i in ids] == ["active", "active"]
    finally:
        intake.stop()
        hub.close()


def test_a_bot_naming_requirements_is_rejected_with_advice_for_its_kind_and_its_name(tmp_path):
    """A competition installs no packages: a package.json is told to ship node_modules/ without
    links, a pip file to ship deps/; the rejected version carries its manifest's name@version."""
    from .conftest import node_bot

    db = tmp_path / "arena.duckdb"
    with Store.open(db) as s:
        policy.create(s, "cup", "classic")
        policy.add_participant(s, "cup", "ann")
    hub = Hub(db, "cup")
    try:
        intake = Intake(hub, Limits(isolate=False))
        node = upload(hub, "ann", node_bot(tmp_path / "node"))
        pip = bot_copy("random", tmp_path / "pip", name="pipbot")
        (pip / "requirements.txt").write_text("sortedcontainers==2.4.0\n")
        (pip / "bot.toml").write_text((pip / "bot.toml").read_text() + 'requirements = "requirements.txt"\n')
        pip = upload(hub, "ann", pip)
        out = intake.process(hub.run(lambda s: s.get_version(node)))
        assert out.status == "rejected" and out.public()["bot"] == "nodebot@0.1.0"
        assert out.reason == ("nodebot@0.1.0 names requirements (package.json): a competition installs no packages: "
                              "ship node_modules/ in the folder, installed with `npm ci --ignore-scripts "
                              "--no-bin-links` (an archive carries no links), and remove `requirements` from bot.toml")
        out = intake.process(hub.run(lambda s: s.get_version(pip)))
        assert out.status == "rejected" and out.public()["bot"] == "pipbot@1.0.0"
        assert "`pip install --target deps -r requirements.txt`" in out.reason and "npm" not in out.reason
        assert hub.run(lambda s: s.bot_owner("cup", "nodebot")) is None  # a rejected version claims no name
    finally:
        hub.close()
