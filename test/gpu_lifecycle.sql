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
