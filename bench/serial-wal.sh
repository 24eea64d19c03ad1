#!/bin/bash
# WAL of random inserts above serial int8 keys, the harness's "dense" data
# set by hand, on a running cluster at socket /tmp/pgd, port 5499 (with or
# without the library preloaded: both WAL modes): 100,000 serial keys
# loaded and indexed, a CHECKPOINT, then 20,000 keys above them in random
# order in one INSERT ... SELECT, once with btree and once with pagebtree.
# Prints the WAL bytes per row, the index's share of them by record size
# (pg_waldump) and the leaves' layouts.
P="psql -X -q -A -t -h /tmp/pgd -p 5499 -U postgres"
for am in btree pagebtree; do
  $P -c "DROP TABLE IF EXISTS sw, sw_new" \
     -c "CREATE TABLE sw (k int8, o int8, v int4)" \
     -c "INSERT INTO sw SELECT o + 1, o, (o % 1000)::int4 FROM generate_series(0, 99999) o" \
     -c "CREATE TABLE sw_new AS SELECT o + 1 AS k, o, (o % 1000)::int4 AS v FROM generate_series(100000, 119999) o ORDER BY md5('42:ri:' || o)" \
     -c "CREATE INDEX sw_k ON sw USING $am (k)" -c "CHECKPOINT" >/dev/null 2>&1
  s=$($P -c "SELECT pg_current_wal_insert_lsn()")
  $P -c "INSERT INTO sw SELECT * FROM sw_new"
  e=$($P -c "SELECT pg_current_wal_insert_lsn()")
  printf '%s: %s WAL bytes per row\n' $am "$($P -c "SELECT round(('$e'::pg_lsn - '$s'::pg_lsn) / 20000.0, 1)")"
  [ $am = btree ] && continue
  node=$($P -c "SELECT relfilenode FROM pg_class WHERE relname = 'sw_k'")
  /usr/lib/postgresql/15/bin/pg_waldump -p "$($P -c "SHOW data_directory")/pg_wal" -s "$s" -e "$e" 2>/dev/null |
    grep "/$node " | awk '{
      match($0, /len \(rec\/tot\): *[0-9]+\/ *[0-9]+/); split(substr($0, RSTART, RLENGTH), a, "/"); b = a[3] + 0
      k = (b < 200 ? "< 200 B" : b < 1000 ? "200-999 B" : b < 3000 ? "1-3 kB" : b < 6000 ? "3-6 kB" : ">= 6 kB") ($0 ~ /FPW|FPI/ ? ", full images" : "")
      n[k]++; t[k] += b; all += b }
      END { for (k in n) printf "  index records %-22s %6d, %6.1f bytes per row\n", k, n[k], t[k] / 20000; printf "  index total %.1f bytes per row\n", all / 20000 }' | sort
  echo "  leaves: $($P -c "SELECT string_agg(layout || ' ' || pages, ', ' ORDER BY layout) FROM pagebtree_layout_summary('sw_k') WHERE page_type = 'leaf'")"
done
$P -c "DROP TABLE sw, sw_new"
