#!/bin/bash
# WAL bytes and full-page images per UPDATE, one table at a time (btree,
# then pagebtree), on a running cluster at socket /tmp/pgd, port 5499:
# 100,000 rows (id int8, v int4, pad), indexes on id and v per access
# method, 2 pgbench clients x 8,000 UPDATE ... SET v = random WHERE id =
# random.  The set-up SQL is written below.  Run it once with the library
# preloaded and once without.
cat > /tmp/ug_setup.sql <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS ug_b, ug_p;
CREATE TABLE ug_b (id int8 NOT NULL, v int4 NOT NULL, pad text NOT NULL);
INSERT INTO ug_b SELECT o, (o * 7) % 10, lpad('', 84, md5(o::text)) FROM generate_series(1, 100000) o;
CREATE TABLE ug_p (LIKE ug_b); INSERT INTO ug_p SELECT * FROM ug_b;
CREATE INDEX ug_b_id ON ug_b (id); CREATE INDEX ug_b_v ON ug_b (v);
CREATE INDEX ug_p_id ON ug_p USING pagebtree (id); CREATE INDEX ug_p_v ON ug_p USING pagebtree (v);
VACUUM (FREEZE, ANALYZE) ug_b, ug_p;
CHECKPOINT;
SQL
P="psql -X -q -A -t -h /tmp/pgd -p 5499 -U postgres"
$P -f /tmp/ug_setup.sql >/dev/null 2>&1
for t in ug_b ug_p; do
  printf '\\set id random(1, 100000)\n\\set nv random(0, 9)\nUPDATE %s SET v = :nv WHERE id = :id;\n' $t > /tmp/ug1.pgb
  $P -c "CHECKPOINT" >/dev/null
  s=$($P -c "SELECT wal_bytes || ' ' || wal_fpi FROM pg_stat_wal")
  /usr/lib/postgresql/15/bin/pgbench -n -h /tmp/pgd -p 5499 -U postgres -c 2 -t 8000 -M prepared -f /tmp/ug1.pgb postgres >/dev/null 2>&1
  e=$($P -c "SELECT pg_stat_force_next_flush(); SELECT wal_bytes || ' ' || wal_fpi FROM pg_stat_wal" | tail -1)
  echo "$t $s $e" | awk '{printf "%s: WAL bytes/update %.1f, FPI/1000 updates %.1f\n", $1, ($4-$2)/16000, ($5-$3)/16}'
done
$P -c "SELECT relname, pg_relation_size(oid)/8192 FROM pg_class WHERE relname IN ('ug_b_id','ug_b_v','ug_p_id','ug_p_v') ORDER BY 1"
