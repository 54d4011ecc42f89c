-- Per-row calls on tables of modest arrays: row by row (mergepath.enable_batch
-- off), batched on the CPU backend, batched on the GPU, intarray's operators
-- and the floor (the arrays read and measured, nothing computed), whole
-- queries.  psql variables: rows (rows of two int4[len]), len, gpu (on/off:
-- whether to time the GPU), workers (max_parallel_workers_per_gather: 0,
-- one process; 2, PostgreSQL's default).  test/bench/batch.sh runs it.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS mergepath;
CREATE EXTENSION IF NOT EXISTS intarray;
SET max_parallel_workers_per_gather = :workers;
SET jit = off;
SET mergepath.batch_min_rows = 0;

\ir batch_common.sql


-- q under each way of running it: setting lists of (name, value)
CREATE OR REPLACE FUNCTION bench_ways(q text, gpu bool)
RETURNS TABLE (way text, ms numeric) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('mergepath.enable_batch', 'off', true);
  PERFORM set_config('mergepath.device', 'cpu', true);
  way := 'row by row (cpu)'; ms := bench_ms(q); RETURN NEXT;
  PERFORM set_config('mergepath.enable_batch', 'on', true);
  way := 'batched, cpu'; ms := bench_ms(q); RETURN NEXT;
  IF gpu THEN
    PERFORM set_config('mergepath.device', 'gpu', true);
    way := 'batched, gpu'; ms := bench_ms(q); RETURN NEXT;
  END IF;
  PERFORM set_config('mergepath.device', 'auto', true);
END $$;

\echo :rows rows of two sorted int4[:len], :workers workers
SELECT 'floor: sum(cardinality(a) + cardinality(b))' AS query, 'PostgreSQL' AS way,
       bench_ms('SELECT sum(cardinality(a) + cardinality(b)) FROM bench_rows') AS ms
UNION ALL
SELECT 'sum(cardinality(gpu_intersect(a, b)))', way, ms
FROM bench_ways('SELECT sum(cardinality(gpu_intersect(a, b))) FROM bench_rows', :gpu)
UNION ALL
SELECT 'sum(cardinality(a & b))', 'intarray',
       bench_ms('SELECT sum(cardinality(a & b)) FROM bench_rows')
UNION ALL
SELECT 'floor: sum(cardinality(a || b))', 'PostgreSQL',
       bench_ms('SELECT sum(cardinality(a || b)) FROM bench_rows')
UNION ALL
SELECT 'sum(cardinality(gpu_merge(a, b)))', way, ms
FROM bench_ways('SELECT sum(cardinality(gpu_merge(a, b))) FROM bench_rows', :gpu)
UNION ALL
SELECT 'sum(cardinality(gpu_union(a, b)))', way, ms
FROM bench_ways('SELECT sum(cardinality(gpu_union(a, b))) FROM bench_rows', :gpu)
UNION ALL
SELECT 'sum(cardinality(a | b))', 'intarray',
       bench_ms('SELECT sum(cardinality(a | b)) FROM bench_rows')
UNION ALL
SELECT 'sum((gpu_sort(u))[1]) (u: int4[2 len], unsorted)', way, ms
FROM bench_ways('SELECT sum((gpu_sort(u))[1]) FROM bench_sort_rows', :gpu)
UNION ALL
SELECT 'sum((sort(u))[1])', 'intarray', bench_ms('SELECT sum((sort(u))[1]) FROM bench_sort_rows')
UNION ALL
SELECT 'SELECT id, gpu_intersect(a, b) AS i, under sum(cardinality(i))', way, ms
FROM bench_ways('SELECT sum(cardinality(i)) FROM (SELECT id, gpu_intersect(a, b) AS i FROM bench_rows OFFSET 0) s', :gpu);
DROP TABLE bench_pool, bench_rows, bench_sort_rows;
