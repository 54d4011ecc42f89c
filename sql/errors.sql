-- Inputs that gpu_merge refuses, each with its SQLSTATE.
\set VERBOSITY default
\set SHOW_CONTEXT never

-- 22004: a NULL element
SELECT gpu_merge('{1,NULL}'::int4[], '{1}');
\echo :LAST_ERROR_SQLSTATE
-- the first NULL's subscript, whatever the lower bound; past the first byte
-- of the NULL bitmap
SELECT gpu_merge('{1}'::int8[], '[0:11]={1,2,3,4,5,6,7,8,9,NULL,11,NULL}'::int8[]);
-- 2202E: more than one dimension
SELECT gpu_merge('{1}'::int8[], '{{1,2},{3,4}}'::int8[]);
\echo :LAST_ERROR_SQLSTATE
-- 22000: not ascending, with the argument and the first offending subscript
SELECT gpu_merge('{1,3,2,0}'::int4[], '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT gpu_merge('{1}'::int8[], '[0:3]={5,5,4,6}'::int8[]);
SELECT gpu_merge('{NaN,1}'::float8[], '{}');
SELECT gpu_merge('{0,-0,-1}'::float4[], '{2}');
-- the first offending element also in a long array (many GPU tiles)
SELECT gpu_merge(ARRAY(SELECT i FROM generate_series(1, 100000) i) || 5 || 100001, '{7}'::int4[]);
-- with the check off, nothing is raised and the result is unspecified
SET mergepath.check_sorted = off;
SELECT cardinality(gpu_merge('{3,1,2}'::int4[], '{0}'));
RESET mergepath.check_sorted;
-- 42883: element types without a variant
SELECT gpu_merge('{a}'::text[], '{b}'::text[]);
\echo :LAST_ERROR_SQLSTATE
-- 54000: a result larger than an array can hold, refused before allocating
SELECT gpu_merge(x, x) FROM (SELECT array_fill(0, ARRAY[67108864]) AS x) s;
\echo :LAST_ERROR_SQLSTATE
-- bad settings
SET mergepath.device = 'tpu';
SET mergepath.gpu_min_elements = -2;
-- the aggregates' state is a bytea to SQL: a support function called outside
-- an aggregate, or given a state that mergepath did not make, refuses it
SELECT mergepath_agg_combine(NULL, NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mergepath_sort_agg_finalfn('\x00', 1);
CREATE AGGREGATE pg_temp.forged(int4) (SFUNC = mergepath_sort_agg_transfn, STYPE = bytea,
  INITCOND = '\x0102', FINALFUNC = mergepath_sort_agg_finalfn, FINALFUNC_EXTRA);
SELECT pg_temp.forged(x) FROM generate_series(1, 3) x;
\echo :LAST_ERROR_SQLSTATE
-- a state of gpu_sort_agg(int8) given to gpu_sort_agg(int4)'s functions
CREATE AGGREGATE pg_temp.collect8(int8) (SFUNC = mergepath_sort_agg_transfn, STYPE = bytea);
DO $$
BEGIN
  EXECUTE format('CREATE AGGREGATE pg_temp.finish4(int4) (SFUNC = mergepath_sort_agg_transfn, '
                 'STYPE = bytea, INITCOND = %L, FINALFUNC = mergepath_sort_agg_finalfn, '
                 'FINALFUNC_EXTRA)',
                 (SELECT pg_temp.collect8(x)::text FROM generate_series(1, 3) x));
END $$;
SELECT pg_temp.finish4(x) FROM generate_series(1, 3) x;
\echo :LAST_ERROR_SQLSTATE
