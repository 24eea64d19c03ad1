
# Operations that a crash cuts in two, with and without the resource
# manager.  gdb stops a backend in the middle, another commit flushes the
# WAL written so far, and the server is killed.  The same states follow
# from a recovery that stops there (a recovery target, a promotion).
#
# - A root split is one record, the new root above it another: the next
#   insert that passes the root makes it.  Until then the verifier accepts
#   a root with a right sibling that its split flag announces, and scans
#   read both halves.
# - VACUUM's pass in block order sets the metapage's vacuum_scan, which
#   keeps splits from reusing free pages, and clears it at its end.  A pass
#   cut short leaves it set with no VACUUM running: the next split that
#   finds a free page clears it and reuses the page.
#
# Skipped where gdb cannot stop a backend.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

plan skip_all => 'gdb is not installed'
  unless system('gdb --version >/dev/null 2>&1') == 0;

# Run $sql in a backend that gdb stops at $break, flush the WAL it wrote
# with another commit, and kill the server.  The backend waits for the
# table gate to fill until gdb has set the breakpoint.  False where gdb
# cannot stop the backend or the breakpoint was not hit.
sub crash_at
{
	my ($node, $sql, $break) = @_;
	my ($out, $err) = ('', '');
	$node->safe_psql('postgres', 'TRUNCATE gate');
	my $backend = IPC::Run::start(
		[
			'psql', '-X', '-A', '-t', '-d', $node->connstr('postgres'),
			'-c', "LOAD 'pagebtree'",    # gdb's breakpoint needs it loaded
			'-c', 'SELECT pg_backend_pid()',
			'-c', q{DO $$ BEGIN WHILE NOT EXISTS (SELECT FROM gate) LOOP
			  PERFORM pg_sleep(0.05); END LOOP; END $$},
			'-c', $sql
		],
		'<', \undef, '>', \$out, '2>', \$err);
	my $deadline = time + 120;
	$backend->pump while $out !~ /^(\d+)$/m && time < $deadline;
	my ($pid) = $out =~ /^(\d+)$/m;
	# (the backend is killed long before gdb would let it go)
	my ($gdb, $gdb_out) = pbt_gdb_pause($pid, $break, 60);
	if (!$gdb)
	{
		diag($gdb_out);
		$backend->kill_kill;
		return 0;
	}
	$node->safe_psql('postgres', 'INSERT INTO gate VALUES (true)');
	$gdb->pump while $$gdb_out !~ /Breakpoint \d+,|exited/ && time < $deadline;
	my $hit = $$gdb_out =~ /Breakpoint \d+,/;
	$node->safe_psql('postgres', 'CREATE TABLE flush (); DROP TABLE flush;');
	kill 'KILL', $pid;
	$gdb->kill_kill(grace => 1);
	$backend->kill_kill;
	$node->kill9;
	pbt_start_after_crash($node);
	return $hit;
}

# Set bits in the flags of page $blkno of $index (the special space's
# bytes 18-19), with the server stopped.
sub flag_page
{
	my ($node, $index, $blkno, $bits) = @_;
	my $file = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$index')");
	$node->stop;
	open(my $fh, '+<', $file) or die "open $file: $!";
	binmode $fh;
	my $off = $blkno * 8192 + 8192 - 32 + 18;
	seek($fh, $off, 0) or die "seek: $!";
	read($fh, my $old, 1) == 1 or die "read: $!";
	seek($fh, $off, 0) or die "seek: $!";
	print $fh chr(ord($old) ^ $bits);
	close $fh;
	$node->start;
}

for my $rmgr (1, 0)
{
	my $mode = $rmgr ? 'preloaded' : 'generic WAL';
	my $node = pbt_new_node("interrupted_$rmgr", rmgr => $rmgr,
		conf => "autovacuum = off\n");
	$node->start;
	$node->safe_psql(
		'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE gate (open bool);
CREATE TABLE r (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX r_k ON r USING pagebtree (k) WITH (delta = off);
INSERT INTO r SELECT (g * 7919) % 100003 FROM generate_series(1, 100) g;
CREATE TABLE v (k int8) WITH (autovacuum_enabled = off);
INSERT INTO v SELECT g FROM generate_series(1, 200000) g;
CREATE INDEX v_k ON v USING pagebtree (k) WITH (delta = off);
DELETE FROM v WHERE k <= 100000;
VACUUM v;
SELECT txid_current();
DELETE FROM v WHERE k % 1000 = 1;
VACUUM v;
DELETE FROM v WHERE k % 1000 = 2;
CHECKPOINT;
});

	# the root leaf splits; the backend dies before it makes the new root
	if (!crash_at($node,
			'INSERT INTO r SELECT (g * 7919) % 100003 FROM generate_series(101, 3000) g',
			'break new_root'))
	{
		$node->stop('immediate');
		plan skip_all => 'gdb cannot stop a backend'
		  if Test::More->builder->current_test == 0;
		fail("$mode: gdb stops the backend in new_root");
		last;
	}
	my $root = q{SELECT m.level || ' ' || s.flags
		FROM pagebtree_metapage('r_k') m, pagebtree_page_stats('r_k', m.root) s};
	like($node->safe_psql('postgres', $root), qr/^0 .*incomplete_split/,
		"$mode: after the crash the root leaf is split, with no new root");
	is($node->safe_psql('postgres', q{SELECT pagebtree_check('r_k', true)}), '',
		"$mode: pagebtree_check passes with the root's split unfinished");
	pbt_index_vs_seqscan($node, 'postgres',
		q{SELECT count(*), sum(k) FROM r WHERE k > 0}, 'r_k');
	pbt_index_vs_seqscan($node, 'postgres',
		q{SELECT string_agg(k::text, ',') FROM (SELECT k FROM r WHERE k > 50000 ORDER BY k DESC) s},
		'r_k');

	# the root's level has no parent: its other pages are checked by flags
	my $right = $node->safe_psql('postgres',
		q{SELECT s.next FROM pagebtree_metapage('r_k') m, pagebtree_page_stats('r_k', m.root) s});
	flag_page($node, 'r_k', $right, 2);    # PBT_ROOT
	my ($ret, $out, $err) = $node->psql('postgres', q{SELECT pagebtree_check('r_k', true)});
	like($err, qr/corrupt at block $right, item 0: a page other than the root is flagged as the root/,
		"$mode: the verifier reports the root's right sibling flagged as the root");
	flag_page($node, 'r_k', $right, 2);

	$node->safe_psql('postgres', 'INSERT INTO r VALUES (5)');
	like($node->safe_psql('postgres', $root), qr/^1 /,
		"$mode: the next insert makes the new root");
	is($node->safe_psql('postgres', q{SELECT pagebtree_check('r_k', true)}), '',
		"$mode: pagebtree_check passes after it");

	# VACUUM's pass dies in its first deletion, with vacuum_scan set
	my $size = q{SELECT pg_relation_size('v_k') / 8192};
	my $size0 = $node->safe_psql('postgres', $size);
	ok(crash_at($node, 'VACUUM v', 'break pbt_log_delete'),
		"$mode: VACUUM stopped in its pass");
	$node->safe_psql('postgres',
		'INSERT INTO v SELECT g FROM generate_series(1, 100000) g');
	my $size1 = $node->safe_psql('postgres', $size);
	cmp_ok($size1 - $size0, '<', 10,
		"$mode: splits after the crash reuse the free pages ($size0 blocks, then $size1)");
	is($node->safe_psql('postgres', q{SELECT pagebtree_check('v_k', true)}), '',
		"$mode: pagebtree_check passes");
	pbt_index_vs_seqscan($node, 'postgres',
		q{SELECT count(*), sum(k) FROM v WHERE k BETWEEN 50000 AND 150000}, 'v_k');
	$node->stop;
}

done_testing();
