-- The corruption fuzzer's indexes (test/fuzz/corrupt.py setup): one per layout
-- and feature, each on its own table.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS pagebtree;
SELECT setseed(0.42);
-- 1 heads, index first then random inserts
CREATE TABLE t_heads(k int8);
CREATE INDEX i_heads ON t_heads USING pagebtree (k) WITH (layout=heads);
INSERT INTO t_heads SELECT (random()*1e12)::int8 FROM generate_series(1,60000);
-- 2 dense, bulk
CREATE TABLE t_dense(k int8);
INSERT INTO t_dense SELECT g FROM generate_series(1,200000) g WHERE g % 97 <> 0 ORDER BY random();
CREATE INDEX i_dense ON t_dense USING pagebtree (k) WITH (layout=dense);
-- 3 plain
CREATE TABLE t_plain(k int8);
CREATE INDEX i_plain ON t_plain USING pagebtree (k) WITH (layout=plain);
INSERT INTO t_plain SELECT (random()*1e9)::int8 FROM generate_series(1,50000);
-- 4 bpa
CREATE TABLE t_bpa(k int8);
CREATE INDEX i_bpa ON t_bpa USING pagebtree (k) WITH (layout=bpa);
INSERT INTO t_bpa SELECT (random()*1e9)::int8 FROM generate_series(1,50000);
-- 5 fingerprint text urls
CREATE TABLE t_fp(u text);
CREATE INDEX i_fp ON t_fp USING pagebtree (u) WITH (layout=fingerprint);
INSERT INTO t_fp SELECT 'https://www.example.com/articles/' || (random()*1000)::int || '/item-' || md5(g::text) FROM generate_series(1,40000) g;
-- 6 url auto bulk
CREATE TABLE t_url(u text);
INSERT INTO t_url SELECT 'https://site' || (g%50) || '.example.org/path/to/page/' || g || '?q=' || substr(md5(g::text),1,8) FROM generate_series(1,80000) g;
CREATE INDEX i_url ON t_url USING pagebtree (u);
-- 7 short text random
CREATE TABLE t_short(s text);
CREATE INDEX i_short ON t_short USING pagebtree (s);
INSERT INTO t_short SELECT substr(md5(g::text), 1, 1 + (g % 7)) FROM generate_series(1,50000) g;
-- 8 composite
CREATE TABLE t_comp(a int4, b text);
CREATE INDEX i_comp ON t_comp USING pagebtree (a, b);
INSERT INTO t_comp SELECT (random()*500)::int4, 'v' || md5(g::text) FROM generate_series(1,50000) g;
-- 9 uuid
CREATE TABLE t_uuid(u uuid);
CREATE INDEX i_uuid ON t_uuid USING pagebtree (u);
INSERT INTO t_uuid SELECT md5(g::text)::uuid FROM generate_series(1,50000) g;
-- 10 numeric comparator random
CREATE TABLE t_num(n numeric);
CREATE INDEX i_num ON t_num USING pagebtree (n);
INSERT INTO t_num SELECT round((random()*1e6)::numeric, 3) FROM generate_series(1,50000);
-- 11 delta pending
CREATE TABLE t_delta(k int8);
INSERT INTO t_delta SELECT (random()*1e10)::int8 FROM generate_series(1,60000);
CREATE INDEX i_delta ON t_delta USING pagebtree (k) WITH (delta=on);
CHECKPOINT;
INSERT INTO t_delta SELECT (random()*1e10)::int8 FROM generate_series(1,4000);
-- 12 group 4 random inserts
CREATE TABLE t_grp4(k int8);
CREATE INDEX i_grp4 ON t_grp4 USING pagebtree (k) WITH (leaf_group_size=4);
INSERT INTO t_grp4 SELECT (random()*1e12)::int8 FROM generate_series(1,60000);
-- 13 group 16 bulk + inserts
CREATE TABLE t_grp16(k int8);
INSERT INTO t_grp16 SELECT (random()*1e12)::int8 FROM generate_series(1,60000);
CREATE INDEX i_grp16 ON t_grp16 USING pagebtree (k) WITH (leaf_group_size=16);
INSERT INTO t_grp16 SELECT (random()*1e12)::int8 FROM generate_series(1,20000);
-- 14 posting
CREATE TABLE t_post(k int8);
INSERT INTO t_post SELECT g % 10 FROM generate_series(1,60000) g;
CREATE INDEX i_post ON t_post USING pagebtree (k);
-- 15 lists
CREATE TABLE t_lists(k int8);
CREATE INDEX i_lists ON t_lists USING pagebtree (k);
INSERT INTO t_lists SELECT (random()*3000)::int8 FROM generate_series(1,60000) g;
-- 16 include semidense
CREATE TABLE t_inc(k int8, p text);
INSERT INTO t_inc SELECT g, 'p' || (g % 100) FROM generate_series(1,60000) g;
CREATE INDEX i_inc ON t_inc USING pagebtree (k) INCLUDE (p);
-- 17 unique
CREATE TABLE t_uniq(k int8);
CREATE UNIQUE INDEX i_uniq ON t_uniq USING pagebtree (k);
INSERT INTO t_uniq SELECT DISTINCT (random()*1e9)::int8 FROM generate_series(1,50000);
-- 18 dedup off
CREATE TABLE t_dedoff(k int8);
CREATE INDEX i_dedoff ON t_dedoff USING pagebtree (k) WITH (deduplicate_items=off);
INSERT INTO t_dedoff SELECT (random()*1000)::int8 FROM generate_series(1,50000) g;
-- 19 group + delta
CREATE TABLE t_gdelta(k int8);
INSERT INTO t_gdelta SELECT (random()*1e10)::int8 FROM generate_series(1,60000);
CREATE INDEX i_gdelta ON t_gdelta USING pagebtree (k) WITH (leaf_group_size=4, delta=on);
CHECKPOINT;
INSERT INTO t_gdelta SELECT (random()*1e10)::int8 FROM generate_series(1,4000);
-- 20 numeric + text include, bulk
CREATE TABLE t_numinc(n numeric, s text);
INSERT INTO t_numinc SELECT (random()*1e5)::numeric(12,2), md5(g::text) FROM generate_series(1,40000) g;
CREATE INDEX i_numinc ON t_numinc USING pagebtree (n) INCLUDE (s);
-- 21 bpa text
CREATE TABLE t_bpat(u text);
CREATE INDEX i_bpat ON t_bpat USING pagebtree (u) WITH (layout=bpa, bpa_log_size=16, bpa_block_size=32);
INSERT INTO t_bpat SELECT 'https://www.example.com/' || (random()*100)::int || '/' || md5(g::text) FROM generate_series(1,30000) g;
-- 22 inc with int4,text key
CREATE TABLE t_compinc(a int4, b text, c int8);
CREATE INDEX i_compinc ON t_compinc USING pagebtree (a, b) INCLUDE (c);
INSERT INTO t_compinc SELECT (random()*200)::int4, substr(md5(g::text),1,6), g FROM generate_series(1,40000) g;
VACUUM FREEZE ANALYZE;
-- pending entries again (VACUUM folded the delta areas)
INSERT INTO t_delta SELECT (random()*1e10)::int8 FROM generate_series(1,4000);
INSERT INTO t_gdelta SELECT (random()*1e10)::int8 FROM generate_series(1,4000);
