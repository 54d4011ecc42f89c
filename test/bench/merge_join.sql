-- The merge-join experiment: two tables with an int8 key, joined
--   1. by PostgreSQL's Merge Join (hash and nested-loop joins off, and
--      MergepathJoin and MergepathSort off),
--   2. by its Hash Join (merge and nested-loop joins off, MergepathJoin off),
--   3. by the plain SQL join with every setting at its default: the
--      planner's choice, MergepathJoin offered (the plan's join is shown),
--   4. by MergepathJoin on each backend (PostgreSQL's joins off),
--   5. by gpu_join over each table's keys gathered as a sorted array
--      (gpu_sort_agg(k), with the row ids in the same order by
--      gpu_sort_agg(id, k)), the positions it returns mapped back to the
--      rows, on each backend (the aggregates' sorts too).
-- With kinds = on, also a left, a full and an anti join of the first table
-- with a third that holds 7 of each 10 keys, by 1-4.
-- Every query returns the number of joined rows and a checksum of the
-- pairs' ids, which must agree.  Times: median of reps runs (default 3)
-- after the run that gives the checksum, end to end in the server
-- (gathering the arrays included), one backend process, no parallel
-- workers, work_mem large enough that nothing spills.
-- Variables: rows (comma-separated), dup (copies of each key a side, 1 for
-- unique keys), gpu (on/off), reps, kinds (on/off), functions (on/off: the
-- gpu_join rows).
\if :{?reps}
\else
\set reps 3
\endif
\if :{?kinds}
\else
\set kinds off
\endif
\if :{?functions}
\else
\set functions on
\endif
\ir sql_bench_common.sql
SET work_mem = '4GB';
LOAD 'mergepath';		-- the join path needs the library when plans are made

-- the plan's join node, to show which join PostgreSQL ran
CREATE FUNCTION pg_temp.join_node(query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  plan text;
BEGIN
  FOR plan IN EXECUTE 'EXPLAIN (FORMAT TEXT) ' || query LOOP
    IF plan ~ '(Merge|Hash) (Left |Right |Full |Anti |Semi )?Join|Nested Loop|MergepathJoin' THEN
      RETURN substring(plan FROM '(Merge (Left |Right |Full |Anti |Semi )?Join|Hash (Left |Right |Full |Anti |Semi )?Join|Nested Loop|MergepathJoin)');
    END IF;
  END LOOP;
  RETURN '?';
END $$;

CREATE TEMP TABLE results (rows int8, dup int, query text, method text, ms numeric, pairs int8,
                           checksum numeric);

-- q by PostgreSQL's Merge Join and Hash Join, by the planner's choice, and by
-- MergepathJoin on each backend, into results as query `name`
CREATE FUNCTION pg_temp.run_joins(name text, q text, n int8, dup int, gpu bool, reps int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  c int8;
  s numeric;
  node text;
BEGIN
  -- PostgreSQL's own: no MergepathJoin, and no MergepathSort under its Merge Join
  SET mergepath.enable_join = off;
  SET mergepath.enable_sort = off;
  SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_mergejoin = on;
  node := pg_temp.join_node(q);
  EXECUTE q INTO c, s;
  INSERT INTO results VALUES (n, dup, name, 'PostgreSQL ' || node, pg_temp.median_ms(q, reps, false), c, s);
  SET enable_hashjoin = on; SET enable_mergejoin = off;
  node := pg_temp.join_node(q);
  EXECUTE q INTO c, s;
  INSERT INTO results VALUES (n, dup, name, 'PostgreSQL ' || node, pg_temp.median_ms(q, reps, false), c, s);
  RESET enable_hashjoin; RESET enable_nestloop; RESET enable_mergejoin;
  RESET mergepath.enable_join;
  RESET mergepath.enable_sort;

  node := pg_temp.join_node(q);
  EXECUTE q INTO c, s;
  INSERT INTO results VALUES (n, dup, name, 'planner''s choice: ' || node, pg_temp.median_ms(q, reps, false), c, s);

  SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_mergejoin = off;
  SET mergepath.device = cpu;
  node := pg_temp.join_node(q);
  EXECUTE q INTO c, s;
  INSERT INTO results VALUES (n, dup, name, node || ', cpu backend', pg_temp.median_ms(q, reps, false), c, s);
  IF gpu THEN
    SET mergepath.device = gpu;
    EXECUTE q INTO c, s;
    INSERT INTO results VALUES (n, dup, name, node || ', gpu backend', pg_temp.median_ms(q, reps, false), c, s);
  END IF;
  RESET mergepath.device;
  RESET enable_hashjoin; RESET enable_nestloop; RESET enable_mergejoin;
END $$;

CREATE FUNCTION pg_temp.run(n int8, dup int, gpu bool, reps int, kinds bool, functions bool) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  native text := 'SELECT count(*), sum(t1.id + t2.id) FROM mj1 t1 JOIN mj2 t2 ON t1.k = t2.k';
  by_function text := 'SELECT count(*), sum(a.ids[g.a_pos] + b.ids[g.b_pos])
    FROM (SELECT gpu_sort_agg(k) AS keys, gpu_sort_agg(id, k) AS ids FROM mj1) a,
         (SELECT gpu_sort_agg(k) AS keys, gpu_sort_agg(id, k) AS ids FROM mj2) b,
         gpu_join(a.keys, b.keys) g';
  arrays text := 'SELECT cardinality(a.ids) + cardinality(b.ids), 0
    FROM (SELECT gpu_sort_agg(k) AS keys, gpu_sort_agg(id, k) AS ids FROM mj1) a,
         (SELECT gpu_sort_agg(k) AS keys, gpu_sort_agg(id, k) AS ids FROM mj2) b';
  c int8;
  s numeric;
  node text;
BEGIN
  DROP TABLE IF EXISTS mj1, mj2, mj3;
  -- a permutation of the keys (each key dup times) in random row order
  CREATE TABLE mj1 AS SELECT i AS id, (i % (n / dup))::int8 * 7 AS k FROM generate_series(1, n) i ORDER BY random();
  CREATE TABLE mj2 AS SELECT i AS id, ((i * 31) % (n / dup))::int8 * 7 AS k FROM generate_series(1, n) i ORDER BY random();
  ANALYZE mj1;
  ANALYZE mj2;

  PERFORM pg_temp.run_joins('inner', native, n, dup, gpu, reps);
  IF kinds THEN
    -- 7 of each 10 keys of mj1
    CREATE TABLE mj3 AS SELECT id, k FROM mj1 WHERE id % 10 < 7 ORDER BY random();
    ANALYZE mj3;
    PERFORM pg_temp.run_joins('left', 'SELECT count(*), sum(t1.id + coalesce(t3.id, 0)) FROM mj1 t1 LEFT JOIN mj3 t3 ON t1.k = t3.k', n, dup, gpu, reps);
    PERFORM pg_temp.run_joins('full', 'SELECT count(*), sum(coalesce(t2.id, 0) + coalesce(t3.id, 0)) FROM mj2 t2 FULL JOIN mj3 t3 ON t2.k = t3.k', n, dup, gpu, reps);
    PERFORM pg_temp.run_joins('anti', 'SELECT count(*), sum(t2.id) FROM mj2 t2 WHERE NOT EXISTS (SELECT FROM mj3 t3 WHERE t3.k = t2.k)', n, dup, gpu, reps);
    DROP TABLE mj3;
  END IF;
  IF NOT functions THEN
    DROP TABLE mj1, mj2;
    RETURN;
  END IF;

  -- what the function-based join pays before it starts: sorting both tables
  -- into arrays (its pairs and checksum are not comparable)
  INSERT INTO results VALUES (n, dup, 'inner', 'the arrays alone', pg_temp.median_ms(arrays, reps), NULL, NULL);

  SET mergepath.device = cpu;
  EXECUTE by_function INTO c, s;
  INSERT INTO results VALUES (n, dup, 'inner', 'gpu_join, cpu backend', pg_temp.median_ms(by_function, reps, false), c, s);
  IF gpu THEN
    SET mergepath.device = gpu;
    EXECUTE by_function INTO c, s;
    INSERT INTO results VALUES (n, dup, 'inner', 'gpu_join, gpu backend', pg_temp.median_ms(by_function, reps, false), c, s);
  END IF;
  RESET mergepath.device;
  DROP TABLE mj1, mj2;
END $$;

\o /dev/null
SELECT pg_temp.run(r::int8, :dup, :'gpu' = 'on', :reps, :'kinds' = 'on', :'functions' = 'on')
FROM unnest(string_to_array(:'rows', ',')) r;
\o

-- each method against PostgreSQL's faster join of the two
SELECT rows, dup AS "copies a key", query, method, ms,
       round(min(ms) FILTER (WHERE method LIKE 'PostgreSQL%') OVER p / ms, 2) AS "x PostgreSQL's best",
       pairs,
       CASE WHEN pairs IS NULL THEN ''
            WHEN checksum = first_value(checksum) OVER w AND pairs = first_value(pairs) OVER w
            THEN 'same' ELSE 'DIFFERENT' END AS "pairs agree"
FROM results
WINDOW w AS (PARTITION BY rows, dup, query ORDER BY pairs IS NULL, method),
       p AS (PARTITION BY rows, dup, query)
ORDER BY rows, dup, query, method;
