-- SQL-level gpu_merge beside what PostgreSQL offers, in one backend.
-- Arrays of sorted random int4 are read from a temp table (so PostgreSQL
-- detoasts them, as it would in real use); each figure is the median of
-- several runs of `SELECT cardinality(f(a, b)) FROM pairs WHERE n = ...`
-- after a warm-up run; PostgreSQL's sorts, 20-50x slower, once from 1M
-- elements on (no warm-up: the run is long enough).  Run through
-- test/bench/sql_bench.sh.
\ir sql_bench_common.sql

CREATE TEMP TABLE pairs (n int, a int4[], b int4[]);
CREATE TEMP VIEW new_pair AS
SELECT (SELECT array_agg(x ORDER BY x) FROM (SELECT (random() * 4e9 - 2e9)::int4 AS x
                                             FROM generate_series(1, n)) s) AS a,
       (SELECT array_agg(x ORDER BY x) FROM (SELECT (random() * 4e9 - 2e9)::int4 AS x
                                             FROM generate_series(1, n)) s) AS b
FROM (SELECT current_setting('bench.n')::int AS n) v;

-- each size's figures, measured when a row of it is asked for
CREATE TEMP VIEW measured AS
SELECT n,
       pg_temp.median_ms(format('SELECT cardinality(a || b) FROM pairs WHERE n = %s', n), reps) AS floor_ms,
       pg_temp.on_backend('cpu', format('SELECT cardinality(gpu_merge(a, b)) FROM pairs WHERE n = %s', n), reps) AS cpu_ms,
       CASE WHEN :'gpu' = 'on'
            THEN pg_temp.on_backend('gpu', format('SELECT cardinality(gpu_merge(a, b)) FROM pairs WHERE n = %s', n), reps)
       END AS gpu_ms,
       pg_temp.median_ms(format('SELECT cardinality(sort(a || b)) FROM pairs WHERE n = %s', n), slow_reps,
                         slow_reps > 1) AS intarray_sort_ms,
       pg_temp.median_ms(format('SELECT cardinality((SELECT array_agg(x ORDER BY x) FROM '
                                '(SELECT unnest(a) AS x UNION ALL SELECT unnest(b)) u)) FROM pairs WHERE n = %s', n),
                         slow_reps, slow_reps > 1) AS array_agg_ms
FROM (SELECT n, CASE WHEN n >= 10000000 THEN 3 ELSE 7 END AS reps,
             CASE WHEN n >= 1000000 THEN 1 ELSE 5 END AS slow_reps
      FROM pairs) s;
CREATE TEMP TABLE results AS SELECT * FROM measured WHERE false;

-- size after size, a line as each starts
\set bench_table pairs
\set bench_after ''
\set bench_after_name ''
\ir sql_bench_sizes.sql

SELECT :'gpu' = 'on' AS have_gpu \gset
\echo
\echo gpu_merge(a, b) of two sorted int4 arrays of n elements each, ms (median),
\echo beside a || b (the floor: reading both arrays, building one as large),
\echo the sort of intarray, sort(a || b), and array_agg(x ORDER BY x) over both
\if :have_gpu
SELECT n AS "n a side", floor_ms AS "a || b", cpu_ms AS "cpu", gpu_ms AS "gpu",
       intarray_sort_ms AS "sort(a || b)", array_agg_ms AS "array_agg"
FROM results ORDER BY n;
\else
SELECT n AS "n a side", floor_ms AS "a || b", cpu_ms AS "cpu (no GPU here)",
       intarray_sort_ms AS "sort(a || b)", array_agg_ms AS "array_agg"
FROM results ORDER BY n;
\endif
\echo ratios of those times
SELECT n AS "n a side", round(cpu_ms / nullif(floor_ms, 0), 2) AS "cpu / floor",
       round(intarray_sort_ms / nullif(cpu_ms, 0), 1) AS "sort / cpu",
       round(array_agg_ms / nullif(cpu_ms, 0), 1) AS "array_agg / cpu"
\if :have_gpu
       , round(gpu_ms / nullif(cpu_ms, 0), 2) AS "gpu / cpu"
\endif
FROM results ORDER BY n;

\if :have_gpu
SET mergepath.device = gpu;
SELECT cardinality(gpu_merge(a, b)) AS elements FROM pairs WHERE n = (SELECT max(n) FROM pairs);
\echo
\echo per-phase timings of that last GPU call (mergepath_info()->'last_call')
SELECT key, value FROM jsonb_each_text(mergepath_info()->'last_call');
\endif
