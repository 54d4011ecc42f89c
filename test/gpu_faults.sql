-- Faults inside one session, each followed by a right answer in the same
-- session (test/gpu-tests.sh, step faults; test/gpu_hog built):
--   - statement_timeout in the middle of each phase of a GPU call (upload,
--     kernels, download; placed from the phases' own timings) and of a CPU
--     call;
--   - device memory taken by another process: auto answers on the CPU (and
--     a cancel in the middle of that fallback), gpu raises 53200 with its
--     hint; the GPU again once the memory is back.
-- Any failed expectation raises.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
\ir gpu_common.sql
-- two sides of 50M int4: the merge is 1..100M
CREATE TEMP TABLE big AS
SELECT ARRAY(SELECT generate_series(1, 100000000, 2)) AS a,
       ARRAY(SELECT generate_series(2, 100000000, 2)) AS b;
CREATE FUNCTION pg_temp.right_answer(what text) RETURNS text LANGUAGE sql AS $$
  SELECT pg_temp.expect(r[1] = 1 AND r[100000000] = 100000000 AND cardinality(r) = 100000000
                        AND gpu_count(r, '{1,777,99999999}') = '{1,1,1}'
                        AND cardinality(gpu_unique(r)) = 100000000,
                        what)
  FROM (SELECT gpu_merge(a, b) AS r FROM big) s
$$;

-- The phases of one GPU call, and where the call sits in its statement:
-- reading the two arrays comes first (timed alone)
SELECT cardinality(a) + cardinality(b) FROM big;
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
SELECT cardinality(a) + cardinality(b) FROM big;
SELECT (extract(epoch FROM clock_timestamp()) - :t0) * 1000 AS read_ms \gset
SET mergepath.device = gpu;
SELECT cardinality(gpu_merge(a, b)) FROM big;
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
SELECT cardinality(gpu_merge(a, b)) FROM big;
SELECT (extract(epoch FROM clock_timestamp()) - :t0) * 1000 AS stmt_ms,
       (mergepath_info()->'last_call'->>'total_ms')::float8 AS call_ms,
       (mergepath_info()->'last_call'->>'h2d_ms')::float8 AS h2d_ms,
       (mergepath_info()->'last_call'->>'kernel_ms')::float8 AS kernel_ms,
       (mergepath_info()->'last_call'->>'d2h_ms')::float8 AS d2h_ms \gset
SELECT round((:read_ms + :h2d_ms / 2)::numeric) AS t_upload,
       round((:read_ms + :h2d_ms + :kernel_ms / 2)::numeric) AS t_kernels,
       round((:read_ms + :h2d_ms + :kernel_ms + :d2h_ms / 2)::numeric) AS t_download \gset
\echo GPU call of 2 x 50M int4: statement :stmt_ms ms, reading the arrays :read_ms ms, the call :call_ms ms (upload :h2d_ms, kernels :kernel_ms, download :d2h_ms)
\echo statement_timeout aimed at the upload :t_upload ms, the kernels :t_kernels ms, the download :t_download ms

\set ON_ERROR_STOP 0
SET statement_timeout = :t_upload;
SELECT cardinality(gpu_merge(a, b)) FROM big;
\set s_upload :SQLSTATE
RESET statement_timeout;
SET statement_timeout = :t_kernels;
SELECT cardinality(gpu_merge(a, b)) FROM big;
\set s_kernels :SQLSTATE
RESET statement_timeout;
SET statement_timeout = :t_download;
SELECT cardinality(gpu_merge(a, b)) FROM big;
\set s_download :SQLSTATE
RESET statement_timeout;
\set ON_ERROR_STOP 1
\echo SQLSTATEs: upload :s_upload, kernels :s_kernels, download :s_download
SELECT pg_temp.expect(:'s_upload' = '57014' AND :'s_kernels' = '57014' AND :'s_download' = '57014',
                      'a statement_timeout in each GPU phase cancels the call');
SELECT pg_temp.right_answer('the GPU call after the cancels is right');
SELECT pg_temp.expect(mergepath_info()->'last_call'->>'backend' = 'gpu', 'and ran on the GPU');

-- The CPU backend: a cancel in the middle of its merge
SET mergepath.device = cpu;
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
SELECT cardinality(gpu_merge(a, b)) FROM big;
SELECT (extract(epoch FROM clock_timestamp()) - :t0) * 1000 AS stmt_ms,
       (mergepath_info()->'last_call'->>'total_ms')::float8 AS call_ms \gset
SELECT round((:read_ms + :call_ms / 2)::numeric) AS t_cpu, :call_ms AS cpu_call_ms \gset
\echo CPU call of 2 x 50M int4: statement :stmt_ms ms, the call :call_ms ms; statement_timeout :t_cpu ms
\set ON_ERROR_STOP 0
SET statement_timeout = :t_cpu;
SELECT cardinality(gpu_merge(a, b)) FROM big;
\set s_cpu :SQLSTATE
RESET statement_timeout;
\set ON_ERROR_STOP 1
SELECT pg_temp.expect(:'s_cpu' = '57014', 'a statement_timeout in the CPU merge cancels it');
SELECT pg_temp.right_answer('the CPU call after the cancel is right');

-- Device memory taken by another process (the context is already set up:
-- the call's own buffers cannot be had)
SET mergepath.device = gpu;
SELECT cardinality(gpu_merge('{1}'::int4[], '{2}'));
\! rm -f /tmp/mergepath-gpu-hog.out; (test/gpu_hog 200 300 >/tmp/mergepath-gpu-hog.out 2>&1 &); for i in $(seq 1 100); do grep -q holding /tmp/mergepath-gpu-hog.out && break; sleep 0.2; done; cat /tmp/mergepath-gpu-hog.out
SET mergepath.device = auto;
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
SELECT cardinality(gpu_merge(a, b)) FROM big;
SELECT (extract(epoch FROM clock_timestamp()) - :t0) * 1000 AS stmt_ms,
       (mergepath_info()->'last_call'->>'total_ms')::float8 AS call_ms,
       mergepath_info()->'last_call'->>'backend' AS fallback_backend,
       mergepath_info()->'last_call'->>'note' AS fallback_note \gset
\echo auto with the memory taken: :fallback_backend (:fallback_note), statement :stmt_ms ms
SELECT pg_temp.expect(:'fallback_backend' = 'cpu' AND :'fallback_note' LIKE 'fell back to the CPU: out of memory%',
                      'auto answers on the CPU when the device memory is taken');
SELECT pg_temp.right_answer('the fallback''s answer is right');
-- (the fallback's CPU merge is the last part of its call: aimed at its
-- middle, as long as the CPU call above took)
SELECT round((:read_ms + :call_ms - :cpu_call_ms / 2)::numeric) AS t_fallback \gset
\echo statement_timeout aimed at the middle of the CPU merge of the fallback: :t_fallback ms
\set ON_ERROR_STOP 0
SET statement_timeout = :t_fallback;
SELECT cardinality(gpu_merge(a, b)) FROM big;
\set s_fallback :SQLSTATE
RESET statement_timeout;
SET mergepath.device = gpu;
SELECT cardinality(gpu_merge(a, b)) FROM big;
\set s_gpu_oom :SQLSTATE
\set m_gpu_oom :LAST_ERROR_MESSAGE
\set ON_ERROR_STOP 1
\echo gpu with the memory taken: SQLSTATE :s_gpu_oom, :m_gpu_oom
SELECT pg_temp.expect(:'s_fallback' = '57014', 'a statement_timeout in the CPU fallback cancels it');
SELECT pg_temp.expect(:'s_gpu_oom' = '53200', 'gpu raises 53200 when the device memory is taken');
\! pkill -x gpu_hog ; sleep 1
SET mergepath.device = gpu;
SELECT pg_temp.right_answer('with the memory back, the GPU answers again in the same session');
SELECT pg_temp.expect(mergepath_info()->'last_call'->>'backend' = 'gpu', 'and ran on the GPU');

-- A sort beyond work_mem whose rows the GPU keeps (mergepath.gpu_sort_mem):
-- its method, the same rows as PostgreSQL's Sort, a cancel at times that
-- fall in each phase (shipping rows, the sort, fetching them back) leaving
-- no device memory held, the store drained into a run on disk where it
-- reaches its limit, and where another process holds the GPU's memory
CREATE TEMP TABLE rows5m AS
SELECT g AS id, (random() * 1e6)::int4 AS k, random() AS f FROM generate_series(1, 5000000) g;
ANALYZE rows5m;
SET work_mem = '4MB';
SET max_parallel_workers_per_gather = 0;
SET mergepath.device = gpu;
CREATE FUNCTION pg_temp.sorted_md5() RETURNS text LANGUAGE sql AS $$
  SELECT md5(string_agg(id::text || ':' || k::text || ':' || f::text, ','))
  FROM (SELECT id, k, f FROM rows5m ORDER BY k, id OFFSET 0) s
$$;
CREATE FUNCTION pg_temp.sort_method() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT id, k, f FROM rows5m ORDER BY k, id' LOOP
    IF line ~ 'Sort Method' THEN
      RETURN trim(line);
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
SET mergepath.enable_sort = off;
SELECT pg_temp.sorted_md5() AS want_md5 \gset
RESET mergepath.enable_sort;
SELECT pg_temp.sort_method() AS device_method \gset
\echo beyond work_mem on the GPU: :device_method
SELECT pg_temp.expect(:'device_method' LIKE 'Sort Method: external sort  Device: %',
                      'the rows beyond work_mem are kept on the GPU');
SELECT pg_temp.expect(pg_temp.sorted_md5() = :'want_md5', 'the same rows in the same order as the Sort');
SELECT (mergepath_info()->'gpu'->>'memory_free_mb')::int AS free_before \gset
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
SELECT count(*) FROM (SELECT id, k, f FROM rows5m ORDER BY k, id OFFSET 0) s;
SELECT (extract(epoch FROM clock_timestamp()) - :t0) * 1000 AS sort_ms \gset
\echo the sort on the GPU: :sort_ms ms
CREATE TEMP TABLE store_cancels (pct int, sqlstate text);
\set ON_ERROR_STOP 0
SELECT round(:sort_ms * 0.3) AS t \gset
SET statement_timeout = :t;
SELECT count(*) FROM (SELECT id, k, f FROM rows5m ORDER BY k, id OFFSET 0) s;
\set s30 :SQLSTATE
RESET statement_timeout;
SELECT round(:sort_ms * 0.6) AS t \gset
SET statement_timeout = :t;
SELECT count(*) FROM (SELECT id, k, f FROM rows5m ORDER BY k, id OFFSET 0) s;
\set s60 :SQLSTATE
RESET statement_timeout;
SELECT round(:sort_ms * 0.9) AS t \gset
SET statement_timeout = :t;
SELECT count(*) FROM (SELECT id, k, f FROM rows5m ORDER BY k, id OFFSET 0) s;
\set s90 :SQLSTATE
RESET statement_timeout;
\set ON_ERROR_STOP 1
SELECT (mergepath_info()->'gpu'->>'memory_free_mb')::int AS free_after \gset
\echo cancels at 30, 60, 90% of the sort: :s30, :s60, :s90; device memory free :free_before MB before, :free_after MB after
SELECT pg_temp.expect(:'s30' = '57014' AND :'s60' = '57014',
                      'a statement_timeout while the GPU keeps the rows cancels the sort');
SELECT pg_temp.expect(:free_after >= :free_before - 128, 'the cancelled sorts left no device memory held');
SELECT pg_temp.expect(pg_temp.sorted_md5() = :'want_md5', 'the sort after the cancels is right');
SET mergepath.gpu_sort_mem = '64MB';
SELECT pg_temp.sort_method() AS drained_method \gset
\echo the limit of the store reached: :drained_method
SELECT pg_temp.expect(:'drained_method' LIKE 'Sort Method: external merge  Disk: %',
                      'a store at its limit becomes a run on disk');
SELECT pg_temp.expect(pg_temp.sorted_md5() = :'want_md5', 'and the rows are the same');
RESET mergepath.gpu_sort_mem;
\! rm -f /tmp/mergepath-gpu-hog.out; (test/gpu_hog 200 300 >/tmp/mergepath-gpu-hog.out 2>&1 &); for i in $(seq 1 100); do grep -q holding /tmp/mergepath-gpu-hog.out && break; sleep 0.2; done; cat /tmp/mergepath-gpu-hog.out
SET mergepath.device = auto;
SET mergepath.gpu_min_elements = 0;
SELECT pg_temp.sort_method() AS taken_method \gset
\echo the memory of the GPU held by another process: :taken_method
SELECT pg_temp.expect(:'taken_method' LIKE 'Sort Method: external merge  Disk: %',
                      'with the memory taken, the runs go to disk');
SELECT pg_temp.expect(pg_temp.sorted_md5() = :'want_md5', 'and the rows are the same');
\! pkill -x gpu_hog ; sleep 1
RESET mergepath.gpu_min_elements;
SET mergepath.device = gpu;
SELECT pg_temp.sort_method() AS back_method \gset
SELECT pg_temp.expect(:'back_method' LIKE 'Sort Method: external sort  Device: %',
                      'with the memory back, the GPU keeps the rows again');
RESET work_mem;
RESET max_parallel_workers_per_gather;
\echo faults: PASS
