-- MergepathSort on the settings servers run, beside PostgreSQL's own plan:
-- three queries whose plans sort a table s of n rows (id int4, k int4 random,
-- p1 int8, p2 float8), whole-query times (planning and parallel workers'
-- start included), on three settings:
--   defaults      work_mem 4MB, max_parallel_workers_per_gather 2
--   1GB, 2 wk     work_mem 1GB, 2 workers
--   1GB, 8 wk     work_mem 1GB, 8 workers (the planner takes as many as the
--                 table's size gives it)
-- The queries, and their floors (the same query without its sort):
--   order   SELECT sum(p1) FROM (SELECT * FROM s ORDER BY k OFFSET 0) q
--           floor: the subquery without ORDER BY
--   window  SELECT max(rn) FROM (SELECT row_number() OVER (ORDER BY k, id) AS rn FROM s) q
--           floor: row_number() OVER ()
--   copy    COPY (SELECT id, k, p1 FROM s ORDER BY k) TO '/dev/null'
--           floor: without ORDER BY
-- Columns: PostgreSQL's plan (mergepath.enable_sort off), mergepath on the
-- GPU and on the CPU backend, the floor; each query's sort share is its time
-- less the floor's, and the ratios are mergepath's share over PostgreSQL's.
-- "plan" says whether MergepathSort is in the plan (every worker's sort in
-- a parallel plan), "order 1GB" how the 4-column ORDER BY at work_mem 1GB
-- sorted (EXPLAIN ANALYZE on the GPU).  One run each, after a warm-up run of
-- each method on each setting; median of 3 below 10M rows.  Run through
-- test/bench/sort_settings.sh, a size at a time (psql variable n).
\ir sql_bench_common.sql
SET jit = off;
SET mergepath.sort_min_rows = 1000;

CREATE FUNCTION pg_temp.run_ms(q text, reps int) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN
  RETURN pg_temp.median_ms(q, reps, false);
END $$;

-- whether every sort of q's plan is a MergepathSort (and there is one); of a
-- COPY, its query's plan
CREATE FUNCTION pg_temp.plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
BEGIN
  IF q ~ '^COPY \(' THEN
    q := substring(q FROM '^COPY \((.*)\) TO ');
  END IF;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN CASE WHEN plan ~ '\mSort\M' AND plan !~ 'MergepathSort' THEN 'Sort'
              WHEN plan ~ 'MergepathSort' AND plan ~ '-> +Sort\M' THEN 'mixed'
              WHEN plan ~ 'MergepathSort' THEN
                CASE WHEN plan ~ 'Gather' THEN 'MergepathSort (parallel)' ELSE 'MergepathSort' END
              ELSE 'no sort' END;
END $$;

SET bench.gpu = :'gpu';
CREATE TABLE s AS SELECT g::int4 AS id, (random() * 2e9 - 1e9)::int4 AS k,
                         (random() * 1e12)::int8 AS p1, random() AS p2
                  FROM generate_series(1, :n) g;
ALTER TABLE s SET (autovacuum_enabled = off);
VACUUM ANALYZE s;
CREATE TEMP TABLE results (n bigint, si int, setting text, query text, plan text,
                           pg numeric, gpu numeric, cpu numeric, floor numeric);

DO $$
DECLARE
  n bigint := (SELECT count(*) FROM s);
  settings text[][] := ARRAY[ARRAY['defaults', '4MB', '2'],
                             ARRAY['1GB, 2 workers', '1GB', '2'],
                             ARRAY['1GB, 8 workers', '1GB', '8']];
  queries text[][] := ARRAY[
    ARRAY['order', 'SELECT sum(p1) FROM (SELECT * FROM s ORDER BY k OFFSET 0) q',
          'SELECT sum(p1) FROM (SELECT * FROM s OFFSET 0) q'],
    ARRAY['window', 'SELECT max(rn) FROM (SELECT row_number() OVER (ORDER BY k, id) AS rn FROM s) q',
          'SELECT max(rn) FROM (SELECT row_number() OVER () AS rn FROM s) q'],
    ARRAY['copy', 'COPY (SELECT id, k, p1 FROM s ORDER BY k) TO ''/dev/null''',
          'COPY (SELECT id, k, p1 FROM s) TO ''/dev/null''']];
  reps int;
  r results;
  gpu bool := current_setting('bench.gpu') = 'on';
BEGIN
    reps := CASE WHEN n < 10000000 THEN 3 ELSE 1 END;
    FOR si IN 1..3 LOOP
      PERFORM set_config('work_mem', settings[si][2], false);
      PERFORM set_config('max_parallel_workers_per_gather', settings[si][3], false);
      FOR qi IN 1..3 LOOP
        r := ROW(n, si, settings[si][1], queries[qi][1], NULL, NULL, NULL, NULL, NULL);
        r.plan := pg_temp.plan_of(queries[qi][2]);
        PERFORM set_config('mergepath.enable_sort', 'off', false);
        EXECUTE queries[qi][2];
        r.pg := pg_temp.run_ms(queries[qi][2], reps);
        EXECUTE queries[qi][3];
        r.floor := pg_temp.run_ms(queries[qi][3], reps);
        PERFORM set_config('mergepath.enable_sort', 'on', false);
        PERFORM set_config('mergepath.device', 'cpu', false);
        EXECUTE queries[qi][2];
        r.cpu := pg_temp.run_ms(queries[qi][2], reps);
        IF gpu THEN
          PERFORM set_config('mergepath.device', 'auto', false);
          EXECUTE queries[qi][2];
          r.gpu := pg_temp.run_ms(queries[qi][2], reps);
        END IF;
        PERFORM set_config('mergepath.device', 'auto', false);
        INSERT INTO results SELECT r.*;
        RAISE NOTICE '% rows, %, %: PostgreSQL % ms, gpu % ms, cpu % ms, floor % ms (%)',
          n, r.setting, r.query, r.pg, r.gpu, r.cpu, r.floor, r.plan;
      END LOOP;
    END LOOP;
END $$;

\echo
\echo Whole-query times (ms); share = the query less its floor; ratio = mergepath's share / PostgreSQL's
SELECT n AS rows, setting, query, plan, pg AS "PostgreSQL", gpu, cpu, floor,
       round(pg - floor) AS "PG share",
       round(gpu - floor) AS "gpu share", round((gpu - floor) / nullif(pg - floor, 0), 2) AS "gpu/PG",
       round(cpu - floor) AS "cpu share", round((cpu - floor) / nullif(pg - floor, 0), 2) AS "cpu/PG"
FROM results ORDER BY n, si, query;

\echo
\echo How the 4-column ORDER BY sorts at work_mem 1GB (one process, default backend choice)
SET work_mem = '1GB';
SET max_parallel_workers_per_gather = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT sum(p1) FROM (SELECT * FROM s ORDER BY k OFFSET 0) q;
SET mergepath.enable_sort = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT sum(p1) FROM (SELECT * FROM s ORDER BY k OFFSET 0) q;
RESET mergepath.enable_sort;
\echo
\echo The same at the defaults (work_mem 4MB, 2 workers)
SET work_mem = '4MB';
SET max_parallel_workers_per_gather = 2;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT sum(p1) FROM (SELECT * FROM s ORDER BY k OFFSET 0) q;
SET mergepath.enable_sort = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT sum(p1) FROM (SELECT * FROM s ORDER BY k OFFSET 0) q;
DROP TABLE s;
