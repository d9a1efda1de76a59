-- Belote Arena storage schema (DuckDB). arena/store/schema.py applies it on every open;
-- every statement is idempotent (CREATE ... IF NOT EXISTS).
--
-- Words are those of RULES.md §1. Units: points are game points; ms are
-- milliseconds of wall time; timestamps are UTC (TIMESTAMP without zone).
--
-- Conventions
--   entrant key   "<bot name>@<bot version>" (a bot as it plays in a tournament)
--   match_id      "<tournament>/<entrant a>~<entrant b>"; A is the earlier entrant
--                 in the tournament's order of entrants, NS at table 1 (RULES.md §8).
--                 Never told to bots: they get an opaque id (referee/secret.py)
--   table_no      1 or 2 (duplicate, RULES.md §8); seat 0..3 (two players: 0..1)
--   *_ns / *_ew   team 0 (seats 0 and 2) / team 1 (seats 1 and 3). In the
--                 two-player ruleset *_ns means seat 0 and *_ew seat 1.
--   team columns  (declaration_team, capot, pot_to) hold 0 = NS / seat 0,
--                 1 = EW / seat 1, NULL = nobody.
--   deck          32 card texts ("JH", "10S"), index 0 = top (RULES.md §3.1)
--
-- Foreign keys guard the tables written rarely. The result tables
-- (board_pairs, deals, actions, faults) carry none: they are written only by
-- Store.write_board_pairs, a board pair's rows together in one transaction,
-- with its matches row; foreign-key checks there cost a third of the write time.

-- Version 2: tournaments.seed is text (256-bit seeds), with seed_secret and commitment.
-- Version 3: board_pairs.outcome_a; the views of arena/store/views.sql.
-- Version 5: the double-dummy analysis cache, dd_deals and dd_cards.
-- Version 6: the competition ladder's units, ladder_units.
-- arena/store/schema.py upgrades an older database when it opens it for writing.
CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER NOT NULL            -- the layout of this file; bumped on any change
);

-- A submitted bot: the bot.toml text and a frozen copy of its files.
CREATE TABLE IF NOT EXISTS bots (
    name         VARCHAR   NOT NULL,
    version      VARCHAR   NOT NULL,
    author       VARCHAR,
    manifest     VARCHAR   NOT NULL,        -- the bot.toml text
    content_hash VARCHAR   NOT NULL,        -- hash of the frozen copy's files
    path         VARCHAR   NOT NULL,        -- the frozen copy (directory): relative to the database's folder
                                            -- when inside it (it moves with the database), else absolute
    submitted_at TIMESTAMP NOT NULL,
    PRIMARY KEY (name, version)
);

-- A tournament: one ruleset with its resolved options (RULES.md, table at the top).
-- Its seed deals every board (referee.rules.make_board(seed, k)), picks table 2's
-- suit permutations and keys what bots are told (referee/secret.py). A secret seed
-- is shown (arena tournament list/show, arena export) only once status = 'complete';
-- until then only its commitment is: anyone can then check the revealed seed against
-- it (printf '%s' SEED | sha256sum) and re-deal every board.
CREATE TABLE IF NOT EXISTS tournaments (
    name            VARCHAR   PRIMARY KEY,
    ruleset         VARCHAR   NOT NULL,     -- classic | strict | all-trumps | two-player
    options         JSON      NOT NULL,     -- Ruleset.options(): every resolved option
    seed            VARCHAR   NOT NULL,     -- the tournament seed: an integer in decimal digits
                                            -- (256 random bits by default; schema 1 held a BIGINT)
    seed_secret     BOOLEAN   NOT NULL,     -- true: drawn at random, secret until complete;
                                            -- false: given with --seed (or from schema 1): public
    commitment      VARCHAR   NOT NULL,     -- lowercase hex SHA-256 of the seed's decimal digits (ASCII)
    boards_per_pair INTEGER   NOT NULL CHECK (boards_per_pair >= 1),
    created_at      TIMESTAMP NOT NULL,
    status          VARCHAR   NOT NULL CHECK (status IN ('running', 'complete', 'interrupted'))
);

-- The entrants of a tournament, in order: the order decides who is A in a pair.
CREATE TABLE IF NOT EXISTS tournament_entrants (
    tournament  VARCHAR NOT NULL REFERENCES tournaments (name),
    position    INTEGER NOT NULL,           -- 0, 1, 2, ... (order of entry)
    bot_name    VARCHAR NOT NULL,
    bot_version VARCHAR NOT NULL,
    PRIMARY KEY (tournament, position),
    UNIQUE (tournament, bot_name, bot_version)
);

-- The boards of a tournament: each deck in the board's own suits (table 1's). Written
-- before play; `arena export` leaves them out while the tournament's seed is secret.
CREATE TABLE IF NOT EXISTS boards (
    tournament VARCHAR   NOT NULL REFERENCES tournaments (name),
    board      INTEGER   NOT NULL,          -- 0 .. boards_per_pair - 1
    dealer     INTEGER   NOT NULL,          -- board mod seats (RULES.md §8)
    deck       VARCHAR[] NOT NULL,          -- 32 card texts
    PRIMARY KEY (tournament, board)
);

-- A duplicate match: two entrants playing the tournament's boards at two tables.
CREATE TABLE IF NOT EXISTS matches (
    match_id   VARCHAR PRIMARY KEY,         -- "<tournament>/<entrant a>~<entrant b>"
    tournament VARCHAR NOT NULL REFERENCES tournaments (name),
    entrant_a  VARCHAR NOT NULL,            -- entrant key; NS at table 1
    entrant_b  VARCHAR NOT NULL,            -- entrant key; NS at table 2
    ruleset    VARCHAR NOT NULL             -- the tournament's ruleset (for filtering)
);

-- One board played at both tables (the unit of ratings, RULES.md §8).
CREATE TABLE IF NOT EXISTS board_pairs (
    match_id   VARCHAR   NOT NULL,          -- matches.match_id
    board      INTEGER   NOT NULL,
    points_a   INTEGER   NOT NULL,          -- A's points over both tables
    points_b   INTEGER   NOT NULL,          -- B's points over both tables
    margin     INTEGER   NOT NULL,          -- points_a - points_b: A's duplicate margin
    forfeit_a  BOOLEAN   NOT NULL,          -- A loses the board pair whatever the points
    forfeit_b  BOOLEAN   NOT NULL,
    written_at TIMESTAMP NOT NULL,
    outcome_a  VARCHAR   NOT NULL           -- A's result, as ratings count it (RULES.md §8): 'win' | 'draw' |
               CHECK (outcome_a IN ('win', 'draw', 'loss')),  -- 'loss'; a forfeit loses whatever the margin
    PRIMARY KEY (match_id, board)
);

-- One board at one table: the deal's outcome (RULES.md §6.2, §6.3, §7) and record.
CREATE TABLE IF NOT EXISTS deals (
    match_id         VARCHAR    NOT NULL,
    board            INTEGER    NOT NULL,
    table_no         INTEGER    NOT NULL CHECK (table_no IN (1, 2)),
    ns_entrant       VARCHAR    NOT NULL,   -- entrant key holding NS (two players: seat 0)
    ew_entrant       VARCHAR    NOT NULL,   -- entrant key holding EW (two players: seat 1)
    permutation      INTEGER[4] NOT NULL,   -- permutation[s]: this table's suit for the board's suit s (S H D C = 0..3)
    dealer           INTEGER    NOT NULL,
    deck             VARCHAR[]  NOT NULL,   -- this table's (relabelled) deck, 32 card texts
    contract         VARCHAR    NOT NULL,   -- made | dedans | litige | passed | tie
    taker            INTEGER,               -- seat; NULL when passed out
    trump_mode       VARCHAR,               -- suit | all-trumps | no-trumps; NULL when passed out
    trump            VARCHAR,               -- S | H | D | C in suit mode, else NULL
    trick_points_ns  INTEGER    NOT NULL,   -- card points + dix de der, before the capot rule
    trick_points_ew  INTEGER    NOT NULL,
    tricks_won_ns    INTEGER    NOT NULL,
    tricks_won_ew    INTEGER    NOT NULL,
    declarations_ns  INTEGER    NOT NULL,   -- declaration points declared (scored or not)
    declarations_ew  INTEGER    NOT NULL,
    declaration_team INTEGER,               -- the team whose declarations scored
    belote_ns        INTEGER    NOT NULL,   -- belote-rebelote points announced
    belote_ew        INTEGER    NOT NULL,
    capot            INTEGER,               -- the team that won every trick
    score_ns         INTEGER    NOT NULL,   -- points scored this deal (rounded, pot included when won)
    score_ew         INTEGER    NOT NULL,
    pot_in           INTEGER    NOT NULL,   -- litige pot carried in (RULES.md §6.3)
    pot_to           INTEGER,               -- the team that won the pot carried in
    pot              INTEGER    NOT NULL,   -- litige pot carried out
    record           JSON       NOT NULL,   -- the deal record (referee.rules.record format)
    PRIMARY KEY (match_id, board, table_no)
);

-- Every action taken at a table, in order, with the time the bot took.
CREATE TABLE IF NOT EXISTS actions (
    match_id VARCHAR NOT NULL,
    board    INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    idx      INTEGER NOT NULL,              -- 0, 1, 2, ... in the order taken
    seat     INTEGER NOT NULL,
    kind     VARCHAR NOT NULL CHECK (kind IN ('bid', 'schmeiss', 'trump', 'declare', 'exchange', 'card')),
    value    VARCHAR NOT NULL,              -- bid: "pass" "take" "take H" "all-trumps" "no-trumps" "schmeiss";
                                            -- schmeiss: "accept" "refuse"; trump: "H";
                                            -- declare: JSON card lists, '[["7H","8H","9H"]]' ('[]' = none);
                                            -- exchange: "true" "false"; card: "JH" or "KS belote"
    ms       DOUBLE  NOT NULL,              -- wall time of the bot's call; 0 when the referee acted itself
    fault    VARCHAR                        -- fault kind when the referee played the fallback, else NULL
);

-- Every contrée call taken at a table (RULES.md §6.4 option contree), in the
-- same order as its actions rows: idx counts the actions and the calls of the
-- table together, so a table's decisions are both tables merged by idx. A table
-- of its own, so that actions.kind keeps its CHECK of schema version 2.
CREATE TABLE IF NOT EXISTS contree_calls (
    match_id VARCHAR NOT NULL,
    board    INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    idx      INTEGER NOT NULL,              -- the decision's place among the table's actions and calls
    seat     INTEGER NOT NULL,
    value    VARCHAR NOT NULL CHECK (value IN ('pass', 'contre', 'surcontre')),
    ms       DOUBLE  NOT NULL,              -- wall time of the bot's call; 0 when the referee acted itself
    fault    VARCHAR                        -- fault kind when the referee played the fallback, else NULL
);

-- Every bot fault (referee.records.FaultKind).
CREATE TABLE IF NOT EXISTS faults (
    match_id VARCHAR NOT NULL,
    board    INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    seat     INTEGER NOT NULL,
    entrant  VARCHAR NOT NULL,              -- entrant key
    kind     VARCHAR NOT NULL,              -- timeout | crash | connection | bot-error | malformed | wrong-kind | illegal | start
    detail   VARCHAR NOT NULL
);

-- One sequential probability ratio test between two entrants (arena sprt, arena/stats/sprt.py).
-- Its board pairs are those of the tournament of the same name (two entrants, one match).
CREATE TABLE IF NOT EXISTS sprt_tests (
    name               VARCHAR PRIMARY KEY,
    tournament         VARCHAR NOT NULL,    -- tournaments.name holding the board pairs
    entrant_a          VARCHAR NOT NULL,    -- entrant key; the hypotheses are A's advantage
    entrant_b          VARCHAR NOT NULL,
    model              VARCHAR NOT NULL,    -- 'gsprt-trinomial': board-pair W/D/L, generalized SPRT
    elo0               DOUBLE  NOT NULL,    -- H0: A is elo0 Elo stronger
    elo1               DOUBLE  NOT NULL,    -- H1: A is elo1 Elo stronger
    alpha              DOUBLE  NOT NULL,    -- P(accept H1 | H0)
    beta               DOUBLE  NOT NULL,    -- P(accept H0 | H1)
    max_boards         INTEGER NOT NULL,    -- board pairs after which the test stops undecided
    status             VARCHAR NOT NULL,    -- running | H0 | H1 | inconclusive
    board_pairs        INTEGER NOT NULL,    -- board pairs counted (up to the decision)
    board_pairs_stored INTEGER NOT NULL,    -- board pairs stored (a few more may have been in flight)
    wins               INTEGER NOT NULL,    -- A's board-pair record over board_pairs
    draws              INTEGER NOT NULL,
    losses             INTEGER NOT NULL,
    llr                DOUBLE  NOT NULL,    -- log-likelihood ratio of H1 against H0
    lower_bound        DOUBLE  NOT NULL,    -- log(beta / (1 - alpha)): accept H0 at or below
    upper_bound        DOUBLE  NOT NULL,    -- log((1 - beta) / alpha): accept H1 at or above
    elo                DOUBLE,              -- A - B in Elo over board_pairs (NULL before any)
    elo_low            DOUBLE,              -- its 95% interval (may be -inf / +inf at 0% / 100%)
    elo_high           DOUBLE,
    updated_at         TIMESTAMP NOT NULL,
    created_at         TIMESTAMP
);

-- How a tournament's matches are played (arena tournament run), fixed when it is created so
-- that a resumed run plays under the same deadline, fault limit and bot resource limits.
-- A tournament made before this table has no row: its next run stores the settings it uses.
CREATE TABLE IF NOT EXISTS tournament_settings (
    tournament  VARCHAR PRIMARY KEY,        -- tournaments.name (no foreign key: made on every open,
                                            -- before an older database's tables are upgraded)
    decision_ms INTEGER NOT NULL,           -- deadline of one decision, ms
    max_faults  INTEGER NOT NULL,           -- faults after which an entrant forfeits the rest of a match
    cpu_s       INTEGER NOT NULL,           -- bot sandbox: CPU seconds per process (0 = unlimited)
    memory_mib  INTEGER NOT NULL,           -- bot sandbox: memory per process and bot, MiB (0 = unlimited)
    time_bank_ms      INTEGER NOT NULL DEFAULT 0,  -- extra ms per bot process per match (0 = none); version 4
    time_increment_ms INTEGER NOT NULL DEFAULT 0,  -- ms added to the bank after each decision; version 4
    workers     INTEGER,                    -- the last run's --workers (0 = auto: the machine's cores;
                                            -- NULL = never given); not fixed: a run may give another. Version 4
    gauntlet    VARCHAR                     -- the entrant "name@version" who plays every other one (a
                                            -- gauntlet); NULL: a round robin. Fixed at creation. Version 4
);

-- Where each bot process's output was kept (--logs DIR of `arena tournament run` / `arena
-- sprt`): one row per process that held a seat during a board, for the web viewer's links.
-- log_path is relative to log_root, the run's --logs folder; the server serves a file only
-- inside it. Added to version 6 without an upgrade, as deal_suites.
CREATE TABLE IF NOT EXISTS bot_logs (
    match_id  VARCHAR NOT NULL,
    board     INTEGER NOT NULL,
    table_no  INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    log_root  VARCHAR NOT NULL,             -- the --logs folder, absolute
    log_path  VARCHAR NOT NULL,             -- the file, relative to log_root
    PRIMARY KEY (match_id, board, table_no, seat, log_path)
);

-- A tournament played on a deal suite (--deals FILE, arena/play/deals.py) instead of boards
-- dealt from its seed: the file it came from. Its boards are in `boards` (written at creation),
-- and a resume plays those; a resume given --deals must give a file of the same SHA-256.
-- Added to version 6 without an upgrade (made on every open for writing; readers check for it).
CREATE TABLE IF NOT EXISTS deal_suites (
    tournament  VARCHAR PRIMARY KEY,        -- tournaments.name
    file_name   VARCHAR NOT NULL,           -- the deal file's name, without its folder
    sha256      VARCHAR NOT NULL,           -- lowercase hex SHA-256 of the file's bytes
    file_boards INTEGER NOT NULL            -- boards in the file (the tournament plays the first boards_per_pair)
);

-- A competition (arena compete, arena/compete/): participants upload bots to its server from
-- their own machines (issue 22). Tables added to version 3 without an upgrade: every open for
-- writing creates them (CREATE ... IF NOT EXISTS), and only the competition server writes them.
-- Its policy is fixed at creation. practice_seed deals the validation boards (never rated,
-- never used by the ladder or the final); it is never shown nor exported.
CREATE TABLE IF NOT EXISTS competitions (
    name              VARCHAR   PRIMARY KEY,
    ruleset           VARCHAR   NOT NULL,   -- classic | strict | all-trumps | two-player
    options           JSON      NOT NULL,   -- Ruleset.options(): every resolved option
    uploads_per_day   INTEGER   NOT NULL,   -- uploads a participant may make in any 24 hours
    active_versions   INTEGER   NOT NULL,   -- a participant's active versions; the oldest retire beyond
    archive_mib       INTEGER   NOT NULL,   -- largest archive uploaded (compressed), MiB
    unpacked_mib      INTEGER   NOT NULL,   -- largest archive unpacked, MiB
    archive_files     INTEGER   NOT NULL,   -- most entries (files and folders) of an archive
    max_ratio         INTEGER   NOT NULL,   -- highest unpacked / compressed size of an archive
    decision_ms       INTEGER   NOT NULL,   -- deadline of one decision, ms
    cpu_s             INTEGER   NOT NULL,   -- bot sandbox: CPU seconds per process (0 = unlimited)
    memory_mib        INTEGER   NOT NULL,   -- bot sandbox: memory per process and bot, MiB (0 = unlimited)
    block_boards      INTEGER   NOT NULL,   -- boards of a ladder block (ladder_units)
    validation_boards INTEGER   NOT NULL,   -- boards of a validation match against the house bot
    practice_seed     VARCHAR   NOT NULL,   -- 256 random bits, decimal: deals the practice boards (secret)
    status            VARCHAR   NOT NULL CHECK (status IN ('open', 'closed')),
    created_at        TIMESTAMP NOT NULL
);

-- Who may call a competition's API: a participant (uploads bots, sees its own versions and
-- logs) or an admin (manages participants, sees every version). Tokens are shown once and
-- stored only as the SHA-256 of their text; token_hash is NULL once revoked.
CREATE TABLE IF NOT EXISTS compete_participants (
    competition VARCHAR   NOT NULL,         -- competitions.name
    name        VARCHAR   NOT NULL,
    scope       VARCHAR   NOT NULL CHECK (scope IN ('participant', 'admin')),
    token_hash  VARCHAR,                    -- lowercase hex SHA-256 of the token; NULL: revoked
    created_at  TIMESTAMP NOT NULL,
    token_at    TIMESTAMP,                  -- when the current token was issued (add, rotate)
    PRIMARY KEY (competition, name)
);

-- The version a participant chose to enter the final (arena remote final; without a row: its
-- latest active version). Written while the competition is open; read by arena compete close.
CREATE TABLE IF NOT EXISTS compete_final_choices (
    competition VARCHAR   NOT NULL,         -- competitions.name
    participant VARCHAR   NOT NULL,         -- compete_participants.name
    version_id  INTEGER   NOT NULL,         -- compete_versions.id, one of the participant's
    chosen_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (competition, participant)
);

-- An unrated match a participant asked for (arena remote challenge): its version against
-- chosen active versions, on practice boards of the challenge's own (never the ladder's or the
-- final's); only its summary is kept (result), no board pair is rated.
CREATE TABLE IF NOT EXISTS compete_challenges (
    id          INTEGER   PRIMARY KEY,      -- 1, 2, … per database
    competition VARCHAR   NOT NULL,         -- competitions.name
    participant VARCHAR   NOT NULL,         -- who asked
    version_id  INTEGER   NOT NULL,         -- the challenger, one of the participant's active versions
    opponents   JSON      NOT NULL,         -- [compete_versions.id]
    boards      INTEGER   NOT NULL,         -- boards against each opponent
    status      VARCHAR   NOT NULL CHECK (status IN ('queued', 'playing', 'done', 'failed')),
    result      JSON,                       -- per opponent: boards, wins, draws, losses, margin, faults
    reason      VARCHAR,                    -- failed: why
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);

-- One uploaded archive of a participant's bot and what became of it:
-- queued -> checking -> validating -> active (-> retired), or rejected (reason says why).
-- The archive is kept as <db folder>/compete/<competition>/archives/<archive_sha256>.tar.gz;
-- bot_name, bot_version and content_hash are known once it is unpacked (checking), and the
-- bots row (name, version) is written when it turns active.
-- The ladder refers to a version by id (ladder_units) and plays it as the entrant of its bots row.
CREATE TABLE IF NOT EXISTS compete_versions (
    id             INTEGER   PRIMARY KEY,   -- 1, 2, ... over the database
    competition    VARCHAR   NOT NULL,
    participant    VARCHAR   NOT NULL,      -- compete_participants.name
    archive_sha256 VARCHAR   NOT NULL,      -- the uploaded bytes' SHA-256: an upload made twice is one version
    archive_bytes  BIGINT    NOT NULL,
    status         VARCHAR   NOT NULL
                   CHECK (status IN ('queued', 'checking', 'validating', 'active', 'rejected', 'retired')),
    reason         VARCHAR,                 -- why rejected or retired
    bot_name       VARCHAR,
    bot_version    VARCHAR,
    content_hash   VARCHAR,                 -- referee.manifest.content_hash of the unpacked folder
    validation     JSON,                    -- per ruleset: boards, wins/draws/losses, margin, faults
    uploaded_at    TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL
);

-- One unit of a competition's ladder (arena/compete/ladder.py, schema version 6): one block of
-- boards played by two versions. The ladder's boards are dealt from the secret seed of the
-- tournament "<competition>:ladder" (its commitment public, its seed revealed when the
-- competition closes); block k is boards k*block_boards .. (k+1)*block_boards - 1. The block
-- counter is max(block) + 1, claimed in the transaction that inserts the row (the primary key
-- refuses a block twice): every block goes to one unit and is never played by another, so a
-- block's deals are public as soon as its board pairs are stored. A unit's board pairs are
-- stored in the transaction that marks it done (all or none); a unit still 'playing' when the
-- server stopped is replayed on the same block by the same versions (an infrastructure failure
-- never charges a bot), or 'void' (the block never used) when a version left the ladder first.
CREATE TABLE IF NOT EXISTS ladder_units (
    competition VARCHAR   NOT NULL,         -- competitions.name
    block       INTEGER   NOT NULL,         -- 0, 1, 2, ... the competition's block counter
    kind        VARCHAR   NOT NULL CHECK (kind IN ('placement', 'ladder')),
    version_a   INTEGER   NOT NULL,         -- compete_versions.id, the older version: A (NS at table 1)
    version_b   INTEGER   NOT NULL,         -- compete_versions.id, the newer version
    status      VARCHAR   NOT NULL CHECK (status IN ('playing', 'done', 'void')),
    attempts    INTEGER   NOT NULL,         -- times started (> 1: replayed after the server's failures)
    forfeit_a   BOOLEAN,                    -- A forfeited a board pair of the unit (its faults: a bot-caused failure)
    forfeit_b   BOOLEAN,
    detail      VARCHAR,                    -- the last infrastructure failure, or why void
    claimed_at  TIMESTAMP NOT NULL,
    done_at     TIMESTAMP,
    PRIMARY KEY (competition, block)
);

-- The double-dummy analysis of a deal (arena analyze, arena/analysis/boards.py): computed on
-- demand, never while a tournament plays, and cached here (schema version 5). Double dummy:
-- every seat sees every hand and plays to take the most trick points (RULES.md §6.2: card
-- points + dix de der, a capot 252 and 0): a yardstick of card play, not a verdict.
-- A deal without card play (passed out) has a row with NULL points and no cards.
CREATE TABLE IF NOT EXISTS dd_deals (
    match_id        VARCHAR NOT NULL,
    board           INTEGER NOT NULL,
    table_no        INTEGER NOT NULL,
    solver_version  INTEGER NOT NULL,       -- arena.analysis.boards.SOLVER_VERSION; other versions are recomputed
    ns_entrant      VARCHAR NOT NULL,       -- deals.ns_entrant (two players: seat 0)
    ew_entrant      VARCHAR NOT NULL,
    trick_points_ns INTEGER,                -- double-dummy trick points from the first card (capot: 252 / 0)
    trick_points_ew INTEGER,
    score_ns        INTEGER,                -- the double-dummy deal score, as the ruleset scores it
    score_ew        INTEGER,
    points_lost_ns  INTEGER NOT NULL,       -- sum of dd_cards.best_points - points over NS seats' cards
    points_lost_ew  INTEGER NOT NULL,
    PRIMARY KEY (match_id, board, table_no)
);

-- Every card played at an analysed table, against double dummy (schema version 5).
CREATE TABLE IF NOT EXISTS dd_cards (
    match_id    VARCHAR NOT NULL,
    board       INTEGER NOT NULL,
    table_no    INTEGER NOT NULL,
    play        INTEGER NOT NULL,           -- 0, 1, ... the card's place among the table's cards played
    trick       INTEGER NOT NULL,           -- 1..8 (two players: 1..9)
    seat        INTEGER NOT NULL,
    card        VARCHAR NOT NULL,           -- the card played ("JH")
    best_card   VARCHAR NOT NULL,           -- a card of the best double-dummy value (the card played if it is one)
    best_points INTEGER NOT NULL,           -- the seat's team's trick points at the deal's end after best_card
    points      INTEGER NOT NULL,           -- the same after the card played; best_points - points = points lost
    PRIMARY KEY (match_id, board, table_no, play)
);
