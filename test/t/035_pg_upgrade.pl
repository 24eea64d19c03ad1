
# pg_upgrade from an older server to this one (issue #24, item 4).
#
# An older server with pagebtree installed (PBT_UPGRADE_FROM: its
# installation directory, with bin/ and lib/; test/run-all.sh builds one
# from Debian's PostgreSQL 15 for its runs against 16 and 18) gets the
# shared test table with indexes of every layout, leaf groups and delta
# areas with entries pending, all preloaded.  pg_upgrade copies it into a
# cluster of this server.  There every index must pass pagebtree_check,
# index scans must return what sequential scans return (pbt_verify), the
# table must be unchanged and the pending entries still pending; then the
# indexes take new rows, deletes and VACUUM, and a crash, and are checked
# again.  pagebtree's page format does not depend on the server version,
# so the indexes are used as they are, with no REINDEX.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $from = $ENV{PBT_UPGRADE_FROM} // '';
plan skip_all => 'PBT_UPGRADE_FROM names no older server with pagebtree installed'
  unless $from ne '' && -x "$from/bin/postgres";

pbt_seed(35);
my $old = pbt_new_node('old', rmgr => 1, install_path => $from);
my $new_version = PostgreSQL::Test::Cluster->new('probe')->pg_version;
plan skip_all => "PBT_UPGRADE_FROM is version " . $old->pg_version
  . ", not older than this server's $new_version"
  unless $old->pg_version < $new_version;
note 'pg_upgrade from ' . $old->pg_version . " to $new_version";

# the old cluster: every layout, groups, delta areas with pending entries
$old->start;
pbt_create_schema($old, delta => 1);
pbt_load($old, 1, 20000);
pbt_create_groups($old);
my $text = pbt_text_expr('g');
$old->safe_psql(
	'postgres', qq{
SET pagebtree.delta_append_always = on;
INSERT INTO t (k, s, pad) SELECT g, $text, 'rand' FROM generate_series(20001, 40000) g ORDER BY md5(g::text);
DELETE FROM t WHERE k % 11 = 0 AND k < 20000;
VACUUM t;
INSERT INTO t (k, s, pad) SELECT g, $text, 'late' FROM generate_series(40001, 42000) g ORDER BY md5(g::text);
-- text under the database's collation (C.UTF-8 in the test clusters)
CREATE INDEX t_sdb ON t USING pagebtree ((s COLLATE "default"));
});
my @delta = qw(t_dpk t_dls t_dkm t_gs);
my $layouts_sql = q{SELECT string_agg(DISTINCT s.layout, ',' ORDER BY s.layout)
	FROM pg_index i, LATERAL pagebtree_layout_summary(i.indexrelid) s
	WHERE i.indrelid = 't'::regclass AND s.page_type = 'leaf'};
my $layouts = $old->safe_psql('postgres', $layouts_sql);
like($layouts, qr/bpa.*dense.*fingerprint.*heads.*plain.*posting/,
	"the old server's indexes have leaves of every kind ($layouts)");
my $runs_before = pbt_runs($old, \@delta);
cmp_ok($runs_before->{entries}, '>', 0, "$runs_before->{entries} entries pending in the delta areas");
my $groups_sql = q{SELECT count(*) FROM pagebtree_groups('t_gk')};
my $groups = $old->safe_psql('postgres', $groups_sql);
cmp_ok($groups, '>', 1, "t_gk has $groups leaf groups");
my $sdb_query = q{SELECT s COLLATE "default" FROM t WHERE s COLLATE "default" BETWEEN 'acct-0100' AND 'acct-0102'};
pbt_index_vs_seqscan($old, 'postgres', $sdb_query, 't_sdb');
pbt_check_indexes($old, 'old server');
my $fp = pbt_verify($old, 'old server');

# Debian's 15.20 keeps a column "attribute version" in attoptions (the key
# pg_attver, reserved in its pg_attribute.h "to make it visible to
# pg_dump").  The 16.14 and 18.4 servers here predate the key: their
# pg_dump copies it and their server refuses it (unrecognized parameter
# "pg_attver"), so pg_upgrade from this 15 fails for any table, with or
# without pagebtree.  The key goes from the user tables' columns before
# the upgrade.
my $attver = $old->safe_psql(
	'postgres', q{
UPDATE pg_attribute
   SET attoptions = (SELECT nullif(array_agg(o), '{}') FROM unnest(attoptions) o
                      WHERE o NOT LIKE 'pg_attver=%')
 WHERE attrelid >= 16384
   AND EXISTS (SELECT FROM unnest(attoptions) o WHERE o LIKE 'pg_attver=%')
RETURNING 1});
note 'pg_attver removed from ' . scalar(split /\n/, $attver) . ' columns';
$old->stop;

# pg_upgrade into a new cluster of this server (18 enables data checksums
# by default; the old cluster has none)
my $new = pbt_new_node('new', rmgr => 1,
	initdb => [ $new_version >= 18 ? '--no-data-checksums' : () ]);
my $newbin = $new->config_data('--bindir');
command_ok(
	[
		"$newbin/pg_upgrade", '--no-sync',
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-b', "$from/bin", '-B', $newbin,
		'-s', $new->host, '-p', $old->port, '-P', $new->port
	],
	'pg_upgrade');

$new->start;
is(int($new->safe_psql('postgres', 'SHOW server_version_num') / 10000),
	$new_version->major, 'the upgraded cluster runs the new server');
pbt_check_indexes($new, 'after pg_upgrade');
is(pbt_verify($new, 'after pg_upgrade'), $fp, 'after pg_upgrade: the table is unchanged');
pbt_index_vs_seqscan($new, 'postgres', $sdb_query, 't_sdb');
is($new->safe_psql('postgres', $layouts_sql), $layouts, 'after pg_upgrade: the same leaf layouts');
is_deeply(pbt_runs($new, \@delta), $runs_before, 'after pg_upgrade: the same entries pending');
is($new->safe_psql('postgres', $groups_sql), $groups, 'after pg_upgrade: the same leaf groups');

# the upgraded indexes take writes, VACUUM and a crash
$new->safe_psql(
	'postgres', qq{
SET pagebtree.delta_append_always = on;
INSERT INTO t (k, s, pad) SELECT g, $text, 'new' FROM generate_series(42001, 50000) g ORDER BY md5(g::text);
UPDATE t SET s = s || '!' WHERE k % 17 = 0;
DELETE FROM t WHERE k % 5 = 0 AND k > 30000;
VACUUM t;
});
cmp_ok(pbt_runs($new, \@delta)->{folds}, '>', $runs_before->{folds},
	'the new server folds runs that the old one wrote');
$new->stop('immediate');
$new->start;
pbt_check_indexes($new, 'after writes and a crash');
pbt_verify($new, 'after writes and a crash');
pbt_index_vs_seqscan($new, 'postgres', $sdb_query, 't_sdb');

$new->stop;
done_testing();
