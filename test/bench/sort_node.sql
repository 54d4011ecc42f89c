-- MergepathSort beside PostgreSQL's own Sort, in one backend.  Each case is
-- a query whose plan has one Sort, over a table of n rows:
--   int4          SELECT sum(p1) FROM (SELECT * FROM t ORDER BY k OFFSET 0) q,
--                 random int4 keys and one payload column (int4)
--   int4x3        the same with three payload columns (int4, int8, float8)
--   int4x3nearly  keys nearly sorted: 1% of the rows moved anywhere
--   int8x3, float8x3  random int8 / float8 keys, three payload columns
--   group         SELECT count(*), sum(s) FROM (SELECT k, sum(p1) AS s FROM t
--                 GROUP BY k) q over int4x3's table (hash aggregation off)
--   window        SELECT max(rn) FROM (SELECT row_number() OVER (ORDER BY k)
--                 AS rn FROM t) q over int4x3's table
-- Methods: PostgreSQL's Sort with work_mem = 16GB (in memory) and 4MB (the
-- default: an external merge), MergepathSort on the CPU and the GPU backend
-- (work_mem = 16GB), and for the plain ORDER BY cases a floor: the same rows
-- kept and returned with no sort (WITH m AS MATERIALIZED (SELECT * FROM t)
-- SELECT sum(p1) FROM m), whose CTE Scan's own time is what EXPLAIN ANALYZE
-- charges any node that keeps every row and returns it (the clock reads
-- around each row in and out, a copy each way).  For each, the sort node's own time (EXPLAIN ANALYZE:
-- its total less its input's) and the whole query's, timed without EXPLAIN
-- after the EXPLAIN ANALYZE run (median of 3 below 10M rows, else one run).
-- With small = 1: whole queries only (median of 7), at the sizes where
-- mergepath.sort_min_rows is chosen.  methods, when set, names the methods
-- (Sort, Sort 4MB, cpu, gpu, floor).  Run through test/bench/sort_node.sh.
\ir sql_bench_common.sql
LOAD 'mergepath';
SET jit = off;
SET mergepath.sort_min_rows = 0;

-- the sort node's own time in q's plan, and (for MergepathSort) its backend
-- and phases
CREATE FUNCTION pg_temp.sort_node(q text, OUT own_ms numeric, OUT backend text, OUT phases text)
LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
  node jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
  WITH RECURSIVE walk(n) AS (
    SELECT plan->0->'Plan'
    UNION ALL
    SELECT c FROM walk, jsonb_array_elements(walk.n->'Plans') c)
  SELECT n INTO node FROM walk
  WHERE n->>'Node Type' IN ('Sort', 'CTE Scan') OR n->>'Custom Plan Provider' = 'MergepathSort'
  LIMIT 1;
  own_ms := round(((node->>'Actual Total Time')::numeric -
                   coalesce((SELECT sum((c->>'Actual Total Time')::numeric)
                             FROM jsonb_array_elements(node->'Plans') c), 0)), 1);
  IF node->>'Node Type' = 'CTE Scan' THEN
    -- the CTE's own plan hangs from the top node; the scan's time includes it
    own_ms := own_ms - round((SELECT sum((c->>'Actual Total Time')::numeric)
                              FROM jsonb_array_elements(plan->0->'Plan'->'Plans') c
                              WHERE c->>'Subplan Name' LIKE 'CTE %'), 1);
  END IF;
  backend := coalesce(split_part(node->>'Sort Backend', ' ', 1), 'PostgreSQL');
  phases := format('%s: %s / %s / %s / %s',
                   round((SELECT sum((c->>'Actual Total Time')::numeric)
                          FROM jsonb_array_elements(node->'Plans') c), 1),
                   round((node->>'Read Time')::numeric, 1),
                   round((node->>'Keys Time')::numeric, 1), round((node->>'Sort Time')::numeric, 1),
                   round((node->>'Return Time')::numeric, 1));
END $$;

CREATE TEMP TABLE bench_params AS
SELECT string_to_array(:'sizes', ',')::int[] AS sizes, string_to_array(:'cases', ',') AS cases,
       :'gpu' = 'on' AS gpu, :'small' = '1' AS small,
       string_to_array(nullif(:'methods', ''), ',') AS methods;
CREATE TEMP TABLE sort_results (case_name text, rows int, method text, node_ms numeric,
                                query_ms numeric, backend text, phases text);

-- the GPU's context is made before anything is timed
DO $$
BEGIN
  IF (SELECT gpu FROM bench_params) THEN
    PERFORM set_config('mergepath.device', 'gpu', true);
    PERFORM gpu_sort('{3,1,2}'::int4[]);
  END IF;
END $$;

DO $$
DECLARE
  p record;
  n int;
  c text;
  m text;
  tbl text;
  q text;
  fq text;
  reps int;
  node record;
  methods text[];
BEGIN
  SELECT * INTO p FROM bench_params;
  methods := CASE WHEN p.methods IS NOT NULL THEN p.methods
                  WHEN p.small THEN '{Sort,cpu,gpu}'::text[]
                  ELSE '{Sort,Sort 4MB,cpu,gpu,floor}'::text[] END;
  FOREACH n IN ARRAY p.sizes LOOP
    FOREACH c IN ARRAY p.cases LOOP
      tbl := CASE c WHEN 'int4' THEN 'sb_int4' WHEN 'int4x3nearly' THEN 'sb_nearly'
                    WHEN 'int8x3' THEN 'sb_int8' WHEN 'float8x3' THEN 'sb_float8' ELSE 'sb_int4x3' END;
      IF to_regclass(tbl) IS NULL THEN
        EXECUTE format($f$CREATE UNLOGGED TABLE %I AS SELECT %s AS k, g AS p1 %s
                          FROM generate_series(1, %s) g$f$, tbl,
          CASE tbl WHEN 'sb_int8' THEN '(random() * 9e18 - 4.5e18)::int8'
                   WHEN 'sb_float8' THEN '(random() * 2e9 - 1e9)::float8'
                   WHEN 'sb_nearly' THEN 'CASE WHEN random() < 0.01 THEN (random() * 2e9 - 1e9)::int4 ELSE g END'
                   ELSE '(random() * 2e9 - 1e9)::int4' END,
          CASE tbl WHEN 'sb_int4' THEN '' ELSE ', g::int8 * 3 AS p2, g / 7.0::float8 AS p3' END, n);
        EXECUTE format('ANALYZE %I', tbl);
        EXECUTE format('SELECT count(*) FROM %I', tbl);		-- sets the hint bits
      END IF;
      q := CASE c
        WHEN 'group' THEN format('SELECT count(*), sum(s) FROM (SELECT k, sum(p1) AS s FROM %I GROUP BY k) q', tbl)
        WHEN 'window' THEN format('SELECT max(rn) FROM (SELECT row_number() OVER (ORDER BY k) AS rn FROM %I) q', tbl)
        ELSE format('SELECT sum(p1) FROM (SELECT * FROM %I ORDER BY k OFFSET 0) q', tbl) END;
      fq := format('WITH m AS MATERIALIZED (SELECT * FROM %I) SELECT sum(p1) FROM m', tbl);
      reps := CASE WHEN p.small THEN 7 WHEN n >= 10000000 THEN 1 ELSE 3 END;
      FOREACH m IN ARRAY methods LOOP
        CONTINUE WHEN m = 'gpu' AND NOT p.gpu;
        CONTINUE WHEN m = 'floor' AND (c IN ('group', 'window') OR p.small);
        PERFORM set_config('enable_hashagg', 'off', false);
        PERFORM set_config('work_mem', CASE m WHEN 'Sort 4MB' THEN '4MB' ELSE '16GB' END, false);
        PERFORM set_config('mergepath.enable_sort', (m IN ('cpu', 'gpu'))::text, false);
        PERFORM set_config('mergepath.device', CASE WHEN m IN ('cpu', 'gpu') THEN m ELSE 'auto' END, false);
        IF p.small THEN
          INSERT INTO sort_results VALUES (c, n, m, NULL, pg_temp.median_ms(q, reps), NULL, NULL);
        ELSE
          node := pg_temp.sort_node(CASE m WHEN 'floor' THEN fq ELSE q END);
          INSERT INTO sort_results
          VALUES (c, n, m, node.own_ms,
                  pg_temp.median_ms(CASE m WHEN 'floor' THEN fq ELSE q END, reps, false),
                  node.backend, node.phases);
        END IF;
        RAISE NOTICE '% rows, %, %: %', n, c, m,
          (SELECT format('node %s ms, query %s ms, %s', node_ms, query_ms, phases) FROM sort_results
           WHERE case_name = c AND rows = n AND method = m);
      END LOOP;
    END LOOP;
    DROP TABLE IF EXISTS sb_int4, sb_int4x3, sb_nearly, sb_int8, sb_float8;
  END LOOP;
  RESET enable_hashagg;
  RESET work_mem;
  RESET mergepath.enable_sort;
  RESET mergepath.device;
END $$;

-- every MergepathSort run on the backend it was meant for
SELECT case_name, rows, method, backend AS "WRONG BACKEND" FROM sort_results
WHERE method IN ('cpu', 'gpu') AND backend IS DISTINCT FROM method AND NOT (SELECT small FROM bench_params);

CREATE TEMP VIEW sort_table AS
SELECT r.case_name, r.rows,
       s.node_ms AS s_node, s4.node_ms AS s4_node, c.node_ms AS c_node, g.node_ms AS g_node,
       f.node_ms AS f_node,
       s.query_ms AS s_query, s4.query_ms AS s4_query, c.query_ms AS c_query, g.query_ms AS g_query
FROM (SELECT DISTINCT case_name, rows FROM sort_results) r
LEFT JOIN sort_results s ON s.case_name = r.case_name AND s.rows = r.rows AND s.method = 'Sort'
LEFT JOIN sort_results s4 ON s4.case_name = r.case_name AND s4.rows = r.rows AND s4.method = 'Sort 4MB'
LEFT JOIN sort_results c ON c.case_name = r.case_name AND c.rows = r.rows AND c.method = 'cpu'
LEFT JOIN sort_results g ON g.case_name = r.case_name AND g.rows = r.rows AND g.method = 'gpu'
LEFT JOIN sort_results f ON f.case_name = r.case_name AND f.rows = r.rows AND f.method = 'floor';

\if :small
\echo
\echo whole query, ms (median of 7): Sort, and MergepathSort on each backend
SELECT case_name AS "case", rows, s_query AS "Sort", c_query AS "node cpu", g_query AS "node gpu",
       round(s_query / c_query, 2) AS "Sort/cpu", round(s_query / g_query, 2) AS "Sort/gpu"
FROM sort_table ORDER BY case_name, rows;
\else
\echo
\echo the sort node own time (EXPLAIN ANALYZE: its total less its input), ms; floor: a CTE
\echo Scan that keeps and returns the same rows unsorted
SELECT case_name AS "case", rows, s_node AS "Sort", s4_node AS "Sort 4MB", c_node AS "node cpu",
       g_node AS "node gpu", f_node AS "floor", round(s_node / c_node, 2) AS "Sort/cpu",
       round(s_node / g_node, 2) AS "Sort/gpu"
FROM sort_table ORDER BY case_name, rows;
\echo
\echo the whole query, ms
SELECT case_name AS "case", rows, s_query AS "Sort", s4_query AS "Sort 4MB", c_query AS "node cpu",
       g_query AS "node gpu", round(s_query / c_query, 2) AS "Sort/cpu", round(s_query / g_query, 2) AS "Sort/gpu"
FROM sort_table ORDER BY case_name, rows;
\echo
\echo MergepathSort phases from EXPLAIN ANALYZE, ms: its input: reading rows (the input included) / keys / sort / returning rows
SELECT case_name AS "case", rows, method AS backend, phases FROM sort_results
WHERE method IN ('cpu', 'gpu') ORDER BY case_name, rows, method;
\endif
