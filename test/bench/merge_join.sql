-- The merge-join experiment: two tables with an int8 key, joined
--   1. by PostgreSQL's Merge Join (hash and nested-loop joins off),
--   2. by its Hash Join (merge and nested-loop joins off),
--   3. by gpu_join over each table's keys gathered as a sorted array
--      (array_agg(k ORDER BY k), with the row ids in the same order), the
--      positions it returns mapped back to the rows, on each backend.
-- Every query returns the number of joined rows and a checksum of the
-- pairs' ids, which must agree.  Times: median of reps runs (default 3)
-- after the run that gives the checksum, end to end in the server
-- (gathering the arrays included), one backend process, no parallel
-- workers, work_mem large enough that nothing spills.
-- Variables: rows (comma-separated), dup (copies of each key a side, 1 for
-- unique keys), gpu (on/off), reps.
\if :{?reps}
\else
\set reps 3
\endif
\ir sql_bench_common.sql
SET work_mem = '4GB';

-- the plan's join node, to show which join PostgreSQL ran
CREATE FUNCTION pg_temp.join_node(query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  plan text;
BEGIN
  FOR plan IN EXECUTE 'EXPLAIN (FORMAT TEXT) ' || query LOOP
    IF plan ~ '(Merge|Hash) Join|Nested Loop' THEN
      RETURN substring(plan FROM '(Merge Join|Hash Join|Nested Loop)');
    END IF;
  END LOOP;
  RETURN '?';
END $$;

CREATE TEMP TABLE results (rows int8, dup int, method text, ms numeric, pairs int8, checksum numeric);

CREATE FUNCTION pg_temp.run(n int8, dup int, gpu bool, reps int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  native text := 'SELECT count(*), sum(t1.id + t2.id) FROM mj1 t1 JOIN mj2 t2 ON t1.k = t2.k';
  by_function text := 'SELECT count(*), sum(a.ids[g.a_pos] + b.ids[g.b_pos])
    FROM (SELECT array_agg(k ORDER BY k) AS keys, array_agg(id ORDER BY k) AS ids FROM mj1) a,
         (SELECT array_agg(k ORDER BY k) AS keys, array_agg(id ORDER BY k) AS ids FROM mj2) b,
         gpu_join(a.keys, b.keys) g';
  arrays text := 'SELECT cardinality(a.ids) + cardinality(b.ids), 0
    FROM (SELECT array_agg(k ORDER BY k) AS keys, array_agg(id ORDER BY k) AS ids FROM mj1) a,
         (SELECT array_agg(k ORDER BY k) AS keys, array_agg(id ORDER BY k) AS ids FROM mj2) b';
  c int8;
  s numeric;
  node text;
BEGIN
  DROP TABLE IF EXISTS mj1, mj2;
  -- a permutation of the keys (each key dup times) in random row order
  CREATE TABLE mj1 AS SELECT i AS id, (i % (n / dup))::int8 * 7 AS k FROM generate_series(1, n) i ORDER BY random();
  CREATE TABLE mj2 AS SELECT i AS id, ((i * 31) % (n / dup))::int8 * 7 AS k FROM generate_series(1, n) i ORDER BY random();
  ANALYZE mj1;
  ANALYZE mj2;

  SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_mergejoin = on;
  node := pg_temp.join_node(native);
  EXECUTE native INTO c, s;
  INSERT INTO results VALUES (n, dup, 'PostgreSQL ' || node, pg_temp.median_ms(native, reps, false), c, s);
  SET enable_hashjoin = on; SET enable_mergejoin = off;
  node := pg_temp.join_node(native);
  EXECUTE native INTO c, s;
  INSERT INTO results VALUES (n, dup, 'PostgreSQL ' || node, pg_temp.median_ms(native, reps, false), c, s);
  RESET enable_hashjoin; RESET enable_nestloop; RESET enable_mergejoin;

  -- what the function-based join pays before it starts: sorting both tables
  -- into arrays (its pairs and checksum are not comparable)
  INSERT INTO results VALUES (n, dup, 'the arrays alone', pg_temp.median_ms(arrays, reps), NULL, NULL);

  SET mergepath.device = cpu;
  EXECUTE by_function INTO c, s;
  INSERT INTO results VALUES (n, dup, 'gpu_join, cpu backend', pg_temp.median_ms(by_function, reps, false), c, s);
  IF gpu THEN
    SET mergepath.device = gpu;
    EXECUTE by_function INTO c, s;
    INSERT INTO results VALUES (n, dup, 'gpu_join, gpu backend', pg_temp.median_ms(by_function, reps, false), c, s);
  END IF;
  RESET mergepath.device;
  DROP TABLE mj1, mj2;
END $$;

\o /dev/null
SELECT pg_temp.run(r::int8, :dup, :'gpu' = 'on', :reps)
FROM unnest(string_to_array(:'rows', ',')) r;
\o

SELECT rows, dup AS "copies a key", method, ms, pairs,
       CASE WHEN pairs IS NULL THEN ''
            WHEN checksum = first_value(checksum) OVER w AND pairs = first_value(pairs) OVER w
            THEN 'same' ELSE 'DIFFERENT' END AS "pairs agree"
FROM results
WINDOW w AS (PARTITION BY rows, dup ORDER BY pairs IS NULL, method)
ORDER BY rows, dup, method;
