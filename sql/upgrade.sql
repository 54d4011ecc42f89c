-- A fresh install of the current version (mergepath.sql) and an
-- install of each earlier version upgraded with ALTER EXTENSION ... UPDATE
-- must give the same objects: every function and aggregate with its
-- definition (arguments, result, properties, C symbol), an aggregate's
-- support functions and its comment.
CREATE TEMP TABLE installed (how text, object text, definition text, comment text);
CREATE FUNCTION pg_temp.snapshot(how text) RETURNS bigint LANGUAGE sql AS $$
	WITH objs AS (
		INSERT INTO installed
		SELECT how, pg_describe_object(d.classid, d.objid, 0),
		       CASE WHEN p.prokind = 'a' THEN
		            concat_ws(' ', pg_get_function_identity_arguments(p.oid),
		                      pg_get_function_result(p.oid), p.proparallel,
		                      a.aggkind, a.aggtransfn, a.aggfinalfn, a.aggfinalextra,
		                      a.aggcombinefn, a.aggserialfn, a.aggdeserialfn,
		                      a.aggtranstype::regtype, a.agginitval)
		            ELSE pg_get_functiondef(p.oid) END,
		       obj_description(d.objid, 'pg_proc')
		FROM pg_depend d
		JOIN pg_proc p ON p.oid = d.objid
		LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid
		WHERE d.refclassid = 'pg_extension'::regclass
		  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mergepath')
		  AND d.deptype = 'e' AND d.classid = 'pg_proc'::regclass
		RETURNING 1)
	SELECT count(*) FROM objs
$$;
-- nothing but the extension's functions depend on it in this database
SELECT count(*) AS other_objects FROM pg_depend
WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mergepath')
  AND deptype <> 'e';
DROP EXTENSION mergepath;
CREATE EXTENSION mergepath;
SELECT extversion, pg_temp.snapshot('fresh') AS objects
FROM pg_extension WHERE extname = 'mergepath';
DROP EXTENSION mergepath;
CREATE EXTENSION mergepath VERSION '0.1';
SELECT extversion, pg_temp.snapshot('0.1') AS objects FROM pg_extension WHERE extname = 'mergepath';
ALTER EXTENSION mergepath UPDATE;
SELECT extversion, pg_temp.snapshot('0.1 updated') AS objects
FROM pg_extension WHERE extname = 'mergepath';
DROP EXTENSION mergepath;
CREATE EXTENSION mergepath VERSION '0.2';
ALTER EXTENSION mergepath UPDATE TO '0.3';
ALTER EXTENSION mergepath UPDATE;
SELECT extversion, pg_temp.snapshot('0.2 updated') AS objects
FROM pg_extension WHERE extname = 'mergepath';
DROP EXTENSION mergepath;
CREATE EXTENSION mergepath VERSION '0.3';
ALTER EXTENSION mergepath UPDATE;
SELECT extversion, pg_temp.snapshot('0.3 updated') AS objects
FROM pg_extension WHERE extname = 'mergepath';
DROP EXTENSION mergepath;
CREATE EXTENSION mergepath VERSION '0.4';
ALTER EXTENSION mergepath UPDATE;
SELECT extversion, pg_temp.snapshot('0.4 updated') AS objects
FROM pg_extension WHERE extname = 'mergepath';
-- what an upgraded install lacks or has otherwise, and what it has in
-- excess: nothing
SELECT h.how, x.object, 'fresh only' AS found
FROM (SELECT DISTINCT how FROM installed WHERE how LIKE '% updated') h,
LATERAL (SELECT object, definition, comment FROM installed WHERE how = 'fresh'
         EXCEPT
         SELECT object, definition, comment FROM installed WHERE how = h.how) x
UNION ALL
SELECT h.how, x.object, 'upgraded only'
FROM (SELECT DISTINCT how FROM installed WHERE how LIKE '% updated') h,
LATERAL (SELECT object, definition, comment FROM installed WHERE how = h.how
         EXCEPT
         SELECT object, definition, comment FROM installed WHERE how = 'fresh') x
ORDER BY 1, 2, 3;
SELECT how, count(*) AS objects, count(comment) FILTER (WHERE object LIKE 'function gpu_%') AS api_comments,
       count(*) FILTER (WHERE definition LIKE '%mergepath_%') AS in_the_library
FROM installed GROUP BY how ORDER BY how;
-- the upgraded install works
SELECT gpu_merge('{1,3}'::int4[], '{2}'::int4[]), gpu_sort_agg(x) FROM unnest('{3,1,2}'::int8[]) x;
SELECT gpu_sort_agg(x, -x) FROM unnest('{3,1,2}'::int8[]) x;
SELECT * FROM gpu_join('{1,3}'::int4[], '{2,3}'::int4[], 'full');
