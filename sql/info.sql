-- mergepath_info(): what the backend sees, and what the last call did.
SELECT jsonb_typeof(mergepath_info()) AS info,
       mergepath_info()->'last_call' AS before_any_call,
       mergepath_info() ?& ARRAY['device_setting', 'gpu', 'gpu_slots'] AS has_sections;

SELECT gpu_merge('{1,2}'::int4[], '{3}'::int4[]);
SELECT mergepath_info()->'last_call'->>'function' AS function,
       mergepath_info()->'last_call'->>'elements_out' AS elements_out;

-- a forced backend is the one that ran
SELECT current_setting('mergepath.device') = 'auto'
       OR mergepath_info()->'last_call'->>'backend' = current_setting('mergepath.device') AS forced_backend_ran;

-- auto keeps small inputs on the CPU
SET mergepath.device = auto;
SET mergepath.gpu_min_elements = 1000;
SELECT gpu_merge('{1}'::float8[], '{2}'::float8[]);
SELECT mergepath_info()->'last_call'->>'backend' AS backend,
       mergepath_info()->'last_call'->>'note' AS note;
SELECT mergepath_info()->'gpu_thresholds'->>'merge' AS merge_threshold,
       mergepath_info()->'gpu_thresholds'->>'unique' AS unique_threshold;
RESET mergepath.gpu_min_elements;
-- unset (-1): each operation's own measured threshold, unique never
SELECT current_setting('mergepath.gpu_min_elements') AS unset;
SELECT key AS operation, value AS threshold
FROM jsonb_each(mergepath_info()->'gpu_thresholds') ORDER BY key;
SELECT gpu_merge('{1}'::float8[], '{2}'::float8[]);
SELECT mergepath_info()->'last_call'->>'backend' AS backend,
       mergepath_info()->'last_call'->>'note' AS note;
SELECT cardinality(gpu_unique(ARRAY(SELECT generate_series(1, 200000))));
SELECT mergepath_info()->'last_call'->>'backend' AS backend,
       mergepath_info()->'last_call'->>'note' AS note;
RESET mergepath.device;

-- GPU timings appear exactly when the GPU ran
SELECT cardinality(gpu_merge(ARRAY(SELECT generate_series(1, 5000)), ARRAY(SELECT generate_series(1, 5000))));
SELECT (mergepath_info()->'last_call' ? 'kernel_ms') = (mergepath_info()->'last_call'->>'backend' = 'gpu')
       AS timings_iff_gpu;
