-- The load step's database (test/gpu-tests.sh load): pairs of arrays of
-- 10^5 to 10^6 elements, every mergepath function over them as an
-- operation, each operation's result (a hash and a length) stored from the
-- CPU backend, and load_check(pair, op), which runs one operation on the
-- backend the session's settings pick and raises when it differs.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT setseed(0.5);
CREATE TABLE pairs AS
SELECT id, n,
       ARRAY(SELECT (random() * 2 * n)::int4 FROM generate_series(1, n) ORDER BY 1) AS a4,
       ARRAY(SELECT (random() * 2 * n)::int4 FROM generate_series(1, n) ORDER BY 1) AS b4,
       ARRAY(SELECT (random() * 2 * n)::int8 - n FROM generate_series(1, n) ORDER BY 1) AS a8,
       ARRAY(SELECT (random() * 2 * n)::int8 - n FROM generate_series(1, n) ORDER BY 1) AS b8,
       ARRAY(SELECT round(random() * n) / 4 FROM generate_series(1, n) ORDER BY 1) AS af,
       ARRAY(SELECT round(random() * n) / 4 FROM generate_series(1, n) ORDER BY 1) AS bf,
       ARRAY(SELECT (random() * 4e9 - 2e9)::int4 FROM generate_series(1, n)) AS u4
FROM (VALUES (1, 100000), (2, 200000), (3, 300000), (4, 500000), (5, 700000), (6, 1000000)) v(id, n);

-- every function; each statement gives (hash, length) of its result
CREATE TABLE ops (op int PRIMARY KEY, sql text);
INSERT INTO ops VALUES
 (1, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_merge(a4, b4) r FROM pairs WHERE id = $1) s'),
 (2, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_merge(af, bf) r FROM pairs WHERE id = $1) s'),
 (3, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_intersect(a8, b8) r FROM pairs WHERE id = $1) s'),
 (4, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_union(a4, b4) r FROM pairs WHERE id = $1) s'),
 (5, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_except(af, bf) r FROM pairs WHERE id = $1) s'),
 (6, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_symdiff(a8, b8) r FROM pairs WHERE id = $1) s'),
 (7, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_lower_bound(a4, b4) r FROM pairs WHERE id = $1) s'),
 (8, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_upper_bound(af, bf) r FROM pairs WHERE id = $1) s'),
 (9, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_count(a8, b8) r FROM pairs WHERE id = $1) s'),
 (10, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_semijoin(a4, b4) r FROM pairs WHERE id = $1) s'),
 (11, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_antijoin(a8, b8) r FROM pairs WHERE id = $1) s'),
 (12, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_sort(u4) r FROM pairs WHERE id = $1) s'),
 (13, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_unique(a4) r FROM pairs WHERE id = $1) s'),
 (14, 'SELECT (sum(j.a_pos::int8 * 7 + j.b_pos) % 2147483647)::int, count(*)::int
       FROM pairs p, gpu_join(p.a4, p.b4) j WHERE p.id = $1'),
 (15, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_sort_agg(x) r FROM pairs p, unnest(p.u4) x
       WHERE p.id = $1) s'),
 (16, 'SELECT hash_array(r), cardinality(r) FROM (SELECT gpu_merge_agg(x) r
       FROM pairs p, LATERAL (VALUES (p.a4), (p.b4)) v(x) WHERE p.id = $1) s');

CREATE FUNCTION load_result(pair int, op_id int, OUT h int, OUT len int)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE (SELECT sql FROM ops WHERE op = op_id) INTO h, len USING pair;
END $$;

SET mergepath.device = cpu;
CREATE TABLE expected AS
SELECT p.id AS pair, o.op, r.h, r.len
FROM pairs p, ops o, LATERAL (SELECT * FROM load_result(p.id, o.op)) r;
RESET mergepath.device;

CREATE FUNCTION load_check(pair_id int, op_id int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  got record;
  want record;
BEGIN
  SELECT * INTO got FROM load_result(pair_id, op_id);
  SELECT * INTO want FROM expected WHERE pair = pair_id AND op = op_id;
  IF got.h IS DISTINCT FROM want.h OR got.len IS DISTINCT FROM want.len THEN
    RAISE EXCEPTION 'load: operation % on pair % gave (%, %), the CPU backend (%, %)',
      op_id, pair_id, got.h, got.len, want.h, want.len;
  END IF;
END $$;
SELECT count(*) AS expectations, count(DISTINCT op) AS operations FROM expected;
