-- Where batching starts to pay on the CPU backend: the same per-row calls
-- over tables of 10 to 100K rows, row by row and batched, whole queries in
-- one process, the median of many runs (the fewer rows, the more runs).
-- psql variable len: elements a side.  SWEEP=1 test/bench/batch.sh runs
-- it; mergepath.batch_min_rows' default comes from its table.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS mergepath;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET mergepath.batch_min_rows = 0;
SET mergepath.device = cpu;

\set rows 100000
\ir batch_common.sql


CREATE OR REPLACE FUNCTION sweep(f text, n int, gpu bool)
RETURNS TABLE (row_by_row numeric, batched numeric, batched_gpu numeric)
LANGUAGE plpgsql AS $$
DECLARE
  q text := format('SELECT sum(cardinality(%s)) FROM sweep_%s', f, n);
  reps int := greatest(5, least(201, 2000000 / (n * 10)));
BEGIN
  PERFORM set_config('mergepath.enable_batch', 'off', true);
  row_by_row := bench_ms(q, reps);
  PERFORM set_config('mergepath.enable_batch', 'on', true);
  batched := bench_ms(q, reps);
  IF gpu THEN
    PERFORM set_config('mergepath.device', 'gpu', true);
    batched_gpu := bench_ms(q, reps);
    PERFORM set_config('mergepath.device', 'cpu', true);
  END IF;
  RETURN NEXT;
END $$;

-- a table of each size: the first n rows
DO $$
DECLARE
  n int;
BEGIN
  FOREACH n IN ARRAY ARRAY[10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000] LOOP
    EXECUTE format('DROP TABLE IF EXISTS sweep_%s', n);
    EXECUTE format('CREATE TABLE sweep_%s AS SELECT id, a, b FROM bench_rows WHERE id <= %s', n, n);
    EXECUTE format('ANALYZE sweep_%s', n);
  END LOOP;
END $$;

\echo rows of two sorted int4[:len]: ms on the CPU backend, row by row / batched; batched on the GPU where there is one
SELECT f, n AS rows, row_by_row, batched, round(row_by_row / batched, 2) AS ratio, batched_gpu,
       round(row_by_row / batched_gpu, 2) AS gpu_ratio
FROM unnest(ARRAY['gpu_intersect(a, b)', 'gpu_merge(a, b)']) WITH ORDINALITY AS fs(f, fo),
     unnest(ARRAY[10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000]) AS ns(n),
     LATERAL sweep(f, n, :gpu)
ORDER BY fo, n;
DROP TABLE bench_pool, bench_rows, bench_sort_rows, sweep_10, sweep_30, sweep_100, sweep_300, sweep_1000,
  sweep_3000, sweep_10000, sweep_30000, sweep_100000;
