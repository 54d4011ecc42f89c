-- Where the GPU starts to pay, operation by operation: each function on
-- each backend at sizes from 1K to 1M elements in all (both arrays
-- together; rows for the aggregates), median of 5 runs after a warm-up, the
-- whole statement timed in the server.  The crossover of an operation is
-- the smallest size from which the GPU is faster at every larger size
-- measured; the thresholds in src/api/mp_measured.h come from this table.
\ir sql_bench_common.sql
SELECT setseed(0.25);

CREATE TEMP TABLE sizes AS
SELECT n FROM unnest('{1000,2000,5000,10000,20000,50000,100000,200000,500000,1000000}'::int[]) n;
-- two sorted int4 arrays of n/2 random keys in [0, n), an unsorted one of n
CREATE TEMP TABLE arrays AS
SELECT n,
       ARRAY(SELECT (random() * n)::int4 FROM generate_series(1, n / 2) ORDER BY 1) AS a,
       ARRAY(SELECT (random() * n)::int4 FROM generate_series(1, n / 2) ORDER BY 1) AS b,
       ARRAY(SELECT (random() * n)::int4 FROM generate_series(1, n)) AS u
FROM sizes;
-- n rows of a random key and an id, and n rows in sorted runs of 100
CREATE TEMP TABLE agg_rows AS
SELECT n, g AS id, (random() * n)::int4 AS k FROM sizes, LATERAL generate_series(1, n) g;
CREATE INDEX ON agg_rows (n);
CREATE TEMP TABLE agg_runs AS
SELECT n, g, ARRAY(SELECT (random() * n)::int4 FROM generate_series(1, 100) ORDER BY 1) AS run
FROM sizes, LATERAL generate_series(1, n / 100) g;
CREATE INDEX ON agg_runs (n);
ANALYZE;

CREATE TEMP TABLE ops (op text, query text);
INSERT INTO ops VALUES
  ('merge', 'SELECT cardinality(gpu_merge(a, b)) FROM arrays WHERE n = %s'),
  ('setop', 'SELECT cardinality(gpu_intersect(a, b)) FROM arrays WHERE n = %s'),
  ('search', 'SELECT cardinality(gpu_lower_bound(a, b)) FROM arrays WHERE n = %s'),
  ('semijoin', 'SELECT cardinality(gpu_semijoin(a, b)) FROM arrays WHERE n = %s'),
  ('join', 'SELECT count(*) FROM arrays, gpu_join(a, b) WHERE n = %s'),
  ('sort', 'SELECT cardinality(gpu_sort(u)) FROM arrays WHERE n = %s'),
  ('unique', 'SELECT cardinality(gpu_unique(a)) FROM arrays WHERE n = %s'),
  ('sort_agg', 'SELECT cardinality(gpu_sort_agg(k)) FROM agg_rows WHERE n = %s'),
  ('sort_by_key_agg', 'SELECT cardinality(gpu_sort_agg(id, k)) FROM agg_rows WHERE n = %s'),
  ('merge_agg', 'SELECT cardinality(gpu_merge_agg(run)) FROM agg_runs WHERE n = %s');

CREATE TEMP TABLE times (op text, n int, cpu_ms numeric, gpu_ms numeric);
\o /dev/null
\if :gpu
SELECT pg_temp.on_backend('gpu', 'SELECT gpu_sort(''{2,1}''::int4[])', 1);	-- the context, once
\endif
INSERT INTO times
SELECT op, n, pg_temp.on_backend('cpu', format(query, n), 5),
       CASE WHEN :'gpu' = 'on' THEN pg_temp.on_backend('gpu', format(query, n), 5) END
FROM ops, sizes ORDER BY op, n;
\o

\echo Each operation on each backend, ms (median of 5), and the CPU's time over the GPU's
SELECT op, n AS "elements (rows)", cpu_ms AS "cpu, ms", gpu_ms AS "gpu, ms",
       round(cpu_ms / nullif(gpu_ms, 0), 2) AS "cpu / gpu"
FROM times ORDER BY op, n;

\echo The crossover: the smallest size from which the GPU is faster at every larger size
SELECT op, CASE WHEN bool_or(gpu_ms IS NULL) THEN 'no GPU here'
                ELSE coalesce(min(n) FILTER (WHERE NOT EXISTS (
                       SELECT FROM times l WHERE l.op = t.op AND l.n >= t.n AND l.gpu_ms >= l.cpu_ms))::text,
                     'above 1M') END AS crossover
FROM times t GROUP BY op ORDER BY op;
