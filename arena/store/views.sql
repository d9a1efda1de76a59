-- Belote Arena views (DuckDB), made by arena/store/schema.py after arena/store/schema.sql and
-- any upgrade, on every open for writing (CREATE OR REPLACE: idempotent).
-- Words and units as in schema.sql.

-- Every board pair from each entrant's side: the rows ratings count (RULES.md §8).
-- outcome: 'win' | 'draw' | 'loss' for `entrant`; a forfeit loses whatever the margin.
CREATE OR REPLACE VIEW entrant_board_pairs AS
SELECT m.tournament, m.ruleset, p.match_id, p.board, m.entrant_a AS entrant, m.entrant_b AS opponent,
       p.points_a AS points, p.points_b AS opponent_points, p.margin, p.forfeit_a AS forfeit,
       p.forfeit_b AS opponent_forfeit, p.outcome_a AS outcome
FROM board_pairs p JOIN matches m USING (match_id)
UNION ALL
SELECT m.tournament, m.ruleset, p.match_id, p.board, m.entrant_b, m.entrant_a, p.points_b, p.points_a, -p.margin,
       p.forfeit_b, p.forfeit_a,
       CASE p.outcome_a WHEN 'win' THEN 'loss' WHEN 'loss' THEN 'win' ELSE 'draw' END
FROM board_pairs p JOIN matches m USING (match_id);

-- Every action with the entrant that took it (its seat's side at that table: NS holds
-- seats 0 and 2, EW 1 and 3; two players: seat 0 and seat 1). ms = 0 when the referee
-- acted itself (fault is then the fault kind). The contrée calls (RULES.md §6.4, table
-- contree_calls) are in it too, as kind 'call'.
CREATE OR REPLACE VIEW entrant_actions AS
SELECT a.match_id, a.board, a.table_no, a.idx, a.seat,
       CASE WHEN a.seat % 2 = 0 THEN d.ns_entrant ELSE d.ew_entrant END AS entrant,
       a.kind, a.value, a.ms, a.fault
FROM (SELECT match_id, board, table_no, idx, seat, kind, value, ms, fault FROM actions
      UNION ALL
      SELECT match_id, board, table_no, idx, seat, 'call', value, ms, fault FROM contree_calls) a
JOIN deals d USING (match_id, board, table_no);
