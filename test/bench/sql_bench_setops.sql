-- SQL-level set operations beside what PostgreSQL offers, in one backend.
-- Pairs of sorted int4 arrays of distinct values (each of 1..2n kept with
-- probability 1/2, so about n a side and half of them shared), read from a
-- temp table so that PostgreSQL detoasts them.  On distinct inputs
-- intarray's &, | and - mean the same as gpu_intersect, gpu_union and
-- gpu_except.  Median of several runs after a warm-up, in ms.  Run through
-- test/bench/sql_bench.sh.
\ir sql_bench_common.sql

CREATE TEMP TABLE sets AS
SELECT n,
       ARRAY(SELECT i FROM generate_series(1, 2 * n) i WHERE random() < 0.5) AS a,
       ARRAY(SELECT i FROM generate_series(1, 2 * n) i WHERE random() < 0.5) AS b
FROM unnest(string_to_array(:'sizes', ',')::int[]) AS n;

-- f over the pair of size n on a backend ('' for a plain query), in ms
CREATE FUNCTION pg_temp.timed(device text, expr text, n int, reps int) RETURNS numeric
LANGUAGE sql AS $$
  SELECT pg_temp.on_backend(device, format('SELECT cardinality(%s) FROM sets WHERE n = %s', expr, n), reps)
$$;

CREATE TEMP TABLE results AS
SELECT n,
       pg_temp.timed('', 'a || b', n, reps) AS floor_ms,
       pg_temp.timed('cpu', 'gpu_intersect(a, b)', n, reps) AS and_cpu,
       CASE WHEN :'gpu' = 'on' THEN pg_temp.timed('gpu', 'gpu_intersect(a, b)', n, reps) END AS and_gpu,
       pg_temp.timed('', 'a & b', n, reps) AS and_intarray,
       pg_temp.timed('cpu', 'gpu_union(a, b)', n, reps) AS or_cpu,
       CASE WHEN :'gpu' = 'on' THEN pg_temp.timed('gpu', 'gpu_union(a, b)', n, reps) END AS or_gpu,
       pg_temp.timed('', 'a | b', n, reps) AS or_intarray,
       pg_temp.timed('cpu', 'gpu_except(a, b)', n, reps) AS minus_cpu,
       CASE WHEN :'gpu' = 'on' THEN pg_temp.timed('gpu', 'gpu_except(a, b)', n, reps) END AS minus_gpu,
       pg_temp.timed('', 'a - b', n, reps) AS minus_intarray,
       pg_temp.timed('cpu', 'gpu_symdiff(a, b)', n, reps) AS xor_cpu,
       CASE WHEN :'gpu' = 'on' THEN pg_temp.timed('gpu', 'gpu_symdiff(a, b)', n, reps) END AS xor_gpu,
       pg_temp.timed('', 'ARRAY(SELECT unnest(a) INTERSECT ALL SELECT unnest(b))', n, slow_reps)
         AS intersect_all,
       pg_temp.timed('', 'ARRAY(SELECT x FROM (SELECT unnest(a) EXCEPT ALL SELECT unnest(b)) s(x) ORDER BY x)',
                     n, slow_reps) AS except_all
FROM (SELECT n, CASE WHEN n >= 10000000 THEN 3 ELSE 7 END AS reps,
             CASE WHEN n >= 10000000 THEN 1 WHEN n >= 1000000 THEN 3 ELSE 5 END AS slow_reps
      FROM sets) s
ORDER BY n;

-- one row an operation and size; intarray's operator and PostgreSQL's own
-- INTERSECT ALL / EXCEPT ALL where there is one
CREATE TEMP VIEW by_op AS
SELECT n, op, k, floor_ms, cpu, gpu, intarray, plain_sql
FROM results,
     LATERAL (VALUES (1, 'intersect', and_cpu, and_gpu, and_intarray, intersect_all),
                     (2, 'union', or_cpu, or_gpu, or_intarray, NULL),
                     (3, 'except', minus_cpu, minus_gpu, minus_intarray, except_all),
                     (4, 'symdiff', xor_cpu, xor_gpu, NULL, NULL)) v(k, op, cpu, gpu, intarray, plain_sql);

SELECT :'gpu' = 'on' AS have_gpu \gset
\echo
\echo set operations on two sorted int4 arrays of about n distinct elements each,
\echo ms (median): the CPU backend, the GPU backend, the operators & | - of
\echo intarray, and INTERSECT ALL / EXCEPT ALL over unnest; a || b is the floor
\if :have_gpu
SELECT n AS "n a side", op AS "operation", floor_ms AS "a || b", cpu, gpu, intarray,
       plain_sql AS "SQL"
FROM by_op ORDER BY n, k;
\else
SELECT n AS "n a side", op AS "operation", floor_ms AS "a || b", cpu AS "cpu (no GPU here)",
       intarray, plain_sql AS "SQL"
FROM by_op ORDER BY n, k;
\endif
\echo ratios of those times
SELECT n AS "n a side", op AS "operation", round(cpu / floor_ms, 2) AS "cpu / floor",
       round(intarray / cpu, 2) AS "intarray / cpu", round(plain_sql / cpu, 1) AS "SQL / cpu"
\if :have_gpu
       , round(gpu / cpu, 2) AS "gpu / cpu"
\endif
FROM by_op ORDER BY n, k;
