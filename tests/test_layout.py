"""The architecture's contracts (docs/ARCHITECTURE.md), checked on the source text.

- Parts and arrows: every module belongs to one part; a module imports its own part or
  parts below it, never above: cli → compete → web → play → report → analysis → stats → store → referee → rules.
- The SDK (with the protocol's generated code) and the sample bots are leaves that any part
  above the rules may import.
- The rules import no I/O, nothing of the referee around them, of the protocol or of the arena.
- The bots (sample_bots/) and the bot SDK (sdk/) import neither the arena nor the referee.
- Size: no arena module over 600 lines, no class over 400.
- Readers never get the writer: a read-only store has no write method.

Imports are read with ``ast`` (function-local ones too), relative ones resolved.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The parts from the bottom up: a module may import its own part or one listed before it.
LAYERS = ("rules", "referee", "store", "stats", "analysis", "report", "play", "web", "compete", "cli")

#: Stand-alone leaves any part above the rules may import: the bot SDK, which holds the protocol's
#: generated code (the referee speaks it), and the sample bots (play finds their folders).
LEAVES = ("sdk", "bots")

#: Module name prefixes of each part (the longest prefix wins).
PARTS = {
    "referee.rules": "rules",
    "referee": "referee",
    "arena.store": "store",
    "arena.stats": "stats",
    "arena.analysis": "analysis",
    "arena.report": "report",
    "arena.play": "play",
    "arena.web": "web",
    "arena.compete": "compete",
    "arena.cli": "cli",
    "belote_arena_sdk": "sdk",
    "sample_bots": "bots",
}

#: What the rules may not import: I/O, processes, the network, the database, threads.
NO_IO = {"duckdb", "grpc", "subprocess", "socket", "os", "pathlib", "shutil", "tempfile", "sqlite3", "urllib", "http",
         "asyncio", "threading", "multiprocessing", "signal", "io", "pyarrow", "tenacity", "fastapi", "typer", "rich"}

MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 400


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT / "sdk" if path.is_relative_to(ROOT / "sdk") else ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def part_of(module: str) -> str | None:
    best = None
    for prefix, part in PARTS.items():
        if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, part)
    return best[1] if best else None


def sources(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py") if "proto" not in p.relative_to(ROOT).parts)


def imports(path: Path, name: str | None = None) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in the file (module ``name``, by default its own);
    ``from X import y`` counts as ``X.y`` where X is no part's module (``from arena import
    store``, ``from . import views``) and as ``X`` otherwise."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if part_of(target) is None or node.module is None:  # ``from arena import x``, ``from . import x``
                out += [(node.lineno, f"{target}.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, target))
    return out


def test_every_arena_and_referee_module_has_a_part():
    lost = [str(p.relative_to(ROOT)) for p in sources("arena", "referee")
            if part_of(module_name(p)) is None and module_name(p) not in ("arena", "referee")]
    assert not lost, f"modules outside every part (PARTS, docs/ARCHITECTURE.md): {lost}"


def test_imports_follow_the_arrows():
    wrong = []
    for path in sources("arena", "referee"):
        mine = part_of(module_name(path))
        if mine is None:
            continue
        for line, target in imports(path):
            theirs = part_of(target)
            if theirs in (None, mine) or (theirs in LEAVES and mine != "rules"):
                continue
            if theirs not in LAYERS or LAYERS.index(theirs) > LAYERS.index(mine):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {mine} imports {target} ({theirs})")
    assert not wrong, "imports against the arrows (docs/ARCHITECTURE.md):\n" + "\n".join(wrong)


def test_rules_import_no_io():
    wrong = [f"{p.relative_to(ROOT)}:{line}: {target}" for p in sources("referee/rules") for line, target in imports(p)
             if target.split(".")[0] in NO_IO | {"arena", "google"} or part_of(target) in ("referee", *LEAVES)]
    assert not wrong, "the rules import I/O or what is around them:\n" + "\n".join(wrong)


def test_bots_and_the_sdk_import_neither_arena_nor_referee():
    wrong = [f"{p.relative_to(ROOT)}:{line}: {target}" for p in sources("sample_bots", "sdk")
             for line, target in imports(p) if target.split(".")[0] in ("arena", "referee")]
    assert not wrong, "bots and the SDK must stand alone:\n" + "\n".join(wrong)


def test_modules_and_classes_stay_small():
    big = []
    for path in sources("arena"):
        text = path.read_text(encoding="utf-8")
        n = len(text.splitlines())
        if n > MAX_MODULE_LINES:
            big.append(f"{path.relative_to(ROOT)}: {n} lines (at most {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES:
                big.append(f"{path.relative_to(ROOT)}: class {node.name}: {node.end_lineno - node.lineno + 1} lines "
                           f"(at most {MAX_CLASS_LINES})")
    assert not big, "split these by concern:\n" + "\n".join(big)


def test_the_checks_see_a_wrong_arrow(tmp_path):
    """The import reader resolves relative imports: a store module importing the play part is caught."""
    probe = tmp_path / "probe.py"
    probe.write_text("from ..play import schedule\nfrom arena.cli import app\nimport referee.rules\nfrom . import model\n")
    found = {part_of(t) for _, t in imports(probe, "arena.store.probe")}
    assert found == {"play", "cli", "rules", "store"}


WRITES = ("add_bot", "create_tournament", "add_entrants", "set_tournament_status", "set_play_settings", "add_match",
          "add_boards", "write_board_pair", "write_board_pairs")


@pytest.mark.parametrize("method", WRITES)
def test_readers_never_get_the_writer(tmp_path, method):
    from arena.store import ReadStore, Store

    db = tmp_path / "arena.duckdb"
    Store.open(db).close()
    with Store.open(db, read_only=True) as reader:
        assert isinstance(reader, ReadStore) and not isinstance(reader, Store)
        assert not hasattr(reader, method)
        assert reader.list_tournaments() == []
    with Store.open(db) as writer:
        assert callable(getattr(writer, method))
