
# Without preloading, inserts that change a leaf in place are logged by
# comparing only the bytes they change (PbtLayout.insert_ranges), and a
# dirty leaf takes such an insert itself instead of appending it to its run.
#
# A primary that does not preload pagebtree (generic WAL) and a streaming
# standby.  The workload makes every kind of in-place insert: serial ids
# into the rightmost dense and semidense (INCLUDE) leaves (the insert fast
# path, and the step of pd_lower over empty slots), ids above them in
# random order, deleted ids inserted again after VACUUM into dirty dense
# leaves, which must take them in place (their runs stay empty; semidense
# leaves do where their gap has room), a low-cardinality column whose new heap TIDs go to the end of
# posting leaves, ascending sparse keys at the end of heads leaves (whose
# hints are recomputed now and then), and a second entry for an id, which
# breaks its dense leaf's pattern.  Then the standby, and the primary
# after an immediate stop and crash recovery, must return what a
# sequential scan returns through each index, and pagebtree_check must
# pass on both; with wal_consistency_checking = 'generic' both compare every
# page they replay with the primary's image, which checks the ranges the
# inserts logged byte for byte (max_wal_size is large enough that those
# images bring no checkpoint: a leaf stays dirty).  (The PBT_CHECKS build also checks, for every such insert,
# that no byte outside the ranges it logged changed.)  A second table, hnt,
# gets dead-entry marks and adaption counter steps from a session that does
# not check generic records, then inserts from one that does: their records
# of the hinted leaves must log them whole (pbt_generic_needs_image).

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

pbt_seed(3037);

my $primary = pbt_new_node('in_place_primary', rmgr => 0, streaming => 1,
	conf => "autovacuum = off\nshared_buffers = 16MB\ncheckpoint_timeout = 1h\n"
	  . "wal_consistency_checking = 'generic'\nmax_wal_size = 4GB\n");
$primary->start;
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE g (id int8, v int8, k int8, pad text) WITH (autovacuum_enabled = off);
CREATE INDEX g_id ON g USING pagebtree (id);
CREATE INDEX g_v ON g USING pagebtree (v);
CREATE INDEX g_k ON g USING pagebtree (k);
CREATE INDEX g_pid ON g USING pagebtree (pad COLLATE "C", id);
CREATE INDEX g_idv ON g USING pagebtree ((id + 1)) INCLUDE (v);
});
my $standby = pbt_new_standby($primary, 'in_place_standby');

# serial ids: the rightmost dense leaf takes them in place
$primary->safe_psql('postgres', q{
INSERT INTO g SELECT i, i % 5, i * 1000003 + i % 7, 'p'
FROM generate_series(1::int8, 30000) i});
is( $primary->safe_psql('postgres', q{
SELECT string_agg(DISTINCT layout, ',') FROM pagebtree_layout_summary('g_id')
WHERE page_type = 'leaf'}),
	'dense', 'serial ids make dense leaves');
is( $primary->safe_psql('postgres', q{
SELECT string_agg(DISTINCT layout, ',') FROM pagebtree_layout_summary('g_idv')
WHERE page_type = 'leaf'}),
	'semidense', 'serial ids with an INCLUDE column make semidense leaves');

# ids above them in random order: into the rightmost dense leaf's window
# in place, past it through the leaf's run and splits
$primary->safe_psql('postgres', q{
INSERT INTO g SELECT i, i % 5, (hashint8(i)::int8 & 1048575) * 1000003, 'r'
FROM generate_series(30001::int8, 36000) i ORDER BY md5(i::text)});
like( $primary->safe_psql('postgres', q{
SELECT string_agg(DISTINCT layout, ',') FROM pagebtree_layout_summary('g_v')
WHERE page_type = 'leaf'}),
	qr/posting/, 'the low-cardinality column has posting leaves');

# deleted ids come back into the slots VACUUM emptied, in random order:
# the leaves are dirty (no checkpoint since VACUUM wrote them), so they
# take the ids in place and their runs stay empty, where keys in random
# order into heads leaves are appended to runs
$primary->safe_psql('postgres', q{
DELETE FROM g WHERE id % 10 = 3;
VACUUM g;
INSERT INTO g SELECT i, i % 5, i * 1000003 + 1, 'd'
FROM generate_series(1::int8, 36000) i WHERE i % 10 = 3 ORDER BY md5(i::text);
});
my ($pending, $leaves) = split /\|/, $primary->safe_psql('postgres', q{
SELECT coalesce(sum(r.entries), 0), count(*)
FROM pagebtree_runs('g_id') r, pagebtree_page_stats('g_id', r.leaf) s
WHERE s.layout = 'dense'});
ok($leaves > 10 && $pending == 0,
	"ids into dirty dense leaves are inserted in place, not appended ($leaves leaves)");
cmp_ok($primary->safe_psql('postgres', q{
SELECT coalesce(sum(entries), 0) FROM pagebtree_runs('g_k')}),
	'>', 0, 'random keys into heads leaves are appended to runs');

# a second entry for an id (an UPDATE of another indexed column) breaks
# its dense leaf's pattern; more serial ids
$primary->safe_psql('postgres', q{
UPDATE g SET k = k + 1 WHERE id BETWEEN 20000 AND 20010;
INSERT INTO g SELECT i, i % 5, i * 1000003, 'a' FROM generate_series(36001::int8, 40000) i;
});

# hints that readers set in a session that does not check generic records
# (the setting is per session): dead-entry marks from index scans after a
# DELETE, adaption counters stepped by lookups of text keys.  The next
# generic record of such a leaf, from a session that checks, must carry
# the whole page (pbt_generic_needs_image), or redo stops at "inconsistent
# page found" on the standby and in crash recovery.
$primary->safe_psql('postgres', q{
CREATE TABLE hnt (k int8, s text) WITH (autovacuum_enabled = off);
INSERT INTO hnt SELECT i, md5(i::text) FROM generate_series(1, 20000) i;
CREATE INDEX hnt_k ON hnt USING pagebtree (k) WITH (delta = off);
CREATE INDEX hnt_s ON hnt USING pagebtree (s COLLATE "C") WITH (delta = off);
DELETE FROM hnt WHERE k % 3 = 0;
});
$primary->safe_psql('postgres', q{
SET wal_consistency_checking = '';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) FROM hnt WHERE k > 0;
SELECT count(*) FROM hnt WHERE s COLLATE "C" > '';
SELECT count(*) FROM generate_series(1, 20000) i
  WHERE EXISTS (SELECT FROM hnt WHERE s COLLATE "C" = md5(i::text));
});
cmp_ok($primary->safe_psql('postgres', q{
SELECT count(*) FROM generate_series(1, pg_relation_size('hnt_s') / 8192 - 1) b,
  pagebtree_page_stats('hnt_s', b)
WHERE page_type = 'leaf' AND flags !~ 'ops=2'}),
	'>', 0, 'lookups stepped the adaption counters of hnt_s\'s leaves');
$primary->safe_psql('postgres', q{
INSERT INTO hnt SELECT i, md5(i::text) || 'x' FROM generate_series(3, 20000, 3) i;
});

my @queries = (
	[ 'SELECT id FROM g WHERE id BETWEEN 100 AND 39000', 'g_id' ],
	[ 'SELECT id FROM g WHERE v = 3',                   'g_v' ],
	[ 'SELECT k FROM g WHERE k > 0',                    'g_k' ],
	[ q{SELECT id FROM g WHERE pad COLLATE "C" = 'r'}, 'g_pid' ],
	[ 'SELECT id, v FROM g WHERE id + 1 BETWEEN 101 AND 39001', 'g_idv' ],
	[ 'SELECT k FROM hnt WHERE k > 0', 'hnt_k' ],
	[ q{SELECT s FROM hnt WHERE s COLLATE "C" > ''}, 'hnt_s' ],);

sub check_node
{
	my ($node, $what) = @_;
	for my $q (@queries)
	{
		pbt_index_vs_seqscan($node, 'postgres', $q->[0], $q->[1]);
	}
	for my $ix (qw(g_id g_v g_k g_pid g_idv hnt_k hnt_s))
	{
		is($node->safe_psql('postgres', "SELECT pagebtree_check('$ix')"),
			'', "$what: pagebtree_check('$ix') passes");
	}
}

$primary->wait_for_catchup($standby, 'replay');
check_node($standby, 'standby');
is( $standby->safe_psql('postgres',
		'SELECT count(*), sum(id), sum(k) FROM g WHERE id > 0'),
	$primary->safe_psql('postgres',
		'SELECT count(*), sum(id), sum(k) FROM g WHERE id > 0'),
	'the standby has the primary\'s rows');

# crash recovery replays the same records
$primary->safe_psql('postgres', q{
INSERT INTO g SELECT i, i % 5, i * 1000003, 'c' FROM generate_series(40001::int8, 43000) i;
INSERT INTO g SELECT i, i % 5, i * 1000003, 'c'
FROM generate_series(43001::int8, 46000) i ORDER BY md5(i::text);
});
my $want = $primary->safe_psql('postgres',
	'SELECT count(*), sum(id), sum(k) FROM g WHERE id > 0');
$primary->stop('immediate');
$primary->start;
is($primary->safe_psql('postgres',
		'SELECT count(*), sum(id), sum(k) FROM g WHERE id > 0'),
	$want, 'crash recovery: the rows are back');
check_node($primary, 'after crash recovery');
is($primary->safe_psql('postgres', "SELECT pagebtree_check('g_id', true)"),
	'', 'after crash recovery: every row has its g_id entry');

$standby->stop;
$primary->stop;
done_testing();
