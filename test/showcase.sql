-- mergepath, shown: run by showcase.sh against a throwaway server.
\set ON_ERROR_STOP 1
\pset footer off
\pset format aligned
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS mergepath;
CREATE EXTENSION mergepath;

-- long lines (a GPU's absence explained, a plan line) broken at a space
-- before the 79th column, the rest indented under the line's start
CREATE FUNCTION pg_temp.wrap(line text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ind text := substring(line from '^ *') || '    ';
  cut int;
BEGIN
  WHILE length(line) > 78 LOOP
    cut := 79 - strpos(reverse(left(line, 78)), ' ');
    IF cut > 78 OR cut <= length(ind) THEN
      cut := 79;
    END IF;
    RETURN NEXT rtrim(left(line, cut - 1));
    line := ind || ltrim(substr(line, cut));
  END LOOP;
  RETURN NEXT line;
END $$;
CREATE FUNCTION pg_temp.explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ' || query LOOP
    RETURN QUERY SELECT pg_temp.wrap(line);
  END LOOP;
END $$;

SELECT mergepath_info()->'gpu'->>'available' = 'true' AS have_gpu,
       mergepath_info()->'gpu'->>'name' AS gpu_name,
       mergepath_info()->'gpu'->>'reason' AS no_gpu_reason \gset
\if :have_gpu
\echo '== GPU:' :gpu_name '- the GPU backend runs where an input is large enough'
\else
\echo '== No usable GPU here, so everything below runs on the CPU backend'
\echo '   (same answers; the GPU columns of the timings are left out). The reason:'
\pset tuples_only on
SELECT pg_temp.wrap(' ' || :'no_gpu_reason');
\pset tuples_only off
\endif

\echo
\echo '== gpu_merge: two sorted arrays in, one sorted array out (a first on ties)'
SELECT gpu_merge('{1,3,5,7}'::int4[], '{2,3,6}'::int4[]);
\echo '== floats in PostgreSQL order: -0 = 0 (bits kept), NaN after Infinity'
SELECT gpu_merge('{-Infinity,-0,2.5,NaN}'::float8[], '{0,2.5,Infinity}'::float8[]);
\echo '== from a table: sorted arrays built with array_agg(x ORDER BY x)'
CREATE TEMP TABLE orders AS SELECT g % 7 AS shop, (g * 37) % 1000 AS amount FROM generate_series(1, 60) g;
SELECT gpu_merge((SELECT array_agg(amount ORDER BY amount) FROM orders WHERE shop = 1),
                 (SELECT array_agg(amount ORDER BY amount) FROM orders WHERE shop = 2)) AS shops_1_and_2;

\echo '== multiset operations: a key held m times in a and n times in b'
\echo '   intersect min(m,n), union max(m,n), except max(m-n,0), symdiff |m-n|'
SELECT gpu_intersect('{1,2,2,2,3,5}'::int4[], '{2,2,3,3,4}'::int4[]) AS intersect,
       gpu_union('{1,2,2,2,3,5}'::int4[], '{2,2,3,3,4}'::int4[]) AS union,
       gpu_except('{1,2,2,2,3,5}'::int4[], '{2,2,3,3,4}'::int4[]) AS except,
       gpu_symdiff('{1,2,2,2,3,5}'::int4[], '{2,2,3,3,4}'::int4[]) AS symdiff;
\echo '== last digits of amounts both shops 1 and 2 have, as often as both have them'
SELECT gpu_intersect((SELECT array_agg(amount % 10 ORDER BY amount % 10) FROM orders WHERE shop = 1),
                     (SELECT array_agg(amount % 10 ORDER BY amount % 10) FROM orders WHERE shop = 2)) AS common;

\echo '== sorting: any order in, PostgreSQL''s order out (stable: -0 and 0 keep theirs)'
SELECT gpu_sort('{3,NaN,-0,1,0,-Infinity}'::float8[]) AS sorted,
       gpu_unique(gpu_sort('{3,1,3,2,1}'::int4[])) AS distinct_values;
\echo '== aggregates: a column, or sorted arrays, into one sorted array'
SELECT shop, gpu_sort_agg(amount) AS amounts FROM orders WHERE shop < 3 GROUP BY shop ORDER BY shop;
SELECT gpu_merge_agg(a) AS shops_0_and_1
FROM (SELECT array_agg(amount ORDER BY amount) AS a FROM orders WHERE shop < 2 GROUP BY shop) s;

\echo '== unsorted input is refused, and the error says where'
\set ON_ERROR_STOP 0
SELECT gpu_merge('{1,5,3}'::int4[], '{2}'::int4[]);
\set ON_ERROR_STOP 1
\echo
\echo '== which backend ran, and what the GPU backend sees'
SET mergepath.device = cpu;
SELECT cardinality(gpu_merge(ARRAY(SELECT generate_series(1, 500000, 2)), ARRAY(SELECT generate_series(2, 500000, 2))));
\pset tuples_only on
\echo '   the last call (mergepath_info()->''last_call''):'
SELECT pg_temp.wrap(format('     %s: %s', key, value))
FROM jsonb_each_text(mergepath_info()->'last_call');
RESET mergepath.device;
\echo '   the GPU (mergepath_info()->''gpu''):'
SELECT pg_temp.wrap(format('     %s: %s', key, value))
FROM jsonb_each_text(mergepath_info()->'gpu');
\pset tuples_only off
\if :have_gpu
SET mergepath.device = gpu;
SELECT cardinality(gpu_merge(ARRAY(SELECT generate_series(1, 500000, 2)), ARRAY(SELECT generate_series(2, 500000, 2))));
\pset tuples_only on
\echo '   the last call, on the GPU:'
SELECT pg_temp.wrap(format('     %s: %s', key, value))
FROM jsonb_each_text(mergepath_info()->'last_call');
\pset tuples_only off
RESET mergepath.device;
\endif
\echo '== MergepathSort: a plain ORDER BY; the node in the place of PostgreSQL''s Sort'
-- plans as plain lines, timed as a whole (Execution Time)
\pset format unaligned
\pset tuples_only on
LOAD 'mergepath';
SET work_mem = '256MB';
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE sales AS
SELECT (random() * 1e6)::int4 AS customer, random() * 100 AS amount FROM generate_series(1, 1000000);
ANALYZE sales;
SELECT pg_temp.explain($q$SELECT sum(amount) FROM (SELECT * FROM sales ORDER BY customer, amount DESC OFFSET 0) s$q$);
\echo '== the same query with PostgreSQL''s own Sort (mergepath.enable_sort = off)'
SET mergepath.enable_sort = off;
SELECT pg_temp.explain($q$SELECT sum(amount) FROM (SELECT * FROM sales ORDER BY customer, amount DESC OFFSET 0) s$q$);
RESET mergepath.enable_sort;
\echo '== MergepathJoin: a plain equi-join; the node in the place of a Hash Join'
CREATE TEMP TABLE customers AS
SELECT i AS customer, 'customer ' || i AS name FROM generate_series(1, 1000000) i;
ANALYZE customers;
SELECT pg_temp.explain($q$SELECT count(*), sum(s.amount) FROM sales s JOIN customers c ON c.customer = s.customer$q$);
\echo '== the same join with PostgreSQL''s own plan (mergepath.enable_join = off)'
SET mergepath.enable_join = off;
SELECT pg_temp.explain($q$SELECT count(*), sum(s.amount) FROM sales s JOIN customers c ON c.customer = s.customer$q$);
RESET mergepath.enable_join;
\pset format aligned
\pset tuples_only off
\echo
\echo '== timings: gpu_merge and the set operations beside PostgreSQL, at the array'
\echo '   sizes of the environment variable SIZES (comma-separated elements a side)'
