
# Extension versions and the index format version (issue #26, item 5).
#
#   1. CREATE EXTENSION pagebtree VERSION '0.1' installs the frozen 0.1
#      script; indexes of every layout are built under it; ALTER EXTENSION
#      pagebtree UPDATE brings it to 0.2.  The indexes still answer as a
#      sequential scan does (EXPLAIN shows the index), pass
#      pagebtree_check(index, true), take new rows, and the extension's
#      objects equal those of a fresh 0.2 install in another database.
#   2. An index whose metapage names an older format version (forged on
#      disk while the server is stopped) is refused with an error that
#      names both versions and the hint to REINDEX; REINDEX fixes it.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $node = pbt_new_node('upgrade', conf => 'ignore_checksum_failure = on');
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE upgraded');
$node->safe_psql('postgres', 'CREATE DATABASE fresh');

# ---------------------------------------------------------------------------
# 1. 0.1, indexes, update to 0.2
# ---------------------------------------------------------------------------
$node->safe_psql('upgraded', q{CREATE EXTENSION pagebtree VERSION '0.1'});
is($node->safe_psql('upgraded', q{SELECT extversion FROM pg_extension WHERE extname = 'pagebtree'}),
	'0.1', 'VERSION 0.1 installs 0.1');
is($node->safe_psql('upgraded', q{SELECT to_regproc('pagebtree_runs') IS NULL
	AND to_regproc('pagebtree_layout_summary') IS NULL}),
	't', '0.1 has neither pagebtree_runs nor pagebtree_layout_summary');
is($node->safe_psql('upgraded',
	q{SELECT count(*) FROM pg_proc p, unnest(p.proargnames) a
	  WHERE p.oid = 'pagebtree_metapage'::regproc AND a = 'delta_group'}),
	'0', "0.1's pagebtree_metapage has no delta_group column");

# one column per index, so that each query has one index to use
my $fpvals = join(', ', map { "'acct-' || lpad('$_', 4, '0') || '/' || left(md5('$_'), 3 + $_ % 11)" } (7, 42, 4242));
my @indexes = (
	# name, definition, a query that the index answers
	[ 'u_dense', '(k)', 'SELECT k FROM u WHERE k BETWEEN 1000 AND 1500 ORDER BY k' ],
	[ 'u_heads', '(s)', q{SELECT s FROM u WHERE s >= 'acct-0100' AND s < 'acct-0110' ORDER BY s} ],
	[ 'u_semidense', '(k2) INCLUDE (pay)', 'SELECT k2, pay FROM u WHERE k2 BETWEEN 5000 AND 5300 ORDER BY k2' ],
	[ 'u_plain', '(p) WITH (layout = plain)', 'SELECT p FROM u WHERE p = 7' ],
	[ 'u_bpa', '(b) WITH (layout = bpa)', q{SELECT b FROM u WHERE b > 'acct-0900' ORDER BY b DESC} ],
	[ 'u_fp', '(fp) WITH (layout = fingerprint)', "SELECT fp FROM u WHERE fp = ANY (ARRAY[$fpvals])" ],
	[ 'u_cmp', '(f DESC)', 'SELECT f FROM u WHERE f < 100.5 ORDER BY f DESC' ],
	[ 'u_delta', '(d) WITH (delta = on)', 'SELECT d FROM u WHERE d > 19000 ORDER BY d DESC' ],
	[ 'u_unique', '(uq)', 'SELECT uq FROM u WHERE uq < 300' ],
);

# the rows with keys $from .. $to
sub rows
{
	my ($from, $to) = @_;
	return qq{SELECT i, txt, i, md5(i::text), i % 50, txt, txt, i / 7.0, i, i
FROM generate_series($from, $to) i,
     LATERAL (SELECT 'acct-' || lpad((i % 1000)::text, 4, '0') || '/' || left(md5(i::text), 3 + i % 11) AS txt) x};
}
$node->safe_psql(
	'upgraded', q{
CREATE TABLE u (k int8, s text COLLATE "C", k2 int8, pay text, p int4,
                b text COLLATE "C", fp text COLLATE "C", f float8, d int8, uq int8);
} . 'INSERT INTO u ' . rows(1, 20000));
for my $ix (@indexes)
{
	my $unique = $ix->[0] eq 'u_unique' ? 'UNIQUE' : '';
	$node->safe_psql('upgraded', "CREATE $unique INDEX $ix->[0] ON u USING pagebtree $ix->[1]");
}
is($node->safe_psql('upgraded', q{SELECT string_agg(DISTINCT s.layout, ',' ORDER BY s.layout)
	FROM pg_index i, LATERAL generate_series(1, pg_relation_size(i.indexrelid) / 8192 - 1) b,
	     LATERAL pagebtree_page_stats(i.indexrelid, b) s
	WHERE i.indrelid = 'u'::regclass AND s.page_type = 'leaf'}),
	'bpa,dense,fingerprint,heads,plain,semidense', 'the indexes built under 0.1 have leaves of every layout');

$node->safe_psql('upgraded', 'ALTER EXTENSION pagebtree UPDATE');
is($node->safe_psql('upgraded', q{SELECT extversion FROM pg_extension WHERE extname = 'pagebtree'}),
	'0.2', 'ALTER EXTENSION pagebtree UPDATE updates to 0.2');

$node->safe_psql('fresh', 'CREATE EXTENSION pagebtree');
is($node->safe_psql('fresh', q{SELECT extversion FROM pg_extension WHERE extname = 'pagebtree'}),
	'0.2', 'a fresh install is 0.2');
my $upgraded = pbt_extension_objects($node, 'upgraded');
my $fresh    = pbt_extension_objects($node, 'fresh');
like($fresh, qr/function pagebtree_runs\(regclass\)/, 'the object list names pagebtree_runs');
cmp_ok(scalar(split /\n/, $fresh), '>', 30, 'the extension has its operator classes and functions');
is($upgraded, $fresh, 'the objects after the update equal those of a fresh 0.2 install');

sub check_indexes
{
	my ($when) = @_;
	for my $ix (@indexes)
	{
		pbt_index_vs_seqscan($node, 'upgraded', $ix->[2], $ix->[0]);
		is($node->safe_psql('upgraded', "SELECT pagebtree_check('$ix->[0]', true)"),
			'', "$when: pagebtree_check passes on $ix->[0]");
	}
}
check_indexes('after the update');
is($node->safe_psql('upgraded', q{SELECT sum(live_items) = (SELECT count(*) FROM u)
	FROM pagebtree_layout_summary('u_dense') WHERE page_type = 'leaf'}),
	't', "0.2's pagebtree_layout_summary counts the entries of an index built under 0.1");
is($node->safe_psql('upgraded', q{SELECT delta_group > 0 FROM pagebtree_metapage('u_delta')}),
	't', "0.2's pagebtree_metapage reports the delta area of an index built under 0.1");

# the indexes keep working: new rows, updates, deletes, VACUUM
$node->safe_psql('upgraded', 'INSERT INTO u ' . rows(20001, 24000));
$node->safe_psql(
	'upgraded', q{
UPDATE u SET p = p + 1, pay = 'updated' WHERE k % 97 = 0;
DELETE FROM u WHERE k % 13 = 0;
VACUUM u;
});
check_indexes('after DML and VACUUM');

# ---------------------------------------------------------------------------
# 2. an index of an older format version
# ---------------------------------------------------------------------------
my $version = $node->safe_psql('upgraded', q{SELECT version FROM pagebtree_metapage('u_dense')});
like($version, qr/^[0-9]+$/, "the metapage's format version is $version");
my $old  = $version - 1;
my $file = $node->data_dir . '/' . $node->safe_psql('upgraded', q{SELECT pg_relation_filepath('u_dense')});
$node->stop;

# PbtMetaPageData at PageGetContents() of block 0 (after the 24-byte page
# header): magic, then version, both uint32 in the machine's byte order
{
	open(my $fh, '+<', $file) or die "open $file: $!";
	binmode $fh;
	seek($fh, 24 + 4, 0) or die "seek: $!";
	read($fh, my $raw, 4) == 4 or die "read: $!";
	is(unpack('L', $raw), $version, 'the version is where the test expects it');
	seek($fh, 24 + 4, 0) or die "seek: $!";
	print $fh pack('L', $old) or die "write: $!";
	close($fh) or die "close: $!";
}
$node->start;

my ($ret, $out, $err) = $node->psql('upgraded',
	'SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM u WHERE k < 100');
isnt($ret, 0, 'a scan of an index of an older format version fails');
like($err, qr/ERROR:  index "u_dense" has pagebtree version $old, expected $version/,
	'the error names the index and both versions');
like($err, qr/HINT:  REINDEX the index\./, 'the hint says REINDEX');
($ret, $out, $err) = $node->psql('upgraded', q{SELECT pagebtree_check('u_dense')});
isnt($ret, 0, 'pagebtree_check fails on it');
like($err, qr/bad metapage magic or version/, 'pagebtree_check names the version');

$node->safe_psql('upgraded', 'REINDEX INDEX u_dense');
is($node->safe_psql('upgraded', q{SELECT version FROM pagebtree_metapage('u_dense')}),
	$version, 'REINDEX writes the current format version');
is($node->safe_psql('upgraded', q{SELECT pagebtree_check('u_dense', true)}), '',
	'pagebtree_check passes after REINDEX');
pbt_index_vs_seqscan($node, 'upgraded', 'SELECT k FROM u WHERE k BETWEEN 1000 AND 1500 ORDER BY k', 'u_dense');

$node->stop;
done_testing();
