-- SQL-level set operations beside what PostgreSQL offers, in one backend.
-- Pairs of sorted int4 arrays of distinct values (each of 1..2n kept with
-- probability 1/2, so about n a side and half of them shared), read from a
-- temp table so that PostgreSQL detoasts them.  On distinct inputs
-- intarray's &, | and - mean the same as gpu_intersect, gpu_union and
-- gpu_except.  Median of several runs after a warm-up, in ms; PostgreSQL's
-- INTERSECT ALL and EXCEPT ALL, 100x slower, once from 1M elements on.
-- Run through test/bench/sql_bench.sh.
\ir sql_bench_common.sql

CREATE TEMP TABLE sets (n int, a int4[], b int4[]);
CREATE TEMP VIEW new_pair AS
SELECT ARRAY(SELECT i FROM generate_series(1, 2 * n) i WHERE random() < 0.5) AS a,
       ARRAY(SELECT i FROM generate_series(1, 2 * n) i WHERE random() < 0.5) AS b
FROM (SELECT current_setting('bench.n')::int AS n) v;

-- f over the pair of size n on a backend ('' for a plain query), in ms
CREATE FUNCTION pg_temp.timed(device text, expr text, n int, reps int, warm_up bool DEFAULT true)
RETURNS numeric LANGUAGE sql AS $$
  SELECT pg_temp.on_backend(device, format('SELECT cardinality(%s) FROM sets WHERE n = %s', expr, n), reps,
                            warm_up)
$$;

-- each size's figures, measured when a row of it is asked for
CREATE TEMP VIEW measured AS
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
       NULL::numeric AS intersect_all, NULL::numeric AS except_all
FROM (SELECT n, CASE WHEN n >= 10000000 THEN 3 ELSE 7 END AS reps FROM sets) s;
CREATE TEMP TABLE results AS SELECT * FROM measured WHERE false;

-- size after size, a line as each starts
\set bench_table sets
-- PostgreSQL's INTERSECT ALL and EXCEPT ALL over unnest, after the rest
CREATE FUNCTION pg_temp.plain_sql(size int) RETURNS SETOF int LANGUAGE plpgsql AS $$
DECLARE
  reps int := CASE WHEN size >= 1000000 THEN 1 ELSE 5 END;
BEGIN
  UPDATE results
  SET intersect_all = pg_temp.timed('', 'ARRAY(SELECT unnest(a) INTERSECT ALL SELECT unnest(b))',
                                    size, reps, reps > 1),
      except_all = pg_temp.timed('', 'ARRAY(SELECT x FROM (SELECT unnest(a) EXCEPT ALL '
                                     'SELECT unnest(b)) s(x) ORDER BY x)', size, reps, reps > 1)
  WHERE n = size;
  RETURN;
END $$;
\set bench_after 'SELECT * FROM pg_temp.plain_sql(%s)'
\set bench_after_name 'INTERSECT ALL and EXCEPT ALL'
\ir sql_bench_sizes.sql

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
