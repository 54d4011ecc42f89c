-- Sorted runs put together at the SQL level, each way of
-- mergepath.merge_runs, in one backend:
-- 1. gpu_merge_agg(a) over k sorted int4 arrays totalling n elements (k from
--    RUNS, n the largest of ROWS), beside array_agg(x ORDER BY x) over their
--    elements; merge: the k-way merge; sort: the sort of the concatenation.
-- 2. Parallel partial states: gpu_sort_agg(k) over a table of n random int4
--    keys with 4 workers, and gpu_merge_agg(a) of part 1 with 4 workers:
--    merge: each worker puts its state in order and the leader merges the
--    runs; sort: the states travel as they are and the leader sorts them all.
-- auto: what mergepath.merge_runs = auto chooses.  Median of several runs
-- after a warm-up, in ms.  Run through test/bench/sql_bench.sh runs.
\ir sql_bench_common.sql

CREATE TEMP TABLE runs_params AS
SELECT (SELECT max(r) FROM unnest(string_to_array(:'rows', ',')::int[]) r) AS n,
       string_to_array(:'runs', ',')::int[] AS ks, :'gpu' = 'on' AS gpu;
CREATE TEMP TABLE runs_results (part text, k int, workers int, how text, ms numeric);
-- the GPU's context and pool set up before anything is timed
SELECT CASE WHEN gpu THEN cardinality(gpu_sort(ARRAY(SELECT generate_series(n, 1, -1)))) END AS warm_up
FROM runs_params \gset

-- the same query each way, on each backend
CREATE FUNCTION pg_temp.each_way(part text, k int, workers int, agg text, q text, reps int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  how text;
  dev text;
BEGIN
  FOREACH how IN ARRAY '{auto,merge,sort}'::text[] LOOP
    FOREACH dev IN ARRAY CASE WHEN (SELECT gpu FROM runs_params) THEN '{cpu,gpu}'::text[] ELSE '{cpu}' END LOOP
      PERFORM set_config('mergepath.merge_runs', how, false);
      INSERT INTO runs_results VALUES (part, k, workers, format('%s %s, %s', agg, dev, how),
                                       pg_temp.on_backend(dev, q, reps));
    END LOOP;
  END LOOP;
  PERFORM set_config('mergepath.merge_runs', 'auto', false);
END $$;

DO $$
DECLARE
  n int := (SELECT p.n FROM runs_params p);
  k int;
  reps int := CASE WHEN n >= 10000000 THEN 3 ELSE 5 END;
BEGIN
  FOREACH k IN ARRAY (SELECT p.ks FROM runs_params p) LOOP
    -- k runs of n / k random int4 values each, sorted (a plain table, for
    -- the parallel part)
    DROP TABLE IF EXISTS runs_arrays;
    EXECUTE format($q$CREATE TABLE runs_arrays WITH (autovacuum_enabled = off) AS
      SELECT r, array_agg(v ORDER BY v) AS a
      FROM (SELECT g %% %s AS r, (random() * 2e9 - 1e9)::int4 AS v FROM generate_series(0, %s - 1) g) s
      GROUP BY r$q$, k, n);
    ANALYZE runs_arrays;
    PERFORM pg_temp.each_way('arrays', k, 0, 'gpu_merge_agg(a)',
                             'SELECT cardinality(gpu_merge_agg(a)) FROM runs_arrays', reps);
    INSERT INTO runs_results VALUES ('arrays', k, 0, 'array_agg(x ORDER BY x)',
      pg_temp.on_backend('', 'SELECT cardinality(array_agg(x ORDER BY x)) FROM runs_arrays, unnest(a) x', reps));
    PERFORM set_config('max_parallel_workers_per_gather', '4', false);
    PERFORM set_config('parallel_setup_cost', '0', false);
    PERFORM set_config('parallel_tuple_cost', '0', false);
    PERFORM set_config('min_parallel_table_scan_size', '0', false);
    PERFORM pg_temp.each_way('arrays', k, 4, 'gpu_merge_agg(a)',
                             'SELECT cardinality(gpu_merge_agg(a)) FROM runs_arrays', reps);
    PERFORM set_config('max_parallel_workers_per_gather', '0', false);
  END LOOP;
  DROP TABLE runs_arrays;

  DROP TABLE IF EXISTS runs_rows;
  EXECUTE format('CREATE TABLE runs_rows WITH (autovacuum_enabled = off) AS SELECT (random() * 2e9 - 1e9)::int4 AS k FROM generate_series(1, %s)', n);
  ANALYZE runs_rows;
  PERFORM set_config('max_parallel_workers_per_gather', '4', false);
  PERFORM pg_temp.each_way('rows', NULL, 4, 'gpu_sort_agg(k)',
                           'SELECT cardinality(gpu_sort_agg(k)) FROM runs_rows', reps);
  PERFORM set_config('max_parallel_workers_per_gather', '0', false);
  PERFORM pg_temp.each_way('rows', NULL, 0, 'gpu_sort_agg(k)',
                           'SELECT cardinality(gpu_sort_agg(k)) FROM runs_rows', reps);
  INSERT INTO runs_results VALUES ('rows', NULL, 0, 'array_agg(k ORDER BY k)',
    pg_temp.on_backend('', 'SELECT cardinality(array_agg(k ORDER BY k)) FROM runs_rows', reps));
  DROP TABLE runs_rows;
END $$;

\echo
\echo sorted runs put together: k sorted int4 arrays, or a table of random int4 keys, n elements in all, ms (median)
SELECT part, (SELECT n FROM runs_params) AS n, k, workers, how, ms,
       round((SELECT ms FROM runs_results r WHERE r.part = x.part AND r.k IS NOT DISTINCT FROM x.k
               AND r.how LIKE 'array_agg%') / ms, 2) AS "array_agg ORDER BY / this",
       round((SELECT ms FROM runs_results r WHERE r.part = x.part AND r.k IS NOT DISTINCT FROM x.k
               AND r.workers = x.workers AND r.how = regexp_replace(x.how, ', (auto|merge)$', ', sort')) / ms, 2)
         AS "sort / this"
FROM runs_results x ORDER BY part, k, workers, how;
