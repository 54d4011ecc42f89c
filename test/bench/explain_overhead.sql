-- What EXPLAIN ANALYZE's per-row timing adds to a plan, beside the same
-- query without EXPLAIN: a scan under an aggregate, and the same with a
-- sort (PostgreSQL's Sort, and MergepathSort on each backend).  Run with
-- psql -v rows=N against a server with mergepath installed.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS mergepath;
LOAD 'mergepath';
SET jit = off;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '16GB';
SET mergepath.sort_min_rows = 0;
CREATE UNLOGGED TABLE eo_rows AS
SELECT (random() * 2e9 - 1e9)::int4 AS k, g AS p1 FROM generate_series(1, :rows) g;
ANALYZE eo_rows;
SELECT count(*) FROM eo_rows;

CREATE FUNCTION pg_temp.ms(q text, explain text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  best float8 := 'Infinity';
BEGIN
  FOR i IN 1..3 LOOP
    t0 := clock_timestamp();
    EXECUTE explain || q;
    best := least(best, extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
  RETURN round(best::numeric, 1);
END $$;

CREATE TEMP TABLE eo (query text, setting text, plain numeric, timing_off numeric, timing_on numeric);
DO $$
DECLARE
  q text;
  s text;
BEGIN
  FOREACH q IN ARRAY ARRAY['SELECT sum(p1) FROM (SELECT * FROM eo_rows OFFSET 0) q',
                           'SELECT sum(p1) FROM (SELECT * FROM eo_rows ORDER BY k OFFSET 0) q'] LOOP
    FOREACH s IN ARRAY ARRAY['Sort', 'cpu', 'gpu'] LOOP
      CONTINUE WHEN q NOT LIKE '%ORDER BY%' AND s <> 'Sort';
      CONTINUE WHEN s = 'gpu' AND mergepath_info()->'gpu'->>'available' <> 'true';
      PERFORM set_config('mergepath.enable_sort', (s <> 'Sort')::text, false);
      PERFORM set_config('mergepath.device', CASE s WHEN 'Sort' THEN 'auto' ELSE s END, false);
      INSERT INTO eo VALUES (q, CASE WHEN q LIKE '%ORDER BY%' THEN s ELSE '' END, pg_temp.ms(q, ''),
                             pg_temp.ms(q, 'EXPLAIN (ANALYZE, TIMING OFF) '),
                             pg_temp.ms(q, 'EXPLAIN (ANALYZE) '));
    END LOOP;
  END LOOP;
END $$;
\echo whole query, ms (best of 3): plain, under EXPLAIN ANALYZE with TIMING OFF, and with timing
SELECT CASE WHEN query LIKE '%ORDER BY%' THEN 'ORDER BY k' ELSE 'no sort' END AS query, setting,
       plain, timing_off, timing_on, timing_on - timing_off AS "timing adds"
FROM eo;
DROP TABLE eo_rows;
