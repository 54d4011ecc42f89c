-- The GPU inside one backend: cancels at many points leave nothing behind,
-- and the next call is right.  Run by test/gpu-tests.sh; fails with an
-- error on the first broken expectation.
\set ON_ERROR_STOP 1
SET mergepath.device = gpu;
CREATE TEMP TABLE big AS
SELECT ARRAY(SELECT generate_series(1, 12000000, 2)) AS a,
       ARRAY(SELECT generate_series(2, 12000000, 2)) AS b;

SELECT cardinality(gpu_merge(a, b)) FROM big;
SELECT (mergepath_info()->'gpu'->>'pool_mb')::int AS pool_before,
       (mergepath_info()->'gpu'->>'memory_free_mb')::int AS free_before,
       (mergepath_info()->'last_call'->>'total_ms')::float8 AS call_ms \gset
\echo one call of 2 x 6M int4 on the GPU: :call_ms ms, pool :pool_before MB

-- statement timeouts from 1 ms up to past the whole statement: each either
-- completes or is cancelled, some of them inside the GPU call
\set ON_ERROR_STOP 0
SELECT format('SET statement_timeout = %s; SELECT cardinality(gpu_merge(a, b)) FROM big;', t)
FROM generate_series(1, 300, 5) t \gexec
RESET statement_timeout;
\set ON_ERROR_STOP 1

DO $$
BEGIN
  IF (SELECT gpu_merge(a, b) <> ARRAY(SELECT generate_series(1, 12000000)) FROM big) THEN
    RAISE EXCEPTION 'wrong result after cancels';
  END IF;
  IF mergepath_info()->'last_call'->>'backend' <> 'gpu' THEN
    RAISE EXCEPTION 'the GPU did not run the call after cancels';
  END IF;
END $$;

-- MergepathSort on the GPU: statement timeouts in every phase of the node
-- (reading, keys, the GPU sort, returning rows), then a right answer
LOAD 'mergepath';
SET work_mem = '1GB';
SET mergepath.sort_min_rows = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE sort_rows AS
SELECT (random() * 2e9 - 1e9)::int4 AS k, g AS p FROM generate_series(1, 3000000) g;
ANALYZE sort_rows;
SELECT sum(p) FROM (SELECT * FROM sort_rows ORDER BY k OFFSET 0) s;
SELECT (mergepath_info()->'last_call'->>'total_ms')::float8 AS sort_ms \gset
\echo MergepathSort of 3M rows, the GPU sort alone: :sort_ms ms
\set ON_ERROR_STOP 0
SELECT format('SET statement_timeout = %s; SELECT sum(p) FROM (SELECT * FROM sort_rows ORDER BY k OFFSET 0) s;', t)
FROM generate_series(1, 900, 9) t \gexec
RESET statement_timeout;
\set ON_ERROR_STOP 1

DO $$
BEGIN
  IF (SELECT count(*) FROM (SELECT k, lag(k) OVER () AS prev
                            FROM (SELECT k FROM sort_rows ORDER BY k OFFSET 0) s) x
      WHERE k < prev) <> 0 THEN
    RAISE EXCEPTION 'MergepathSort out of order after cancels';
  END IF;
  IF mergepath_info()->'last_call'->>'function' <> 'MergepathSort'
     OR mergepath_info()->'last_call'->>'backend' <> 'gpu' THEN
    RAISE EXCEPTION 'MergepathSort did not run on the GPU after cancels: %', mergepath_info()->'last_call';
  END IF;
END $$;

-- MergepathJoin on the GPU: statement timeouts while it reads, sorts and
-- matches, and returns pairs; then the right count and checksum
CREATE TEMP TABLE join_a AS SELECT g AS id, (g % 1500000)::int8 AS k FROM generate_series(1, 3000000) g ORDER BY random();
CREATE TEMP TABLE join_b AS SELECT g AS id, (g % 2000000)::int8 AS k FROM generate_series(1, 2000000) g ORDER BY random();
ANALYZE join_a;
ANALYZE join_b;
SET mergepath.enable_join = off;
CREATE TEMP TABLE join_ref AS SELECT count(*) AS c, sum(a.id + b.id) AS s FROM join_a a JOIN join_b b USING (k);
RESET mergepath.enable_join;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT count(*) AS pairs, sum(a.id + b.id) AS checksum FROM join_a a JOIN join_b b USING (k) \gset
SELECT (mergepath_info()->'last_call'->>'total_ms')::float8 AS join_ms \gset
\echo MergepathJoin of 3M x 2M rows, :pairs pairs, the GPU sort and match alone: :join_ms ms
\set ON_ERROR_STOP 0
SELECT format('SET statement_timeout = %s; SELECT count(*), sum(a.id + b.id) FROM join_a a JOIN join_b b USING (k);', t)
FROM generate_series(1, 1200, 12) t \gexec
RESET statement_timeout;
\set ON_ERROR_STOP 1
DO $$
DECLARE
  n int8;
  total numeric;
BEGIN
  SELECT count(*), sum(a.id + b.id) INTO n, total FROM join_a a JOIN join_b b USING (k);
  IF NOT (SELECT r.c = n AND r.s = total FROM join_ref r) THEN
    RAISE EXCEPTION 'MergepathJoin gave % pairs after cancels', n;
  END IF;
  IF mergepath_info()->'last_call'->>'function' <> 'MergepathJoin'
     OR mergepath_info()->'last_call'->>'backend' <> 'gpu' THEN
    RAISE EXCEPTION 'MergepathJoin did not run on the GPU after cancels: %', mergepath_info()->'last_call';
  END IF;
END $$;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

SELECT (mergepath_info()->'gpu'->>'pool_mb')::int AS pool_after,
       (mergepath_info()->'gpu'->>'memory_free_mb')::int AS free_after \gset
\echo pool :pool_before -> :pool_after MB, free device memory :free_before -> :free_after MB
SELECT :pool_after = :pool_before AND abs(:free_after - :free_before) <= 64 AS no_growth \gset
\if :no_growth
\echo lifecycle: PASS
\else
\echo lifecycle: FAIL device memory grew across cancels
\quit
\endif
