-- MergepathJoin on the settings servers run, beside PostgreSQL's own plan:
-- tables ja(id int4, k int8) and jb(id int4, k int8, grp int4) of n rows,
-- and jc(id int4, k int8) of 0.7 n rows, each key `copies` times a table in
-- random row order (jc's keys a part of ja's); whole-query times (planning
-- and parallel workers' start included), on three settings:
--   defaults      work_mem 4MB, max_parallel_workers_per_gather 2
--   1GB, 2 wk     work_mem 1GB, 2 workers
--   1GB, 8 wk     work_mem 1GB, 8 workers (the planner takes as many as the
--                 tables' size gives it)
-- The queries:
--   join    SELECT count(*), sum(ja.id::int8 * 3 + jb.id) FROM ja JOIN jb USING (k)
--   group   SELECT grp, count(*), sum(ja.id) FROM ja JOIN jb USING (k) GROUP BY grp ORDER BY grp
--   left    SELECT count(*), count(jc.id) FROM ja LEFT JOIN jc USING (k)
--   anti    SELECT count(*) FROM ja WHERE NOT EXISTS (SELECT FROM jc WHERE jc.k = ja.k)
-- Columns: PostgreSQL's plan (mergepath.enable_join off) and the plan with
-- mergepath on the GPU (mergepath.device auto) and on the CPU backend, each
-- with the join the planner chose by itself; ratios PostgreSQL's time over
-- mergepath's.  After a warm-up run of each method, the methods run in turn,
-- reps times (psql variable reps; empty: 3 below 10M rows, 1 from 10M on),
-- each cell the median.  Run through test/bench/join_settings.sh, a size and
-- a number of copies at a time (psql variables n and copies), on the
-- settings the psql variable settings lists.
\ir sql_bench_common.sql
SET jit = off;

-- the join method in q's plan, and "parallel" when it runs under a Gather
CREATE FUNCTION pg_temp.join_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text := '';
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN CASE WHEN plan ~ 'Parallel Custom Scan \(MergepathJoin\)' THEN 'MP parallel'
              WHEN plan ~ 'MergepathJoin' THEN 'MP'
              WHEN plan ~ 'Parallel Hash' THEN 'PHJ'
              WHEN plan ~ 'Hash (Left |Anti |Semi |Right )?Join' THEN 'HJ'
              WHEN plan ~ 'Merge (Left |Anti |Semi |Right )?Join' THEN 'MJ'
              ELSE 'other' END;
END $$;

SET bench.gpu = :'gpu';
SET bench.copies = :'copies';
CREATE TABLE ja AS SELECT g::int4 AS id, (g / :copies)::int8 * 7 AS k
                   FROM generate_series(1, :n) g ORDER BY random();
CREATE TABLE jb AS SELECT g::int4 AS id, (g / :copies)::int8 * 7 AS k, (g % 100)::int4 AS grp
                   FROM generate_series(1, :n) g ORDER BY random();
CREATE TABLE jc AS SELECT g::int4 AS id, (g / :copies)::int8 * 7 AS k
                   FROM generate_series(1, :n) g WHERE g % 10 < 7 ORDER BY random();
ALTER TABLE ja SET (autovacuum_enabled = off);
ALTER TABLE jb SET (autovacuum_enabled = off);
ALTER TABLE jc SET (autovacuum_enabled = off);
VACUUM ANALYZE ja;
VACUUM ANALYZE jb;
VACUUM ANALYZE jc;
CREATE TEMP TABLE results (n bigint, copies int, si int, setting text, query text,
                           pg numeric, gpu numeric, cpu numeric,
                           pg_join text, gpu_join text, cpu_join text);

-- one timing of q with mergepath set up for method m (pg, cpu, gpu)
CREATE FUNCTION pg_temp.time_method(m text, q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
BEGIN
  PERFORM set_config('mergepath.enable_join', CASE WHEN m = 'pg' THEN 'off' ELSE 'on' END, false);
  PERFORM set_config('mergepath.device', CASE WHEN m = 'cpu' THEN 'cpu' ELSE 'auto' END, false);
  t0 := clock_timestamp();
  EXECUTE q;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;

CREATE FUNCTION pg_temp.join_with(m text, q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('mergepath.enable_join', CASE WHEN m = 'pg' THEN 'off' ELSE 'on' END, false);
  PERFORM set_config('mergepath.device', CASE WHEN m = 'cpu' THEN 'cpu' ELSE 'auto' END, false);
  RETURN pg_temp.join_of(q);
END $$;

SET bench.settings = :'settings';
SET bench.reps = :'reps';
DO $$
DECLARE
  n bigint := (SELECT count(*) FROM ja);
  copies int := current_setting('bench.copies')::int;
  settings text[][] := ARRAY[ARRAY['defaults', '4MB', '2'],
                             ARRAY['1GB, 2 workers', '1GB', '2'],
                             ARRAY['1GB, 8 workers', '1GB', '8']];
  queries text[][] := ARRAY[
    ARRAY['join', 'SELECT count(*), sum(ja.id::int8 * 3 + jb.id) FROM ja JOIN jb USING (k)'],
    ARRAY['group', 'SELECT grp, count(*), sum(ja.id) FROM ja JOIN jb USING (k) GROUP BY grp ORDER BY grp'],
    ARRAY['left', 'SELECT count(*), count(jc.id) FROM ja LEFT JOIN jc USING (k)'],
    ARRAY['anti', 'SELECT count(*) FROM ja WHERE NOT EXISTS (SELECT FROM jc WHERE jc.k = ja.k)']];
  reps int := nullif(current_setting('bench.reps'), '')::int;
  methods text[];
  times float8[];
  si int;
  r results;
  gpu bool := current_setting('bench.gpu') = 'on';
BEGIN
  reps := coalesce(reps, CASE WHEN n < 10000000 THEN 3 ELSE 1 END);
  methods := CASE WHEN gpu THEN ARRAY['pg', 'cpu', 'gpu'] ELSE ARRAY['pg', 'cpu'] END;
  FOREACH si IN ARRAY string_to_array(current_setting('bench.settings'), ',')::int[] LOOP
    PERFORM set_config('work_mem', settings[si][2], false);
    PERFORM set_config('max_parallel_workers_per_gather', settings[si][3], false);
    FOR qi IN 1..array_length(queries, 1) LOOP
      r := ROW(n, copies, si, settings[si][1], queries[qi][1], NULL, NULL, NULL, NULL, NULL, NULL);
      r.pg_join := pg_temp.join_with('pg', queries[qi][2]);
      r.cpu_join := pg_temp.join_with('cpu', queries[qi][2]);
      IF gpu THEN
        r.gpu_join := pg_temp.join_with('gpu', queries[qi][2]);
      END IF;
      -- a warm-up of each method, then the methods in turn, rep after rep,
      -- so that the host's drift falls on all of them alike
      FOR m IN 1..array_length(methods, 1) LOOP
        PERFORM pg_temp.time_method(methods[m], queries[qi][2]);
      END LOOP;
      times := array_fill(NULL::float8, ARRAY[array_length(methods, 1), reps]);
      FOR rep IN 1..reps LOOP
        FOR m IN 1..array_length(methods, 1) LOOP
          times[m][rep] := pg_temp.time_method(methods[m], queries[qi][2]);
        END LOOP;
      END LOOP;
      FOR m IN 1..array_length(methods, 1) LOOP
        CASE methods[m]
          WHEN 'pg' THEN r.pg := pg_temp.median_of(times[m:m][1:reps]);
          WHEN 'cpu' THEN r.cpu := pg_temp.median_of(times[m:m][1:reps]);
          ELSE r.gpu := pg_temp.median_of(times[m:m][1:reps]);
        END CASE;
      END LOOP;
      PERFORM set_config('mergepath.enable_join', 'on', false);
      PERFORM set_config('mergepath.device', 'auto', false);
      INSERT INTO results SELECT r.*;
      RAISE NOTICE '% rows x% copies, %, %: PostgreSQL % ms (%), gpu % ms (%), cpu % ms (%)',
        n, copies, r.setting, r.query, r.pg, r.pg_join, r.gpu, r.gpu_join, r.cpu, r.cpu_join;
    END LOOP;
  END LOOP;
END $$;

\echo
\echo Whole-query times (ms), the join each plan chose; ratio = the time of PostgreSQL over that of mergepath
SELECT n AS rows, copies, setting, query, pg AS "PostgreSQL", pg_join AS "PG join",
       gpu, gpu_join AS "gpu join", round(pg / nullif(gpu, 0), 2) AS "PG/gpu",
       cpu, cpu_join AS "cpu join", round(pg / nullif(cpu, 0), 2) AS "PG/cpu"
FROM results ORDER BY n, copies, si, query;

\echo
\echo The join at work_mem 1GB, 8 workers, on the default backend choice
SET work_mem = '1GB';
SET max_parallel_workers_per_gather = 8;
EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) SELECT count(*), sum(ja.id::int8 * 3 + jb.id) FROM ja JOIN jb USING (k);
DROP TABLE ja, jb, jc;
