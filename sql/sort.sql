-- gpu_sort, gpu_unique, gpu_sort_agg, gpu_merge_agg: results, stability,
-- parallel plans and refused inputs, on whichever backend
-- mergepath.device picks.
SELECT gpu_sort('{3,1,2,1}'::int4[]) AS sorted, gpu_unique('{1,1,2,3,3,3}'::int8[]) AS uniq;
SELECT gpu_sort('{}'::int8[]) AS empty, gpu_sort('[5:5]={7}'::float4[]) AS one,
       gpu_unique('{}'::float8[]) AS empty_unique;
-- floats: NaN last, -0 = +0 and stable (equal keys keep their order)
SELECT gpu_sort('{NaN,1,-0,-Infinity,0,-0,Infinity,-1.5}'::float8[]) AS f8,
       gpu_sort('{0,NaN,-0,1e-40,-1e-40}'::float4[]) AS f4;
SELECT gpu_unique('{-Infinity,-0,0,-0,1,NaN,NaN}'::float8[]) AS first_of_each_run;
-- intarray's set semantics from multiset results
SELECT gpu_unique(gpu_intersect('{1,1,2,3,3}'::int4[], '{1,1,3,3,4}')) AS set_intersection;

SELECT setseed(0.25);

-- sizes around the CPU's merge sort runs and radix threshold, the GPU's
-- staging chunks; layouts: random, sorted, reversed, one key, narrow keys
CREATE TEMP TABLE sort_cases AS
SELECT row_number() OVER () AS id, n, shape
FROM (VALUES (2, 'random'), (15, 'random'), (16, 'random'), (17, 'random'), (63, 'random'),
             (64, 'random'), (65, 'random'), (127, 'narrow'), (128, 'random'), (129, 'random'),
             (4097, 'narrow'), (20000, 'random'),
             (20000, 'sorted'), (20000, 'reversed'), (20000, 'one key'), (100001, 'narrow'),
             (300000, 'random')) v(n, shape);

CREATE TEMP TABLE sort_ints AS
SELECT id, shape, ARRAY(
  SELECT CASE shape WHEN 'narrow' THEN (random() * 9)::int8
                    WHEN 'one key' THEN 42
                    WHEN 'sorted' THEN g
                    WHEN 'reversed' THEN -g
                    ELSE (random() * 1e18 - 5e17)::int8 END
  FROM generate_series(1, n) g) AS a
FROM sort_cases;
ALTER TABLE sort_ints ADD COLUMN a4 int4[];
UPDATE sort_ints SET a4 = ARRAY(SELECT (x % 2000000000)::int4 FROM unnest(a) x);

CREATE TEMP TABLE sort_floats AS
SELECT id, shape, ARRAY(
  SELECT CASE WHEN shape = 'one key' THEN (ARRAY['0', '-0'])[1 + (random())::int]::float8
              WHEN random() < 0.2
              THEN (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', '1e-310', '-1e-310'])[1 + (random() * 6)::int]::float8
              WHEN shape = 'narrow' THEN round(random() * 9)::float8
              WHEN shape = 'sorted' THEN g
              WHEN shape = 'reversed' THEN -g
              ELSE random() * 1e6 - 5e5 END
  FROM generate_series(1, n) g) AS a
FROM sort_cases;
ALTER TABLE sort_floats ADD COLUMN a4 float4[];
UPDATE sort_floats SET a4 = ARRAY(
  SELECT CASE WHEN x <> 0 AND abs(x) < 1e-300 THEN sign(x) * 1e-40 ELSE x END::float4
  FROM unnest(a) x);

-- the reference: PostgreSQL's sort with ties broken by position (stable),
-- compared as text, so -0 and +0 must come out where they were
CREATE FUNCTION ref_sort(a anyarray) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(x ORDER BY x, ord), a[1:0])::text
  FROM unnest(a) WITH ORDINALITY AS u(x, ord)
$$;
-- and the first of each run of equal keys
CREATE FUNCTION ref_unique(a anyarray) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(x ORDER BY ord), a[1:0])::text
  FROM (SELECT x, ord, lag(x) OVER (ORDER BY ord) AS prev
        FROM unnest(a) WITH ORDINALITY AS u(x, ord)) s
  WHERE ord = 1 OR prev <> x
$$;

SELECT 'int4' AS type, id, shape FROM sort_ints
WHERE gpu_sort(a4)::text IS DISTINCT FROM ref_sort(a4)
UNION ALL
SELECT 'int8', id, shape FROM sort_ints WHERE gpu_sort(a)::text IS DISTINCT FROM ref_sort(a)
UNION ALL
SELECT 'float4', id, shape FROM sort_floats
WHERE gpu_sort(a4)::text IS DISTINCT FROM ref_sort(a4)
UNION ALL
SELECT 'float8', id, shape FROM sort_floats WHERE gpu_sort(a)::text IS DISTINCT FROM ref_sort(a);

SELECT 'int4' AS type, id, shape FROM sort_ints
WHERE gpu_unique(gpu_sort(a4))::text IS DISTINCT FROM ref_unique(gpu_sort(a4))
UNION ALL
SELECT 'int8', id, shape FROM sort_ints
WHERE gpu_unique(gpu_sort(a))::text IS DISTINCT FROM ref_unique(gpu_sort(a))
UNION ALL
SELECT 'float4', id, shape FROM sort_floats
WHERE gpu_unique(gpu_sort(a4))::text IS DISTINCT FROM ref_unique(gpu_sort(a4))
UNION ALL
SELECT 'float8', id, shape FROM sort_floats
WHERE gpu_unique(gpu_sort(a))::text IS DISTINCT FROM ref_unique(gpu_sort(a));

-- gpu_sort_agg against array_agg(x ORDER BY x, position), NULLs skipped
CREATE TEMP TABLE agg_rows AS
SELECT g AS pos, g % 7 AS grp,
       CASE WHEN random() < 0.05 THEN NULL ELSE (random() * 1000)::int4 END AS i4,
       CASE WHEN random() < 0.05 THEN NULL ELSE (random() * 1e15)::int8 END AS i8,
       CASE WHEN random() < 0.1
            THEN (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity'])[1 + (random() * 4)::int]::float8
            ELSE round(random() * 100)::float8 END AS f8
FROM generate_series(1, 50000) g;

SELECT gpu_sort_agg(i4)::text = (SELECT array_agg(i4 ORDER BY i4)::text FROM agg_rows WHERE i4 IS NOT NULL) AS int4_ok,
       gpu_sort_agg(i8)::text = (SELECT array_agg(i8 ORDER BY i8)::text FROM agg_rows WHERE i8 IS NOT NULL) AS int8_ok,
       gpu_sort_agg(f8 ORDER BY pos)::text = (SELECT array_agg(f8 ORDER BY f8, pos)::text FROM agg_rows) AS float8_stable,
       gpu_sort_agg(f8::float4 ORDER BY pos)::text = (SELECT array_agg(f8::float4 ORDER BY f8, pos)::text FROM agg_rows) AS float4_stable
FROM agg_rows;
SELECT grp, cardinality(gpu_sort_agg(i4)) = count(i4) AS counted,
       gpu_sort_agg(i4)::text = array_agg(i4 ORDER BY i4) FILTER (WHERE i4 IS NOT NULL)::text AS ok
FROM agg_rows GROUP BY grp ORDER BY grp;
-- no rows, or only NULLs: NULL, as array_agg
SELECT gpu_sort_agg(i4) IS NULL AS no_rows FROM agg_rows WHERE false;
SELECT gpu_sort_agg(x) IS NULL AS only_nulls FROM (VALUES (NULL::int8), (NULL)) v(x);

-- gpu_sort_agg(value, key) against array_agg(value ORDER BY key, position)
-- without the NULL values, for every pair of types: keys with ties, NULL
-- keys (their values last, in the order they came), float specials; the
-- values' text (bits) compared, -0 and NaN included
ALTER TABLE agg_rows ADD COLUMN f4 float4;
UPDATE agg_rows SET f4 = CASE WHEN pos % 11 = 0 THEN NULL ELSE (f8 / 3)::float4 END;
CREATE FUNCTION pg_temp.by_key_differs(v text, k text, grouped bool) RETURNS bigint
LANGUAGE plpgsql AS $f$
DECLARE bad bigint;
BEGIN
  EXECUTE format($q$
    SELECT count(*) FILTER (WHERE got::text IS DISTINCT FROM want::text)
    FROM (SELECT gpu_sort_agg(%1$s, %2$s ORDER BY pos) AS got,
                 array_agg(%1$s ORDER BY %2$s, pos) FILTER (WHERE %1$s IS NOT NULL) AS want
          FROM agg_rows GROUP BY CASE WHEN %3$L THEN grp END) s$q$, v, k, grouped) INTO bad;
  RETURN bad;
END $f$;
SELECT grouped, count(*) AS type_pairs,
       sum(pg_temp.by_key_differs(v, k, grouped)) AS differing_results
FROM unnest('{i4,i8,f4,f8}'::text[]) v, unnest('{i4,i8,f4,f8}'::text[]) k,
     unnest('{false,true}'::bool[]) grouped
GROUP BY grouped ORDER BY grouped;
-- no rows or only NULL values: NULL; only NULL keys: the values as they came
SELECT gpu_sort_agg(i4, f8) IS NULL AS no_rows FROM agg_rows WHERE false;
SELECT gpu_sort_agg(x, 1) IS NULL AS only_null_values FROM (VALUES (NULL::int8), (NULL)) v(x);
SELECT gpu_sort_agg(x, NULL::int4 ORDER BY x DESC) AS only_null_keys FROM (VALUES (1.5::float8), ('-0'), (3)) v(x);
SELECT gpu_sort_agg(x, k) FROM (VALUES (1, 2.5::float4), (2, NULL), (3, '-Infinity'), (4, 'NaN'), (5, '-0'),
                                       (6, 0), (NULL, 1), (7, 2.5)) v(x, k);

-- gpu_merge_agg: sorted arrays merged, ties in the order the arrays come
CREATE TEMP TABLE agg_arrays AS
SELECT grp, array_agg(f8 ORDER BY f8, pos) AS a, array_agg(i4 ORDER BY i4) AS b
FROM agg_rows WHERE i4 IS NOT NULL GROUP BY grp;
SELECT gpu_merge_agg(a ORDER BY grp)::text =
         (SELECT array_agg(f8 ORDER BY f8, grp, pos)::text FROM agg_rows WHERE i4 IS NOT NULL) AS float8_ok,
       gpu_merge_agg(b)::text =
         (SELECT array_agg(i4 ORDER BY i4)::text FROM agg_rows WHERE i4 IS NOT NULL) AS int4_ok
FROM agg_arrays;
SELECT gpu_merge_agg(x) FROM (VALUES ('{1,5}'::int8[]), (NULL), ('{}'), ('{2,5,9}')) v(x);
SELECT gpu_merge_agg(x) IS NULL AS no_rows FROM (VALUES ('{1}'::int4[])) v(x) WHERE false;

-- gpu_merge_agg over k sorted runs, k from 1 to 10^4, of uneven lengths
-- with empty runs among them, each way of putting runs together
-- (mergepath.merge_runs): against array_agg(x ORDER BY x, run, position),
-- compared as text, so that -0 before or after +0 and NaNs' places show
CREATE TEMP TABLE run_elems AS
SELECT k, r, p,
       ((r * 7919 + p * 104729) % 2000 - 1000)::int4 AS i,
       CASE (r * 31 + p * 17) % 23 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN '0'
            WHEN 3 THEN '-Infinity' ELSE ((r * 13 + p * 7) % 40) / 4.0 END::float8 AS f
FROM unnest('{1,2,3,10,100,1000,10000}'::int[]) k,
     LATERAL generate_series(1, k) r,
     LATERAL generate_series(1, CASE WHEN r % 4 = 0 THEN 0
                                     WHEN r = 1 THEN 3000
                                     ELSE (r * 37) % 17 END) p;
CREATE TEMP TABLE run_arrays AS
SELECT k, r, coalesce(array_agg(i ORDER BY i, p) FILTER (WHERE p IS NOT NULL), '{}') AS ia,
       coalesce(array_agg(f ORDER BY f, p) FILTER (WHERE p IS NOT NULL), '{}') AS fa
FROM (SELECT k, r FROM unnest('{1,2,3,10,100,1000,10000}'::int[]) k, generate_series(1, k) r) kr
     LEFT JOIN run_elems e USING (k, r)
GROUP BY k, r;
CREATE FUNCTION pg_temp.runs_differ(how text) RETURNS TABLE (k int, elements bigint, differing text[])
LANGUAGE plpgsql AS $f$
BEGIN
  PERFORM set_config('mergepath.merge_runs', how, true);
  RETURN QUERY
  SELECT a.k, w.n, array_remove(ARRAY[
           CASE WHEN a.i IS DISTINCT FROM w.i THEN 'int4' END,
           CASE WHEN a.i8 IS DISTINCT FROM w.i THEN 'int8' END,
           CASE WHEN a.f4 IS DISTINCT FROM w.f4 THEN 'float4' END,
           CASE WHEN a.f IS DISTINCT FROM w.f THEN 'float8' END], NULL)
  FROM (SELECT ra.k, gpu_merge_agg(ia ORDER BY r)::text AS i,
               gpu_merge_agg(ia::int8[] ORDER BY r)::text AS i8,
               gpu_merge_agg(fa::float4[] ORDER BY r)::text AS f4,
               gpu_merge_agg(fa ORDER BY r)::text AS f
        FROM run_arrays ra GROUP BY ra.k) a
  JOIN (SELECT e.k, count(*) AS n, array_agg(e.i ORDER BY e.i, e.r, e.p)::text AS i,
               array_agg(e.f::float4 ORDER BY e.f::float4, e.r, e.p)::text AS f4,
               array_agg(e.f ORDER BY e.f, e.r, e.p)::text AS f
        FROM run_elems e GROUP BY e.k) w ON w.k = a.k;
END $f$;
SELECT how, array_agg(k ORDER BY k) AS runs, array_agg(elements ORDER BY k) AS elements,
       array_agg(k ORDER BY k) FILTER (WHERE differing <> '{}') AS differing
FROM unnest('{auto,merge,sort}'::text[]) how, LATERAL pg_temp.runs_differ(how)
GROUP BY how ORDER BY how;

-- parallel aggregation: partial states from the workers, combined
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE agg_parallel AS SELECT * FROM agg_rows;
ANALYZE agg_parallel;
EXPLAIN (COSTS OFF) SELECT gpu_sort_agg(i8) FROM agg_parallel;
-- (rows reach the aggregate in no set order here: floats compare as values)
SELECT gpu_sort_agg(i8)::text = (SELECT array_agg(i8 ORDER BY i8)::text FROM agg_rows WHERE i8 IS NOT NULL) AS parallel_int8_ok,
       gpu_sort_agg(f8) = (SELECT array_agg(f8 ORDER BY f8) FROM agg_rows) AS parallel_float8_ok
FROM agg_parallel;
-- the two-argument form: keys without ties give one order; NULL keys'
-- values last, in no set order here
EXPLAIN (COSTS OFF) SELECT gpu_sort_agg(i4, pos * 2.5) FROM agg_parallel;
SELECT (SELECT gpu_sort_agg(i4, -pos)::text = (SELECT array_agg(i4 ORDER BY pos DESC)::text FROM agg_rows WHERE i4 IS NOT NULL)
        FROM agg_parallel) AS parallel_by_key_ok,
       (SELECT gpu_sort_agg(f8, f8) = (SELECT array_agg(f8 ORDER BY f8) FROM agg_rows) FROM agg_parallel) AS parallel_by_float_key_ok,
       (SELECT array_agg(x ORDER BY x) FROM unnest(r[cardinality(r) - m + 1:]) x)::text =
       (SELECT array_agg(i8 ORDER BY i8)::text FROM agg_rows WHERE pos % 3 = 0 AND i8 IS NOT NULL) AS parallel_null_keys_last
FROM (SELECT gpu_sort_agg(i8, CASE WHEN pos % 3 = 0 THEN NULL ELSE pos END) AS r,
             count(i8) FILTER (WHERE pos % 3 = 0) AS m FROM agg_parallel) p;
EXPLAIN (COSTS OFF) SELECT grp, gpu_merge_agg(ARRAY[i4, i4 + 1]) FROM agg_parallel
WHERE i4 IS NOT NULL GROUP BY grp;
SELECT bool_and(m::text = r::text) AS parallel_merge_ok
FROM (SELECT grp, gpu_merge_agg(ARRAY[i4, i4 + 1]) AS m FROM agg_parallel
      WHERE i4 IS NOT NULL GROUP BY grp) p
JOIN (SELECT grp, array_agg(x ORDER BY x) AS r
      FROM agg_rows, LATERAL unnest(ARRAY[i4, i4 + 1]) x WHERE i4 IS NOT NULL GROUP BY grp) q USING (grp);
-- the workers' states, each put in order in its worker, then merged by the
-- leader or sorted again: the same results each way
CREATE FUNCTION pg_temp.parallel_ok(how text) RETURNS bool
LANGUAGE plpgsql AS $f$
DECLARE ok bool;
BEGIN
  PERFORM set_config('mergepath.merge_runs', how, true);
  SELECT (SELECT gpu_sort_agg(i8)::text FROM agg_parallel) =
           (SELECT array_agg(i8 ORDER BY i8)::text FROM agg_rows WHERE i8 IS NOT NULL)
     AND (SELECT gpu_sort_agg(i4, -pos)::text FROM agg_parallel) =
           (SELECT array_agg(i4 ORDER BY pos DESC)::text FROM agg_rows WHERE i4 IS NOT NULL)
     AND (SELECT gpu_merge_agg(ARRAY[i8, i8 + 1])::text FROM agg_parallel WHERE i8 IS NOT NULL) =
           (SELECT array_agg(x ORDER BY x)::text
            FROM agg_rows, LATERAL unnest(ARRAY[i8, i8 + 1]) x WHERE i8 IS NOT NULL)
    INTO ok;
  RETURN ok;
END $f$;
SELECT how, pg_temp.parallel_ok(how) FROM unnest('{auto,merge,sort}'::text[]) how;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE agg_parallel;

-- a state as the bytea it leaves its process as (in order; its sorted
-- column as zigzag varint deltas where that is shorter: wire form 2, else 1),
-- read back by an aggregate that starts from it: every type, elements close
-- together, spread over the whole range, too sparse to code shorter, and the
-- extremes; the states of the odd and the even rows read back by the
-- combine function; a state cut short or padded is refused
CREATE AGGREGATE pg_temp.combine_rt(bytea) (SFUNC = mergepath_agg_combine, STYPE = bytea);
CREATE FUNCTION pg_temp.state_round_trip(typ text, gen text) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
  state bytea;
  combined bytea;
  got text;
  got_combined text;
  want text;
  cut text;
  padded text;
BEGIN
  EXECUTE format('CREATE AGGREGATE pg_temp.collect_rt(%s) (SFUNC = mergepath_sort_agg_transfn, STYPE = bytea)', typ);
  EXECUTE format('SELECT pg_temp.collect_rt(x) FROM (%s) s(x)', gen) INTO state;
  EXECUTE format('SELECT pg_temp.combine_rt(st) FROM (SELECT pg_temp.collect_rt(x) st '
                 'FROM (SELECT x, row_number() OVER () %% 2 AS odd FROM (%s) s(x)) r GROUP BY odd) h', gen)
    INTO combined;
  EXECUTE format('SELECT array_agg(x ORDER BY x)::text FROM (%s) s(x) WHERE x IS NOT NULL', gen) INTO want;
  EXECUTE format('CREATE AGGREGATE pg_temp.finish_rt(%s) (SFUNC = mergepath_sort_agg_transfn, STYPE = bytea, '
                 'INITCOND = %L, FINALFUNC = mergepath_sort_agg_finalfn, FINALFUNC_EXTRA)', typ, state::text);
  EXECUTE format('SELECT pg_temp.finish_rt(NULL::%s)::text', typ) INTO got;
  EXECUTE format('DROP AGGREGATE pg_temp.finish_rt(%s)', typ);
  EXECUTE format('CREATE AGGREGATE pg_temp.finish_rt(%s) (SFUNC = mergepath_sort_agg_transfn, STYPE = bytea, '
                 'INITCOND = %L, FINALFUNC = mergepath_sort_agg_finalfn, FINALFUNC_EXTRA)', typ, combined::text);
  EXECUTE format('SELECT pg_temp.finish_rt(NULL::%s)::text', typ) INTO got_combined;
  EXECUTE format('DROP AGGREGATE pg_temp.finish_rt(%s)', typ);
  FOREACH cut IN ARRAY ARRAY[substr(state, 1, length(state) - 1)::text, (state || '\x00'::bytea)::text] LOOP
    BEGIN
      EXECUTE format('CREATE AGGREGATE pg_temp.finish_rt(%s) (SFUNC = mergepath_sort_agg_transfn, STYPE = bytea, '
                     'INITCOND = %L, FINALFUNC = mergepath_sort_agg_finalfn, FINALFUNC_EXTRA)', typ, cut);
      EXECUTE format('SELECT pg_temp.finish_rt(NULL::%s)::text', typ);
      EXECUTE format('DROP AGGREGATE pg_temp.finish_rt(%s)', typ);
      padded := coalesce(padded || ' ', '') || 'accepted';
    EXCEPTION WHEN invalid_binary_representation THEN
      padded := coalesce(padded || ' ', '') || 'refused';
    END;
  END LOOP;
  EXECUTE format('DROP AGGREGATE pg_temp.collect_rt(%s)', typ);
  -- and the same two cut into the combine function
  BEGIN
    PERFORM pg_temp.combine_rt(st) FROM (VALUES (state), (substr(state, 1, length(state) - 1))) v(st);
    padded := padded || ' accepted';
  EXCEPTION WHEN invalid_binary_representation THEN
    padded := padded || ' refused';
  END;
  RETURN format('form %s, %s bytes, %s, combined %s; cut, padded, cut combined: %s',
                get_byte(state, 12), length(state),
                CASE WHEN got = want THEN 'same' ELSE 'differs' END,
                CASE WHEN got_combined = want THEN 'same' ELSE 'differs' END, padded);
END $f$;
SELECT typ, shape, pg_temp.state_round_trip(typ, gen)
FROM (VALUES
  ('int4', 'close', 'SELECT (hashint4(i) % 1000)::int4 FROM generate_series(1, 20000) i'),
  ('int4', 'spread', 'SELECT hashint4(i) FROM generate_series(1, 20000) i'),
  ('int4', 'extremes', $$VALUES (2147483647), (-2147483648), (0), (NULL), (-1), (2147483647), (-2147483648)$$),
  ('int8', 'close', 'SELECT hashint8(i) % 100000 FROM generate_series(1, 20000) i'),
  ('int8', 'spread', 'SELECT hashint8(i) * 4294967296 + hashint4(i) FROM generate_series(1, 20000) i'),
  ('int8', 'sparse', 'SELECT hashint8(i) * 4294967296 + hashint4(i) FROM generate_series(1, 500) i'),
  ('int8', 'extremes', $$VALUES (9223372036854775807), (-9223372036854775808), (0), (-1), (9223372036854775807)$$),
  ('float4', 'close', 'SELECT ((hashint4(i) % 1000) / 8.0)::float4 FROM generate_series(1, 20000) i'),
  ('float8', 'spread', 'SELECT hashint8(i)::float8 / (1 + abs(hashint4(i)::float8)) FROM generate_series(1, 20000) i'),
  ('float8', 'extremes', $$VALUES ('NaN'::float8), ('-Infinity'), ('Infinity'), ('-0'), ('1e-308'), ('-1.5'), ('NaN')$$))
  AS t(typ, shape, gen);
-- a coded state read back by an aggregate of another type
CREATE AGGREGATE pg_temp.collect_coded(int4) (SFUNC = mergepath_sort_agg_transfn, STYPE = bytea);
DO $$
BEGIN
  EXECUTE format('CREATE AGGREGATE pg_temp.finish_coded8(int8) (SFUNC = mergepath_sort_agg_transfn, '
                 'STYPE = bytea, INITCOND = %L, FINALFUNC = mergepath_sort_agg_finalfn, FINALFUNC_EXTRA)',
                 (SELECT pg_temp.collect_coded(x)::text FROM generate_series(1, 100) x));
END $$;
SELECT pg_temp.finish_coded8(NULL);

-- refused inputs
SELECT gpu_sort('{1,NULL,2}'::int4[]);
SELECT gpu_sort('{{1,2},{3,4}}'::int8[]);
SELECT gpu_unique('{1,3,2}'::int4[]);
SELECT gpu_unique('[0:3]={-0,NaN,1,2}'::float8[]);
SELECT gpu_sort('{a,b}'::text[]);
SELECT gpu_merge_agg(x) FROM (VALUES ('{1,2}'::int4[]), ('{5,4}')) v(x);
SELECT gpu_merge_agg(x) FROM (VALUES ('{1,NULL}'::int4[])) v(x);
SELECT gpu_sort_agg(x) FROM (VALUES ('a'::text)) v(x);
SELECT gpu_sort_agg(x, 'a'::text) FROM (VALUES (1)) v(x);
-- with the check off, the order is not checked, and unique is defined only
-- on sorted input: no error, no crash
SET mergepath.check_sorted = off;
SELECT cardinality(gpu_unique('{1,3,2}'::int4[])) BETWEEN 1 AND 3 AS unchecked;
SELECT cardinality(gpu_merge_agg(x)) AS unchecked_merge FROM (VALUES ('{1,2}'::int4[]), ('{5,4}')) v(x);
RESET mergepath.check_sorted;
