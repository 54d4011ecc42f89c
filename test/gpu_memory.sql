-- What a backend holds of the GPU, seen by nvidia-smi (through COPY FROM
-- PROGRAM: the server runs on the GPU host; a superuser's session), around
-- a call on 100M elements: with the device pool kept whole (as a backend
-- did before mergepath.gpu_pool_max_mb), trimmed to the cap, and after
-- mergepath.gpu_idle_release; then what keeping the pool saves, per size.
-- Run by test/gpu-tests.sh (step memory); any failed expectation raises.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
LOAD 'mergepath';
CREATE TEMP TABLE smi (pid int, mb int);
CREATE FUNCTION pg_temp.held_mb() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE smi;
  COPY smi FROM PROGRAM 'nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits'
    WITH (FORMAT csv);
  RETURN coalesce((SELECT sum(mb) FROM smi WHERE pid = pg_backend_pid()), 0);
END $$;
\ir gpu_common.sql
-- mergepath_info() in a backend that has made no GPU call describes the
-- device and sets nothing up: no context, no slot, no memory on the card
SET mergepath.device = gpu;
SELECT mergepath_info()->'gpu' AS gpu_before_any_call;
SELECT pg_temp.expect((mergepath_info()->'gpu'->>'available')::bool
                      AND mergepath_info()->'gpu'->>'name' <> ''
                      AND NOT (mergepath_info()->'gpu_held'->>'context')::bool
                      AND (mergepath_info()->'gpu_held'->>'contexts_created')::int = 0
                      AND (mergepath_info()->'gpu_slots'->>'this_backend')::int = -1
                      AND pg_temp.held_mb() = 0,
                      'mergepath_info() describes the GPU without taking it');
RESET mergepath.device;
CREATE TEMP TABLE big AS
SELECT ARRAY(SELECT generate_series(1, 100000000, 2)) AS a,
       ARRAY(SELECT generate_series(2, 100000000, 2)) AS b;
CREATE TEMP TABLE seen (what text, held_mb int, pool_mb int, context bool);

SET mergepath.device = gpu;
-- the whole pool kept, as before the cap
SET mergepath.gpu_pool_max_mb = 1000000;
SELECT cardinality(gpu_merge(a, b)) AS elements FROM big;
INSERT INTO seen SELECT 'pool kept', pg_temp.held_mb(), (i->>'pool_mb')::int, (i->>'context')::bool
FROM (SELECT mergepath_info()->'gpu_held' AS i) s;
-- the default cap: what the call needed beyond it is freed as it ends
RESET mergepath.gpu_pool_max_mb;
SELECT cardinality(gpu_merge(a, b)) AS elements FROM big;
INSERT INTO seen SELECT 'pool capped', pg_temp.held_mb(), (i->>'pool_mb')::int, (i->>'context')::bool
FROM (SELECT mergepath_info()->'gpu_held' AS i) s;
-- idle: after gpu_idle_release seconds nothing is held, the slot is free
SET mergepath.gpu_idle_release = 2;
SELECT cardinality(gpu_merge(a, b)) AS elements FROM big;
SELECT pg_sleep(4);
SET mergepath.device = cpu;		-- so that mergepath_info() sets nothing up
INSERT INTO seen SELECT 'idle released', pg_temp.held_mb(), (i->>'pool_mb')::int, (i->>'context')::bool
FROM (SELECT mergepath_info()->'gpu_held' AS i) s;
SELECT * FROM seen;
SELECT mergepath_info()->'gpu_held' AS gpu_held, mergepath_info()->'gpu_slots' AS gpu_slots;
SELECT pg_temp.expect((SELECT held_mb FROM seen WHERE what = 'pool capped') + 500
                      < (SELECT held_mb FROM seen WHERE what = 'pool kept'),
                      'the capped backend holds at least 500 MB less');
SELECT pg_temp.expect((SELECT pool_mb <= (mergepath_info()->'gpu_held'->>'pool_max_mb')::int
                       FROM seen WHERE what = 'pool capped'), 'the pool is within the cap');
SELECT pg_temp.expect((SELECT held_mb = 0 AND NOT context FROM seen WHERE what = 'idle released'),
                      'an idle backend holds no GPU memory');
SELECT pg_temp.expect((mergepath_info()->'gpu_slots'->>'this_backend')::int = -1,
                      'an idle backend holds no GPU slot');
-- and the next call sets the GPU up again, and is right
SET mergepath.device = gpu;
-- (100M strictly ascending integers from 1 to 100M are exactly 1..100M)
SELECT pg_temp.expect(r[1] = 1 AND r[100000000] = 100000000 AND cardinality(r) = 100000000
                      AND cardinality(gpu_unique(r)) = 100000000,
                      'the next call after the release is right')
FROM (SELECT gpu_merge(a, b) AS r FROM big) s;
SELECT pg_temp.expect((mergepath_info()->'gpu_held'->>'contexts_created')::int = 2,
                      'the context was set up a second time');
SELECT mergepath_info()->'gpu_held'->>'last_context_ms' AS context_setup_ms;
RESET mergepath.gpu_idle_release;

-- What keeping the pool saves: gpu_merge at each size with the pool freed
-- after every call (cap 0) and kept (no cap), ms, median of 5 after a
-- warm-up
CREATE FUNCTION pg_temp.median_ms(q text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; ts float8[] := '{}';
BEGIN
  EXECUTE q;
  FOR i IN 1..5 LOOP
    t0 := clock_timestamp();
    EXECUTE q;
    ts := ts || extract(epoch FROM clock_timestamp() - t0) * 1000;
  END LOOP;
  RETURN round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM unnest(ts) t)::numeric, 2);
END $$;
CREATE TEMP TABLE sizes AS
SELECT n, ARRAY(SELECT generate_series(1, 2 * n, 2)) AS a, ARRAY(SELECT generate_series(2, 2 * n, 2)) AS b
FROM unnest('{1000000,10000000,50000000}'::int[]) n;
CREATE TEMP TABLE pool_cost (n int, cap0_ms numeric, kept_ms numeric, pool_mb int);
DO $$
DECLARE r record; c0 numeric; k numeric; p int;
BEGIN
  FOR r IN SELECT n FROM sizes ORDER BY n LOOP
    PERFORM set_config('mergepath.gpu_pool_max_mb', '0', false);
    c0 := pg_temp.median_ms(format('SELECT cardinality(gpu_merge(a, b)) FROM sizes WHERE n = %s', r.n));
    PERFORM set_config('mergepath.gpu_pool_max_mb', '1000000', false);
    k := pg_temp.median_ms(format('SELECT cardinality(gpu_merge(a, b)) FROM sizes WHERE n = %s', r.n));
    p := (mergepath_info()->'gpu_held'->>'pool_mb')::int;
    INSERT INTO pool_cost VALUES (r.n, c0, k, p);
  END LOOP;
END $$;
RESET mergepath.gpu_pool_max_mb;
SELECT n AS "n a side", pool_mb AS "pool it needs, MB", cap0_ms AS "pool freed each call, ms",
       kept_ms AS "pool kept, ms", round(cap0_ms / kept_ms, 3) AS "freed / kept"
FROM pool_cost ORDER BY n;
