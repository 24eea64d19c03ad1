
# Logical replication between tables with pagebtree indexes (issue #26,
# item 3).  The publisher (with the custom WAL resource manager, whose
# records logical decoding skips) publishes a table whose replica identity
# is a unique pagebtree index; the subscriber (generic WAL) has pagebtree
# indexes too, and its replica identity is a unique pagebtree index, which
# the apply worker uses to find the rows that updates and deletes change.
# A pgbench write load (inserts, updates of keys and of the replica
# identity, deletes) runs on the publisher; after catch-up the tables are
# equal, the subscriber's indexes pass pagebtree_check(index, true) and
# answer as a sequential scan does.
#
# What the server allows: ALTER TABLE ... REPLICA IDENTITY USING INDEX takes
# a unique pagebtree index like a btree one (the access method must support
# uniqueness; the index must be unique, immediate, not partial, not on an
# expression, on NOT NULL columns), and refuses the others with the same
# errors as for btree.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $seed = pbt_seed(3009);

my $pub = pbt_new_node('publisher', rmgr => 1, conf => "wal_level = logical\nmax_wal_senders = 4\nmax_replication_slots = 4");
my $sub = pbt_new_node('subscriber', rmgr => 0, conf => "max_logical_replication_workers = 4\nmax_worker_processes = 8");
$pub->start;
$sub->start;

my $schema = q{
CREATE EXTENSION pagebtree;
CREATE TABLE t (id int8 NOT NULL, k int8 NOT NULL, s text COLLATE "C" NOT NULL, pad text,
                n numeric);
CREATE SEQUENCE t_id_seq;
ALTER TABLE t ALTER id SET DEFAULT nextval('t_id_seq');
CREATE UNIQUE INDEX t_id ON t USING pagebtree (id);
CREATE INDEX t_k ON t USING pagebtree (k);
CREATE INDEX t_s ON t USING pagebtree (s) WITH (layout = bpa);
CREATE INDEX t_ks ON t USING pagebtree (k DESC, s) INCLUDE (pad);
CREATE INDEX t_n ON t USING pagebtree (n) WITH (delta = on);
CREATE TABLE f (id int8 NOT NULL, v text);
CREATE UNIQUE INDEX f_id ON f USING pagebtree (id);
};
$pub->safe_psql('postgres', $schema);
$sub->safe_psql('postgres', $schema);

# the replica identity: what the server takes and what it refuses, on both
for my $node ($pub, $sub)
{
	my $name = $node->name;
	my ($ret, $out, $err) = $node->psql('postgres', 'ALTER TABLE t REPLICA IDENTITY USING INDEX t_k');
	isnt($ret, 0, "$name: a non-unique pagebtree index is refused as replica identity");
	like($err, qr/ERROR:  cannot use non-unique index "t_k" as replica identity/, "$name: with btree's error");
	$node->safe_psql('postgres', 'CREATE UNIQUE INDEX t_pad ON t USING pagebtree (pad, id)');
	($ret, $out, $err) = $node->psql('postgres', 'ALTER TABLE t REPLICA IDENTITY USING INDEX t_pad');
	isnt($ret, 0, "$name: a unique pagebtree index on a nullable column is refused");
	like($err, qr/ERROR:  index "t_pad" cannot be used as replica identity because column "pad" is nullable/,
		"$name: with btree's error");
	$node->safe_psql('postgres', 'DROP INDEX t_pad');
	$node->safe_psql('postgres', 'ALTER TABLE t REPLICA IDENTITY USING INDEX t_id');
	is($node->safe_psql('postgres', q{
SELECT c.relreplident, i.indexrelid::regclass, a.amname
FROM pg_class c JOIN pg_index i ON i.indrelid = c.oid AND i.indisreplident
JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am a ON a.oid = ic.relam
WHERE c.oid = 't'::regclass}), 'i|t_id|pagebtree',
		"$name: a unique pagebtree index on NOT NULL columns is taken as replica identity");
}

# PostgreSQL 17's apply worker looks up the equality operator of a
# replica identity index only for btree and hash (get_equal_strategy_number
# in execReplication.c; 16 takes btree's strategy number for every index,
# 18 asks the access method): with a pagebtree one it fails with "missing
# operator 0(20,20) in opfamily" on every update and delete.  On 17 the
# subscriber's replica identity is a btree index; its pagebtree indexes are
# maintained all the same.
my $ri_index = 't_id';
if ($sub->safe_psql('postgres', q{SELECT current_setting('server_version_num')::int / 10000}) == 17)
{
	$ri_index = 't_id_btree';
	$sub->safe_psql('postgres', q{
CREATE UNIQUE INDEX t_id_btree ON t USING btree (id);
ALTER TABLE t REPLICA IDENTITY USING INDEX t_id_btree;
});
}

# initial rows, copied by the subscription's table sync
my $rows = q{SELECT nextval('t_id_seq'), i % 5000, 'acct-' || lpad((i % 1000)::text, 4, '0') || '/' || md5(i::text),
       CASE WHEN i % 7 = 0 THEN NULL ELSE 'p' || i END, (i % 300) / 3.0
FROM generate_series(1, 20000) i};
$pub->safe_psql('postgres', "INSERT INTO t $rows");
$pub->safe_psql('postgres', 'INSERT INTO f SELECT i, md5(i::text) FROM generate_series(1, 2000) i');
$pub->safe_psql('postgres', 'ALTER TABLE f REPLICA IDENTITY FULL');
$pub->safe_psql('postgres', 'CREATE PUBLICATION pub FOR TABLE t, f');
my $connstr = $pub->connstr() . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION sub CONNECTION '$connstr' PUBLICATION pub");
$pub->wait_for_catchup('sub');
$sub->poll_query_until('postgres',
	q{SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate NOT IN ('r', 's')})
  or die 'the initial table sync did not finish';
is($sub->safe_psql('postgres', 'SELECT count(*) FROM t'), '20000', 'the initial rows are copied');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM f'), '2000', 'the initial rows of f are copied');

# the write load: every transaction inserts, updates a key, updates the
# replica identity (a new id from the sequence), and deletes
my $script = $pub->basedir . '/writes.sql';
PostgreSQL::Test::Utils::append_to_file(
	$script, q{
\set r random(1, 30000)
\set k random(1, 5000)
BEGIN;
INSERT INTO t (k, s, pad, n) VALUES (:k, 'acct-' || lpad((:k % 1000)::text, 4, '0') || '/new' || :r, 'w' || :r, :r % 300);
UPDATE t SET k = :k, s = s || '+', n = n + 1 WHERE id = :r;
UPDATE t SET id = nextval('t_id_seq'), pad = NULL WHERE id = :r + 1;
DELETE FROM t WHERE id = :r + 2;
COMMIT;
});
my $subscriber_scans_before = $sub->safe_psql('postgres',
	qq{SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = '$ri_index'});
$pub->command_ok(
	[ 'pgbench', '-n', '-c', '4', '-j', '2', '-t', '600', '--random-seed', $seed, '-f', $script, 'postgres' ],
	'pgbench: 2,400 write transactions on the publisher');
$pub->wait_for_catchup('sub');

my $fingerprint = q{SELECT count(*), md5(string_agg(format('%s|%s|%s|%s|%s', id, k, s, pad, n), ',' ORDER BY id)) FROM t};
my $pub_fp = $pub->safe_psql('postgres', $fingerprint);
is($sub->safe_psql('postgres', $fingerprint), $pub_fp, "the tables are equal after catch-up ($pub_fp)");
isnt($pub->safe_psql('postgres', 'SELECT count(*) FROM t'), '20000', 'the load changed the row count');
is($sub->safe_psql('postgres', "SELECT count(*) FROM t WHERE s LIKE '%/new%'"),
	$pub->safe_psql('postgres', "SELECT count(*) FROM t WHERE s LIKE '%/new%'"),
	'the inserted rows arrived');

# the apply worker found the rows to update and delete through the
# subscriber's replica identity index (pagebtree but on 17)
ok($sub->poll_query_until('postgres',
	qq{SELECT idx_scan > $subscriber_scans_before + 1000 FROM pg_stat_user_indexes WHERE indexrelname = '$ri_index'}),
	"the apply worker scanned the replica identity index $ri_index");

# REPLICA IDENTITY FULL on the publisher: before 16 the apply worker always
# scans the table; 16 and 17 look rows up through a local btree (17: or
# hash) index only, never a pagebtree one; 18 takes any index whose access
# method translates the equality strategy, pagebtree's too.  It finds the
# rows either way.
$pub->safe_psql('postgres', q{
UPDATE f SET v = 'u' || id WHERE id % 10 = 0;
DELETE FROM f WHERE id % 10 = 5;
});
$pub->wait_for_catchup('sub');
ok($sub->poll_query_until('postgres',
	q{SELECT n_tup_upd >= 200 AND n_tup_del >= 200 FROM pg_stat_user_tables WHERE relname = 'f'}),
	'REPLICA IDENTITY FULL: the subscriber applied the 200 updates and 200 deletes (statistics flushed)');
if ($sub->safe_psql('postgres', q{SELECT current_setting('server_version_num')::int >= 180000}) eq 't')
{
	is($sub->safe_psql('postgres', q{SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'f_id'}),
		'400', 'REPLICA IDENTITY FULL, 18: the apply worker found each of the 400 rows through the pagebtree index f_id');
}
else
{
	is($sub->safe_psql('postgres', q{SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'f_id'}),
		'0', 'REPLICA IDENTITY FULL, before 18: the apply worker did not use the pagebtree index f_id');
}
my $ffp = q{SELECT count(*), md5(string_agg(id || v, ',' ORDER BY id)) FROM f};
is($sub->safe_psql('postgres', $ffp), $pub->safe_psql('postgres', $ffp),
	'REPLICA IDENTITY FULL: the tables are equal');
is($sub->safe_psql('postgres', q{SELECT pagebtree_check('f_id', true)}), '',
	"subscriber: pagebtree_check('f_id', true) passes");

# (17: without the btree index, so that the plans below take t_id)
$sub->safe_psql('postgres', 'DROP INDEX t_id_btree') if $ri_index eq 't_id_btree';
$sub->safe_psql('postgres', 'VACUUM ANALYZE t');
for my $idx (qw(t_id t_k t_s t_ks t_n))
{
	is($sub->safe_psql('postgres', "SELECT pagebtree_check('$idx', true)"), '',
		"subscriber: pagebtree_check('$idx', true) passes");
}
pbt_index_vs_seqscan($sub, 'postgres', 'SELECT id, k FROM t WHERE id BETWEEN 1000 AND 3000', 't_id');
pbt_index_vs_seqscan($sub, 'postgres', 'SELECT id FROM t WHERE id > 20000 ORDER BY id DESC', 't_id');
pbt_index_vs_seqscan($sub, 'postgres', 'SELECT k, id FROM t WHERE k BETWEEN 100 AND 140', 't_k');
pbt_index_vs_seqscan($sub, 'postgres', q{SELECT s FROM t WHERE s >= 'acct-0500' AND s < 'acct-0510' ORDER BY s}, 't_s');
pbt_index_vs_seqscan($sub, 'postgres', q{SELECT k, s, pad FROM t WHERE k = 77 ORDER BY k DESC, s}, 't_ks');
pbt_index_vs_seqscan($sub, 'postgres', 'SELECT n FROM t WHERE n > 95 ORDER BY n', 't_n');

$sub->stop;
$pub->stop;
done_testing();
