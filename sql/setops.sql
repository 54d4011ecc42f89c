-- gpu_intersect, gpu_union, gpu_except, gpu_symdiff: results and refused
-- inputs, on whichever backend mergepath.device picks.
SELECT gpu_intersect('{1,2,2,2,3,5}'::int4[], '{2,2,3,3,4}'::int4[]) AS intersect,
       gpu_union('{1,2,2,2,3,5}'::int4[], '{2,2,3,3,4}'::int4[]) AS union,
       gpu_except('{1,2,2,2,3,5}'::int4[], '{2,2,3,3,4}'::int4[]) AS except,
       gpu_symdiff('{1,2,2,2,3,5}'::int4[], '{2,2,3,3,4}'::int4[]) AS symdiff;
SELECT gpu_intersect('{}'::int8[], '{1}'), gpu_union('{}'::int8[], '{1}'),
       gpu_except('{1}'::int8[], '{}'), gpu_symdiff('{}'::int8[], '{}');
SELECT r, array_lower(r, 1)
FROM (SELECT gpu_union('[5:6]={1,2}'::int4[], '[-1:0]={2,3}'::int4[]) AS r) s;

-- floats: -0 = +0 and NaN = NaN pair up; paired copies come from a, the
-- copies a lacks from b
SELECT gpu_intersect('{-0,-0,NaN}'::float8[], '{0,NaN,NaN}'::float8[]) AS intersect,
       gpu_union('{-0,NaN}'::float8[], '{0,0,NaN,NaN}'::float8[]) AS union,
       gpu_except('{-0,-0,1.5,NaN}'::float4[], '{0,NaN}'::float4[]) AS except,
       gpu_symdiff('{-Infinity,-0}'::float4[], '{0,0,Infinity}'::float4[]) AS symdiff;

-- Against an independent reference: the k-th copy of a key in one argument
-- pairs with the k-th copy in the other (row_number() over the key), kept
-- copies in key order, a's before b's; compared as text so that -0 and 0
-- differ.
CREATE FUNCTION ref_setop(op text, a anyarray, b anyarray) RETURNS anyarray
LANGUAGE sql IMMUTABLE AS $$
  WITH ua AS (SELECT x, ord, row_number() OVER (PARTITION BY x ORDER BY ord) AS k
              FROM unnest(a) WITH ORDINALITY AS u(x, ord)),
       ub AS (SELECT x, ord, row_number() OVER (PARTITION BY x ORDER BY ord) AS k
              FROM unnest(b) WITH ORDINALITY AS u(x, ord)),
       na AS (SELECT x, count(*) AS n FROM ua GROUP BY x),
       nb AS (SELECT x, count(*) AS n FROM ub GROUP BY x),
       kept AS (
         SELECT ua.x, 0 AS src, ua.ord FROM ua LEFT JOIN nb ON nb.x = ua.x
         WHERE CASE op WHEN 'intersect' THEN ua.k <= coalesce(nb.n, 0)
                       WHEN 'union' THEN true
                       ELSE ua.k > coalesce(nb.n, 0) END
         UNION ALL
         SELECT ub.x, 1, ub.ord FROM ub LEFT JOIN na ON na.x = ub.x
         WHERE op IN ('union', 'symdiff') AND ub.k > coalesce(na.n, 0))
  SELECT coalesce(array_agg(x ORDER BY x, src, ord), a[1:0]) FROM kept
$$;

SELECT setseed(0.25);

-- sizes at the GPU's tile edges (3968 inputs a tile for 4-byte types, 2944
-- for 8-byte ones) and around them; keys from tiny ranges (runs of one key
-- across many tiles), wide ranges, one key, one side empty
CREATE TEMP TABLE set_shapes AS
SELECT row_number() OVER () AS id, na, nb, range
FROM (VALUES (1, 1, 2), (0, 5, 4), (5, 0, 4), (1472, 1472, 8), (2943, 1, 1), (2945, 0, 3),
             (1984, 1984, 8), (3967, 1, 1), (1984, 1985, 6), (5888, 5887, 8), (3968, 3969, 2),
             (5000, 7, 100), (7, 5000, 100), (4000, 4000, 0), (20000, 20001, 8),
             (30000, 300, 1000000000), (50000, 50000, 100000)) v(na, nb, range);

CREATE TEMP TABLE set_cases AS
SELECT id,
       ARRAY(SELECT (random() * range)::int8 FROM generate_series(1, na) ORDER BY 1) AS a,
       ARRAY(SELECT (random() * range)::int8 FROM generate_series(1, nb) ORDER BY 1) AS b
FROM set_shapes;

-- floats with specials mixed in, -0 and 0 both
CREATE TEMP TABLE set_fcases AS
SELECT id,
       ARRAY(SELECT x FROM (SELECT CASE WHEN random() < 0.2
                   THEN (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', '1e-40'])[1 + (random() * 5)::int]::float8
                   ELSE round((random() * range)::numeric, 0)::float8 END AS x
                 FROM generate_series(1, na)) s ORDER BY 1) AS a,
       ARRAY(SELECT x FROM (SELECT CASE WHEN random() < 0.2
                   THEN (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', '1e-40'])[1 + (random() * 5)::int]::float8
                   ELSE round((random() * range)::numeric, 0)::float8 END AS x
                 FROM generate_series(1, nb)) s ORDER BY 1) AS b
FROM set_shapes;

CREATE TEMP TABLE set_results AS
SELECT op, 'int4' AS type, id,
       CASE op WHEN 'intersect' THEN gpu_intersect(a::int4[], b::int4[])
               WHEN 'union' THEN gpu_union(a::int4[], b::int4[])
               WHEN 'except' THEN gpu_except(a::int4[], b::int4[])
               ELSE gpu_symdiff(a::int4[], b::int4[]) END::text AS got,
       ref_setop(op, a::int4[], b::int4[])::text AS want
FROM set_cases, unnest(ARRAY['intersect', 'union', 'except', 'symdiff']) op
UNION ALL
SELECT op, 'int8', id,
       CASE op WHEN 'intersect' THEN gpu_intersect(a, b) WHEN 'union' THEN gpu_union(a, b)
               WHEN 'except' THEN gpu_except(a, b) ELSE gpu_symdiff(a, b) END::text,
       ref_setop(op, a, b)::text
FROM set_cases, unnest(ARRAY['intersect', 'union', 'except', 'symdiff']) op
UNION ALL
SELECT op, 'float4', id,
       CASE op WHEN 'intersect' THEN gpu_intersect(a::float4[], b::float4[])
               WHEN 'union' THEN gpu_union(a::float4[], b::float4[])
               WHEN 'except' THEN gpu_except(a::float4[], b::float4[])
               ELSE gpu_symdiff(a::float4[], b::float4[]) END::text,
       ref_setop(op, a::float4[], b::float4[])::text
FROM set_fcases, unnest(ARRAY['intersect', 'union', 'except', 'symdiff']) op
UNION ALL
SELECT op, 'float8', id,
       CASE op WHEN 'intersect' THEN gpu_intersect(a, b) WHEN 'union' THEN gpu_union(a, b)
               WHEN 'except' THEN gpu_except(a, b) ELSE gpu_symdiff(a, b) END::text,
       ref_setop(op, a, b)::text
FROM set_fcases, unnest(ARRAY['intersect', 'union', 'except', 'symdiff']) op;

SELECT type, op, count(*) AS cases, count(*) FILTER (WHERE got = want) AS same
FROM set_results GROUP BY type, op ORDER BY type, op;

-- and against PostgreSQL's own INTERSECT ALL and EXCEPT ALL
SELECT count(*) AS cases,
       count(*) FILTER (WHERE gpu_intersect(a, b) =
         ARRAY(SELECT x FROM (SELECT unnest(a) INTERSECT ALL SELECT unnest(b)) s(x) ORDER BY 1))
         AS intersect_same,
       count(*) FILTER (WHERE gpu_except(a, b) =
         ARRAY(SELECT x FROM (SELECT unnest(a) EXCEPT ALL SELECT unnest(b)) s(x) ORDER BY 1))
         AS except_same,
       count(*) FILTER (WHERE gpu_symdiff(a, b) =
         ARRAY(SELECT x FROM ((SELECT unnest(a) EXCEPT ALL SELECT unnest(b))
                              UNION ALL
                              (SELECT unnest(b) EXCEPT ALL SELECT unnest(a))) s(x) ORDER BY 1))
         AS symdiff_same
FROM set_cases;

-- one large pair past the default GPU threshold, with many duplicates
SELECT gpu_intersect(a, b) = ARRAY(SELECT x FROM (SELECT unnest(a) INTERSECT ALL SELECT unnest(b)) s(x) ORDER BY 1) AS intersect_same,
       gpu_except(a, b) = ARRAY(SELECT x FROM (SELECT unnest(a) EXCEPT ALL SELECT unnest(b)) s(x) ORDER BY 1) AS except_same,
       cardinality(gpu_union(a, b)) AS union_length
FROM (SELECT ARRAY(SELECT (i * 7) % 100003 FROM generate_series(1, 400000) i ORDER BY 1) AS a,
             ARRAY(SELECT (i * 11) % 99991 FROM generate_series(1, 300000) i ORDER BY 1) AS b) s;

-- refused inputs, as gpu_merge refuses them
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT gpu_intersect('{1,NULL}'::int4[], '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT gpu_union('{1}'::int8[], '{{1,2},{3,4}}'::int8[]);
\echo :LAST_ERROR_SQLSTATE
SELECT gpu_except('{1,3,2}'::int4[], '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT gpu_symdiff('{1}'::float8[], '[0:3]={5,5,NaN,4}'::float8[]);
-- unsorted b is found even where a runs out first and b is only checked
SELECT gpu_intersect('{1}'::int4[], ARRAY(SELECT i FROM generate_series(1, 100000) i) || 5);
SELECT gpu_intersect('{text}'::text[], '{b}'::text[]);
\echo :LAST_ERROR_SQLSTATE
-- with the check off, nothing is raised and the result is unspecified
SET mergepath.check_sorted = off;
SELECT cardinality(gpu_except('{3,1,2}'::int4[], '{0}')) <= 3 AS bounded;
RESET mergepath.check_sorted;
SELECT gpu_union(NULL::int4[], '{1}') IS NULL AS is_null;
