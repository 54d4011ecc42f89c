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
-- sorted (EXPLAIN ANALYZE on the GPU).  After a warm-up run of each method,
-- the methods run in turn, reps times (psql variable reps; empty: 3 below
-- 10M rows, 1 from 10M on), each cell the median (a second
-- table lists every timing of a cell that has several).  Run through
-- test/bench/sort_settings.sh, a size at a time (psql variable n), on the
-- settings the psql variable settings lists (1 defaults, 2 and 3 the 1GB
-- ones), the queries the psql variable queries lists (empty: all three).
\ir sql_bench_common.sql
SET jit = off;
SET mergepath.sort_min_rows = 1000;

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
CREATE TEMP TABLE timings (n bigint, si int, setting text, query text, method text,
                           rep int, ms float8);

-- one timing of q with mergepath set up for method m (pg, floor, cpu, gpu)
CREATE FUNCTION pg_temp.time_method(m text, q text, floor_q text) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
BEGIN
  PERFORM set_config('mergepath.enable_sort', CASE WHEN m IN ('pg', 'floor') THEN 'off' ELSE 'on' END, false);
  PERFORM set_config('mergepath.device', CASE WHEN m = 'cpu' THEN 'cpu' ELSE 'auto' END, false);
  t0 := clock_timestamp();
  EXECUTE CASE WHEN m = 'floor' THEN floor_q ELSE q END;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;

SET bench.settings = :'settings';
SET bench.reps = :'reps';
SET bench.queries = :'queries';
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
  reps int := nullif(current_setting('bench.reps'), '')::int;
  methods text[];
  times float8[];
  si int;
  r results;
  gpu bool := current_setting('bench.gpu') = 'on';
BEGIN
    reps := coalesce(reps, CASE WHEN n < 10000000 THEN 3 ELSE 1 END);
    methods := CASE WHEN gpu THEN ARRAY['pg', 'floor', 'cpu', 'gpu'] ELSE ARRAY['pg', 'floor', 'cpu'] END;
    FOREACH si IN ARRAY string_to_array(current_setting('bench.settings'), ',')::int[] LOOP
      PERFORM set_config('work_mem', settings[si][2], false);
      PERFORM set_config('max_parallel_workers_per_gather', settings[si][3], false);
      FOR qi IN 1..3 LOOP
        CONTINUE WHEN current_setting('bench.queries') <> ''
                      AND queries[qi][1] <> ALL (string_to_array(current_setting('bench.queries'), ','));
        r := ROW(n, si, settings[si][1], queries[qi][1], NULL, NULL, NULL, NULL, NULL);
        r.plan := pg_temp.plan_of(queries[qi][2]);
        -- a warm-up of each method, then the methods in turn, rep after rep,
        -- so that the host's drift falls on all of them alike
        FOR m IN 1..array_length(methods, 1) LOOP
          PERFORM pg_temp.time_method(methods[m], queries[qi][2], queries[qi][3]);
        END LOOP;
        times := array_fill(NULL::float8, ARRAY[array_length(methods, 1), reps]);
        FOR rep IN 1..reps LOOP
          FOR m IN 1..array_length(methods, 1) LOOP
            times[m][rep] := pg_temp.time_method(methods[m], queries[qi][2], queries[qi][3]);
            INSERT INTO timings VALUES (n, si, settings[si][1], queries[qi][1], methods[m], rep,
                                        times[m][rep]);
          END LOOP;
        END LOOP;
        FOR m IN 1..array_length(methods, 1) LOOP
          CASE methods[m]
            WHEN 'pg' THEN r.pg := pg_temp.median_of(times[m:m][1:reps]);
            WHEN 'floor' THEN r.floor := pg_temp.median_of(times[m:m][1:reps]);
            WHEN 'cpu' THEN r.cpu := pg_temp.median_of(times[m:m][1:reps]);
            ELSE r.gpu := pg_temp.median_of(times[m:m][1:reps]);
          END CASE;
        END LOOP;
        PERFORM set_config('mergepath.enable_sort', 'on', false);
        PERFORM set_config('mergepath.device', 'auto', false);
        INSERT INTO results SELECT r.*;
        RAISE NOTICE '% rows, %, %: PostgreSQL % ms, gpu % ms, cpu % ms, floor % ms (%)',
          n, r.setting, r.query, r.pg, r.gpu, r.cpu, r.floor, r.plan;
      END LOOP;
    END LOOP;
END $$;

\echo
\echo Whole-query times (ms); share = the query less its floor; ratio = the share of mergepath over that of PostgreSQL
SELECT n AS rows, setting, query, plan, pg AS "PostgreSQL", gpu, cpu, floor,
       round(pg - floor) AS "PG share",
       round(gpu - floor) AS "gpu share", round((gpu - floor) / nullif(pg - floor, 0), 2) AS "gpu/PG",
       round(cpu - floor) AS "cpu share", round((cpu - floor) / nullif(pg - floor, 0), 2) AS "cpu/PG"
FROM results ORDER BY n, si, query;

\echo
\echo The timings of each cell that has several (ms): how far apart the runs of one cell are
SELECT t.n AS rows, t.setting, t.query, t.method, count(*) AS runs, round(min(ms)) AS min,
       round(percentile_disc(0.5) WITHIN GROUP (ORDER BY ms)) AS median, round(max(ms)) AS max,
       string_agg(round(ms)::text, ', ' ORDER BY rep) AS "in turn"
FROM timings t GROUP BY t.n, t.si, t.setting, t.query, t.method HAVING count(*) > 1
ORDER BY t.n, t.si, t.query, array_position(ARRAY['pg', 'gpu', 'cpu', 'floor'], t.method);

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
