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

\echo
\echo set operations on two sorted int4 arrays of about n distinct elements each, ms (median)
SELECT n AS "n per side", floor_ms AS "a || b (floor)",
       and_cpu AS "intersect cpu", and_gpu AS "intersect gpu", and_intarray AS "a & b",
       or_cpu AS "union cpu", or_gpu AS "union gpu", or_intarray AS "a | b",
       minus_cpu AS "except cpu", minus_gpu AS "except gpu", minus_intarray AS "a - b",
       xor_cpu AS "symdiff cpu", xor_gpu AS "symdiff gpu",
       intersect_all AS "INTERSECT ALL", except_all AS "EXCEPT ALL"
FROM results ORDER BY n;

\echo
\echo ratios: intarray over the CPU backend, the CPU backend over the floor, SQL over the CPU backend, GPU over CPU
SELECT n AS "n per side",
       round(and_intarray / and_cpu, 2) AS "& / cpu", round(or_intarray / or_cpu, 2) AS "| / cpu",
       round(minus_intarray / minus_cpu, 2) AS "- / cpu",
       round(and_cpu / floor_ms, 2) AS "intersect cpu / floor", round(or_cpu / floor_ms, 2) AS "union cpu / floor",
       round(minus_cpu / floor_ms, 2) AS "except cpu / floor",
       round(intersect_all / and_cpu, 1) AS "INTERSECT ALL / cpu", round(except_all / minus_cpu, 1) AS "EXCEPT ALL / cpu",
       round(and_gpu / and_cpu, 2) AS "intersect gpu / cpu", round(or_gpu / or_cpu, 2) AS "union gpu / cpu",
       round(least(and_gpu, or_gpu, minus_gpu) / floor_ms, 2) AS "best gpu / floor"
FROM results ORDER BY n;
