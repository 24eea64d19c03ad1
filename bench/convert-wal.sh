#!/bin/bash
# WAL written by reads that convert adaptive leaves between heads and
# fingerprint, on a running cluster at socket /tmp/pgd, port 5499, library
# preloaded: 260,000 string-like keys (200,000 loaded, 60,000 inserted so
# that splits turn the leaves' counters on), then four read-only phases
# of 20,000 transactions each, alternating point lookups (which ask for
# fingerprint leaves) and 200-row range scans (which ask for heads leaves),
# the first right after a CHECKPOINT.  Prints the WAL bytes of each phase
# and the leaves' layouts after it.
P="psql -X -q -A -t -h /tmp/pgd -p 5499 -U postgres"
$P -c "DROP TABLE IF EXISTS cw" -c "CREATE TABLE cw (id int, k text COLLATE \"C\")" \
   -c "INSERT INTO cw SELECT i, 'user/' || md5((i % 50000)::text) || '/' || i FROM generate_series(1, 200000) i" \
   -c "CREATE INDEX cw_k ON cw USING pagebtree (k)" -c "VACUUM ANALYZE cw" \
   -c "INSERT INTO cw SELECT i, 'user/' || md5((i % 50000)::text) || '/' || i FROM generate_series(200001, 260000) i" \
   -c "CHECKPOINT" >/dev/null 2>&1
printf '\\set i random(1, 50000)\nSELECT count(*) FROM cw WHERE k = %s;\n' "'user/' || md5(:i::text) || '/' || :i" > /tmp/cw_point.pgb
printf '\\set i random(1, 50000)\nSELECT count(*) FROM (SELECT k FROM cw WHERE k >= %s ORDER BY k LIMIT 200) s;\n' "'user/' || md5(:i::text)" > /tmp/cw_range.pgb
for phase in point range point range; do
  s=$($P -c "SELECT pg_current_wal_insert_lsn()")
  /usr/lib/postgresql/15/bin/pgbench -n -h /tmp/pgd -p 5499 -U postgres -t 20000 -f /tmp/cw_$phase.pgb postgres >/dev/null 2>&1
  e=$($P -c "SELECT pg_current_wal_insert_lsn()")
  printf '%s: %s WAL bytes; leaves %s\n' $phase "$($P -c "SELECT '$e'::pg_lsn - '$s'::pg_lsn")" \
    "$($P -c "SELECT string_agg(layout || ' ' || pages, ', ' ORDER BY layout) FROM pagebtree_layout_summary('cw_k') WHERE page_type = 'leaf'")"
done
