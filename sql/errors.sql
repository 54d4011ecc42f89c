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
-- forged states (a valid header of each kind, type and form, random bytes
-- after it, of about the size the header asks for) read by the combine
-- function: each is read or refused with 22P03, none does anything else
CREATE AGGREGATE pg_temp.combine_forged(bytea) (SFUNC = mergepath_agg_combine, STYPE = bytea);
CREATE FUNCTION pg_temp.forged_states(n int) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
  read int := 0;
  refused int := 0;
  other text := '';
  elem int4; kind int4; form int4; nv int8; nu int8; es int; len int;
  hdr bytea; st bytea;
BEGIN
  FOR i IN 1..n LOOP
    elem := (ARRAY[23, 20, 700, 701])[1 + (random() * 3)::int];
    es := CASE WHEN elem IN (20, 701) THEN 8 ELSE 4 END;
    kind := (random() * 2)::int;
    form := (random() * 2)::int;
    nv := (random() * 40)::int8;
    nu := CASE WHEN kind = 2 THEN (random() * 3)::int8 ELSE 0 END;
    -- the raw columns (values; int4 keys and the unkeyed values for
    -- gpu_sort_agg(value, key)), the sorted one coded in 1 to 2 bytes an element
    len := nv * es + CASE WHEN kind = 2 THEN nv * 4 + nu * es ELSE 0 END;
    IF form = 2 THEN
      len := len - nv * CASE WHEN kind = 2 THEN 4 ELSE es END + nv + (random() * nv)::int;
    END IF;
    IF random() < 0.1 THEN len := greatest(len + (random() * 4)::int - 2, 0); END IF;
    -- the header's fields in this machine's order (little-endian)
    hdr := int4send(elem) || int4send(kind) || int4send(0) || int4send(form) || int8send(nv) || int8send(nu);
    hdr := decode((SELECT string_agg(substr(encode(hdr, 'hex'), p + 2 * j, 2), '' ORDER BY p, j DESC)
                   FROM (VALUES (1, 4), (9, 4), (17, 4), (25, 4), (33, 8), (49, 8)) f(p, w),
                        generate_series(0, w - 1) j), 'hex');
    st := hdr || coalesce((SELECT decode(string_agg(lpad(to_hex((random() * 255)::int), 2, '0'), ''), 'hex')
                           FROM generate_series(1, len)), '');
    BEGIN
      PERFORM pg_temp.combine_forged(s)::text FROM (VALUES (st), (st)) v(s);
      read := read + 1;
    EXCEPTION WHEN invalid_binary_representation THEN
      refused := refused + 1;
    WHEN OTHERS THEN
      other := other || ' ' || SQLSTATE;
    END;
  END LOOP;
  RETURN format('%s read or refused (more than a fifth read: %s), others:%s', read + refused,
                read > n / 5, other);
END $f$;
SELECT pg_temp.forged_states(500);
-- a state whose header says its values are in order (raw, then coded as
-- deltas) while they are not: refused while mergepath.check_sorted is on,
-- as an unsorted input would be; the same values in order are read
SELECT pg_temp.combine_forged(decode(h || v, 'hex')) IS NOT NULL AS read
FROM (VALUES ('1700000000000000000000000100000003000000000000000000000000000000',
              '030000000100000002000000')) f(h, v);
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.combine_forged(decode(h || v, 'hex')) IS NOT NULL AS read
FROM (VALUES ('1700000000000000000000000200000003000000000000000000000000000000', '060302')) f(h, v);
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.combine_forged(decode(h || v, 'hex')) IS NOT NULL AS read
FROM (VALUES ('1700000000000000000000000100000003000000000000000000000000000000',
              '010000000200000003000000'),
             ('1700000000000000000000000200000003000000000000000000000000000000', '020202')) f(h, v);
SET mergepath.check_sorted = off;
SELECT pg_temp.combine_forged(decode(h || v, 'hex')) IS NOT NULL AS read
FROM (VALUES ('1700000000000000000000000100000003000000000000000000000000000000',
              '030000000100000002000000')) f(h, v);
RESET mergepath.check_sorted;
