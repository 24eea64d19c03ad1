# Side pages written before run entries were front-coded stay readable
# and writable.
#
# Since side pages carry PBT_FRONT_CODED, each entry of a run stores only
# the bytes after those it shares with the run's first entry.  A side page
# without the flag, as versions before it wrote them, keeps whole entries:
# appends to it must write them whole and readers must read them so.  The
# test makes such a page by clearing the flag in a stopped index's file
# (its runs emptied by VACUUM first), then appends entries to it, in both
# WAL modes, and checks the runs' bytes, the flag, pagebtree_check and
# scans against a sequential scan, before and after a crash.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $url = q{'https://www.example.com/electronics/item-' || md5(g::text)};
# the flags of a page: a uint16 at byte 18 of its 32-byte special space
my $flags_at = 8192 - 32 + 18;
my $front_coded = 1 << 10;

for my $rmgr (1, 0)
{
	my $mode = $rmgr ? 'preloaded' : 'not preloaded';
	my $node = pbt_new_node("side_format_$rmgr", rmgr => $rmgr,
		delta_always => 1,
		# (18's initdb enables data checksums, which the edit breaks)
		conf => "autovacuum = off\nignore_checksum_failure = on\n");
	$node->start;
	$node->safe_psql(
		'postgres', qq{
CREATE EXTENSION pagebtree;
CREATE TABLE u (s text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO u SELECT $url FROM generate_series(1, 3000) g;
CREATE INDEX u_s ON u USING pagebtree (s) WITH (delta = on);
INSERT INTO u SELECT $url FROM generate_series(3001, 3040) g;
});
	is( $node->safe_psql(
			'postgres', q{
SELECT flags FROM pagebtree_page_stats('u_s', 1)}),
		'front_coded', "$mode: a new side page is front-coded");
	$node->safe_psql('postgres', 'VACUUM u');
	is($node->safe_psql('postgres', q{
SELECT coalesce(sum(entries), 0) FROM pagebtree_runs('u_s')}),
		'0', "$mode: VACUUM emptied the runs");
	my $path = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('u_s')");
	$node->stop;

	# clear the flag on side page 1, as an older version wrote it
	open(my $fh, '+<', $path) or die "open $path: $!";
	binmode $fh;
	seek($fh, 8192 + $flags_at, 0) or die;
	read($fh, my $raw, 2) == 2 or die;
	my $flags = unpack('v', $raw);
	ok($flags & $front_coded, "$mode: the flag is where the test looks for it");
	seek($fh, 8192 + $flags_at, 0) or die;
	print $fh pack('v', $flags & ~$front_coded);
	close $fh;
	$node->start;

	$node->safe_psql('postgres', qq{
INSERT INTO u SELECT $url FROM generate_series(3041, 3100) g});
	# the old format: every entry takes its length (2 bytes) and its item,
	# so the runs of side page 1 take at least 60 bytes per entry (the
	# front-coded ones take about 42)
	my ($entries, $whole) = split /\|/, $node->safe_psql(
		'postgres', q{
SELECT sum(entries), bool_and(bytes >= 60 * entries)
FROM pagebtree_runs('u_s') WHERE side_block = 1 AND entries > 0});
	ok($entries > 0 && $whole eq 't',
		"$mode: appends to the old side page store whole entries ($entries entries)");
	is($node->safe_psql('postgres', q{
SELECT flags FROM pagebtree_page_stats('u_s', 1)}),
		'', "$mode: the old side page keeps its format");

	my $check = sub {
		my ($when) = @_;
		my ($ret, $out, $err) = $node->psql('postgres',
			"SELECT pagebtree_check('u_s', true)");
		ok($ret == 0 && $err eq '', "$mode, $when: pagebtree_check") or diag($err);
		for my $q (
			q{SELECT s FROM u WHERE s > 'https://www.example.com/electronics/item-' ORDER BY s},
			q{SELECT s FROM u WHERE s < 'https://www.example.com/electronics/item-9' ORDER BY s DESC})
		{
			pbt_index_vs_seqscan($node, 'postgres', $q, 'u_s');
		}
	};
	$check->('after the appends');
	$node->stop('immediate');
	$node->start;
	$check->('after crash recovery');
	$node->safe_psql('postgres', 'VACUUM u');
	$check->('after VACUUM');
	$node->stop;
}

done_testing();
