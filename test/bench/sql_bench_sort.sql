-- SQL-level sorting beside what PostgreSQL offers, in one backend.
-- 1. gpu_sort of an unsorted int4 array of n random values (read from a
--    temp table, so PostgreSQL detoasts it) beside intarray's sort(a) and
--    array_agg(x ORDER BY x) over its elements.
-- 2. gpu_sort_agg(k) over a table of random int4 keys beside
--    array_agg(k ORDER BY k) and plain array_agg(k) (the per-row aggregate
--    floor), each backend, without and with parallel workers (PostgreSQL 15's
--    array_agg has no parallel form; gpu_sort_agg has).
-- 3. The same with a payload: gpu_sort_agg(id, k) beside
--    array_agg(id ORDER BY k) and array_agg(id).
-- Median of several runs after a warm-up, in ms.  Run through
-- test/bench/sql_bench.sh (SIZES applies to part 1; ROWS to part 2).
\ir sql_bench_common.sql

CREATE TEMP TABLE sort_arrays AS
SELECT n, ARRAY(SELECT (random() * 2e9 - 1e9)::int4 FROM generate_series(1, n)) AS a
FROM unnest(string_to_array(:'sizes', ',')::int[]) AS n;

CREATE TEMP TABLE sort_results AS
SELECT n,
       pg_temp.on_backend('cpu', format('SELECT cardinality(gpu_sort(a)) FROM sort_arrays WHERE n = %s', n), reps) AS cpu,
       CASE WHEN :'gpu' = 'on'
            THEN pg_temp.on_backend('gpu', format('SELECT cardinality(gpu_sort(a)) FROM sort_arrays WHERE n = %s', n), reps) END AS gpu,
       pg_temp.on_backend('', format('SELECT cardinality(sort(a)) FROM sort_arrays WHERE n = %s', n), reps) AS intarray,
       pg_temp.on_backend('', format('SELECT cardinality((SELECT array_agg(x ORDER BY x) FROM unnest(a) x)) FROM sort_arrays WHERE n = %s', n), reps)
         AS array_agg
FROM (SELECT n, CASE WHEN n >= 10000000 THEN 3 ELSE 5 END AS reps FROM sort_arrays) s
ORDER BY n;

\echo
\echo sorting an unsorted int4 array of n random values, ms (median)
SELECT n, cpu AS "gpu_sort cpu", gpu AS "gpu_sort gpu", intarray AS "intarray sort(a)",
       array_agg AS "array_agg(x ORDER BY x)",
       round(intarray / cpu, 1) AS "intarray / cpu", round(intarray / gpu, 1) AS "intarray / gpu"
FROM sort_results ORDER BY n;

-- parts 2 and 3: tables of ROWS random keys and ids (a plain table: workers
-- cannot read temp tables)
CREATE TEMP TABLE agg_results (rows int, form text, workers int, how text, ms numeric);
CREATE TEMP TABLE agg_params AS
SELECT string_to_array(:'rows', ',')::int[] AS row_counts, :'gpu' = 'on' AS gpu;
CREATE TEMP TABLE agg_forms (form text, agg text, ordered text, plain text);
INSERT INTO agg_forms VALUES
  ('k', 'gpu_sort_agg(k)', 'array_agg(k ORDER BY k)', 'array_agg(k)'),
  ('id by k', 'gpu_sort_agg(id, k)', 'array_agg(id ORDER BY k)', 'array_agg(id)');
DO $$
DECLARE
  nrows int;
  f record;
  w int;
  reps int;
  q text;
BEGIN
  FOREACH nrows IN ARRAY (SELECT row_counts FROM agg_params) LOOP
    DROP TABLE IF EXISTS sort_agg_rows;
    EXECUTE format('CREATE TABLE sort_agg_rows AS SELECT g AS id, (random() * 2e9 - 1e9)::int4 AS k FROM generate_series(1, %s) g', nrows);
    ANALYZE sort_agg_rows;
    reps := CASE WHEN nrows >= 10000000 THEN 3 ELSE 5 END;
    FOR f IN SELECT * FROM agg_forms LOOP
      FOREACH w IN ARRAY '{0,4}'::int[] LOOP
        PERFORM set_config('max_parallel_workers_per_gather', w::text, false);
        PERFORM set_config('parallel_setup_cost', '0', false);
        PERFORM set_config('min_parallel_table_scan_size', '0', false);
        q := format('SELECT cardinality(%s) FROM sort_agg_rows', f.agg);
        INSERT INTO agg_results VALUES (nrows, f.form, w, f.agg || ' cpu', pg_temp.on_backend('cpu', q, reps));
        IF (SELECT gpu FROM agg_params) THEN
          INSERT INTO agg_results VALUES (nrows, f.form, w, f.agg || ' gpu', pg_temp.on_backend('gpu', q, reps));
        END IF;
        IF w = 0 THEN
          INSERT INTO agg_results VALUES (nrows, f.form, w, f.ordered,
            pg_temp.on_backend('', format('SELECT cardinality(%s) FROM sort_agg_rows', f.ordered), reps));
          INSERT INTO agg_results VALUES (nrows, f.form, w, f.plain,
            pg_temp.on_backend('', format('SELECT cardinality(%s) FROM sort_agg_rows', f.plain), reps));
        END IF;
      END LOOP;
    END LOOP;
  END LOOP;
  DROP TABLE sort_agg_rows;
END $$;

\echo
\echo aggregating a table of random int4 keys (and int4 ids) into one sorted array, ms (median)
SELECT rows, how, workers, ms,
       round((SELECT ms FROM agg_results r WHERE r.rows = a.rows AND r.form = a.form AND r.how LIKE '%ORDER BY%') / ms, 2)
         AS "array_agg ORDER BY / this",
       round(ms / (SELECT ms FROM agg_results r WHERE r.rows = a.rows AND r.form = a.form
                   AND r.how LIKE 'array_agg(%' AND r.how NOT LIKE '%ORDER BY%'), 2)
         AS "this / array_agg"
FROM agg_results a ORDER BY rows, form, how, workers;
