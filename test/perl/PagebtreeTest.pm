# Helpers shared by the pagebtree TAP tests (test/t/*.pl).
#
#   use FindBin;
#   use lib "$FindBin::RealBin/../perl";
#   use PagebtreeTest;
#
# The test table is
#   t (id bigserial, k int8, s text COLLATE pbt_ling, pad text)
# (pbt_ling: libc en_US.UTF-8, a linguistic collation that test/run-all.sh
# generates) with pagebtree indexes
#   t_k (k)                                   int8: normalized keys
#   t_s (s)                                   text, linguistic: comparator keys
#   t_sc (s COLLATE "C")                      text: normalized keys, BPA leaves
#   t_ks (k DESC, s COLLATE "C") INCLUDE (id) multi-column, DESC, INCLUDE
#   t_id UNIQUE (id)                          unique, fingerprint leaves;
#                                             every UPDATE inserts a second
#                                             entry for its id
# and, with pbt_create_schema(delta => 1), two indexes with a delta area
# (WITH (delta = on), issue #22) that no query of the other indexes uses:
#   t_dpk (pad COLLATE "C", k) INCLUDE (id)   normalized keys, index-only scans
#   t_dls (lower(s))                          comparator keys (pbt_ling)
# Their inserts go to runs of pending entries when the session has
# pagebtree.delta_append_always = on (pbt_new_node(delta_always => 1)).
# Tests may add two indexes with leaf groups (WITH (leaf_group_size = 4),
# issue #23), which pbt_verify then checks too (see pbt_create_groups):
#   t_gk ((-k)) INCLUDE (k)                   int8, fillfactor = 100: groups
#                                             rebalance from the first inserts
#   t_gs ((reverse(s) COLLATE "C"))           text, normalized keys that
#                                             spread inserts over all groups;
#                                             a delta area (delta = on)
# Text keys share prefixes, have varied lengths and 2% of them are a few
# hundred bytes long.

package PagebtreeTest;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;
use Time::HiRes qw(usleep);
use Digest::MD5 qw(md5_hex);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(
  pbt_new_node pbt_create_schema pbt_load pbt_start_workload pbt_stop_workload
  pbt_verify pbt_check_indexes pbt_start_after_crash pbt_seed
  pbt_text_expr pbt_runs pbt_index_vs_seqscan pbt_extension_objects
  pbt_start_script pbt_create_groups pbt_group_ops pbt_gdb_pause pbt_pause_redo
  pbt_new_standby
);

# Random seed for the workloads: PBT_TEST_SEED or a fixed default, so that a
# failure can be reproduced; printed by each test.
sub pbt_seed
{
	my ($default) = @_;
	my $seed = $ENV{PBT_TEST_SEED} // $default;
	note "random seed: $seed (set PBT_TEST_SEED to change)";
	srand($seed);
	return $seed;
}

# SQL expression producing the text key for int8 expression $kexpr.
sub pbt_text_expr
{
	my ($kexpr) = @_;
	return "CASE WHEN ($kexpr) % 50 = 0 "
	  . "THEN 'acct-' || lpad((($kexpr) % 1000)::text, 4, '0') || '/' || repeat(md5(($kexpr)::text), 12) "
	  . "ELSE 'acct-' || lpad((($kexpr) % 1000)::text, 4, '0') || '/' || left(md5(($kexpr)::text), 4 + (($kexpr) % 29)::int) END";
}

# Create (not start) a node.  %opts:
#   rmgr    => 1: shared_preload_libraries = 'pagebtree' (custom WAL
#              resource manager); 0: generic WAL
#   streaming => 1: wal_level = replica, ready for pg_basebackup
#   delta_always => 1: pagebtree.delta_append_always = on (every insert
#              into an index WITH (delta = on) goes to its leaf's run until
#              the run folds; no effect on other indexes)
#   conf    => extra postgresql.conf lines
#   install_path => the installation (bin, lib) of another server to run
#   initdb  => extra initdb arguments (an array reference)
sub pbt_new_node
{
	my ($name, %opts) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name,
		$opts{install_path} ? (install_path => $opts{install_path}) : ());
	$node->init(
		allows_streaming => ($opts{streaming} ? 1 : 0),
		extra            => $opts{initdb} // []);
	my $spl = $opts{rmgr} ? 'pagebtree' : '';
	$node->append_conf(
		'postgresql.conf', qq(
shared_preload_libraries = '$spl'
log_statement = none
log_min_messages = warning
log_checkpoints = on
max_connections = 20
shared_buffers = 2MB
checkpoint_timeout = 30s
max_wal_size = 256MB
restart_after_crash = off
));
	$node->append_conf('postgresql.conf', "pagebtree.delta_append_always = on\n")
	  if $opts{delta_always};
	$node->append_conf('postgresql.conf', $opts{conf}) if $opts{conf};
	return $node;
}

sub pbt_create_schema
{
	my ($node, %opts) = @_;
	my $table    = $opts{table}    // 't';
	my $unlogged = $opts{unlogged} ? 'UNLOGGED' : '';
	$node->safe_psql('postgres', 'CREATE EXTENSION IF NOT EXISTS pagebtree');
	$node->safe_psql(
		'postgres', qq(
CREATE COLLATION IF NOT EXISTS pbt_ling (provider = libc, locale = 'en_US.UTF-8');
CREATE $unlogged TABLE $table (id bigserial, k int8 NOT NULL, s text COLLATE pbt_ling NOT NULL, pad text);
CREATE INDEX ${table}_k ON $table USING pagebtree (k);
CREATE INDEX ${table}_s ON $table USING pagebtree (s);
));
	# normalized text keys in BPA leaves (a small insert log, so that
	# flushes and block splits are frequent), a multi-column index with a
	# DESC column and an INCLUDE column, a unique index with fingerprint
	# leaves, and 13 keys of about 2,000 entries or more each (posting
	# leaves)
	$node->safe_psql(
		'postgres', qq(
CREATE INDEX ${table}_sc ON $table USING pagebtree (s COLLATE "C")
  WITH (layout = bpa, bpa_log_size = 8);
CREATE INDEX ${table}_ks ON $table USING pagebtree (k DESC, s COLLATE "C") INCLUDE (id);
CREATE UNIQUE INDEX ${table}_id ON $table USING pagebtree (id)
  WITH (layout = fingerprint);
CREATE INDEX ${table}_km ON $table USING pagebtree ((k % 13));
)) unless $opts{basic};
	# indexes with a delta area (see the top of this file)
	$node->safe_psql(
		'postgres', qq(
CREATE INDEX ${table}_dpk ON $table USING pagebtree (pad COLLATE "C", k) INCLUDE (id)
  WITH (delta = on);
CREATE INDEX ${table}_dls ON $table USING pagebtree (lower(s)) WITH (delta = on);
CREATE INDEX ${table}_dkm ON $table USING pagebtree ((k % 7)) WITH (delta = on);
)) if $opts{delta};
	return;
}

# The two indexes with leaf groups on $table (see the top of this file),
# built on the rows it has.  %opts: table ('t'), size (4).
sub pbt_create_groups
{
	my ($node, %opts) = @_;
	my $table = $opts{table} // 't';
	my $n     = $opts{size}  // 4;
	$node->safe_psql(
		'postgres', qq(
CREATE INDEX ${table}_gk ON $table USING pagebtree ((-k)) INCLUDE (k)
  WITH (leaf_group_size = $n, fillfactor = 100);
CREATE INDEX ${table}_gs ON $table USING pagebtree ((reverse(s) COLLATE "C"))
  WITH (leaf_group_size = $n, delta = on);
));
	return;
}

# Rebalances, splits, deletions and reuses of leaf groups in $text (a server
# log, or what a session with client_min_messages = debug2 printed): the
# DEBUG2 lines "pagebtree: rebalance|split|deletion|reuse of the leaf group
# at block ..." of indexes whose names match $index (a regexp; any index if
# undef).  Returns a hash with their numbers by those names.
sub pbt_group_ops
{
	my ($text, $index) = @_;
	my %n = (rebalance => 0, split => 0, deletion => 0, reuse => 0);
	while ($text =~ /pagebtree: (rebalance|split|deletion|reuse) of the leaf group at block \d+ of index "([^"]+)"/g)
	{
		my ($op, $name) = ($1, $2);
		$n{$op}++ if !defined $index || $name =~ $index;
	}
	return \%n;
}

# The runs of the delta area of the given indexes (pagebtree_runs): a hash
# with the pending entries, the folds so far and the number of runs that
# hold entries, summed over the indexes.  %opts: dbname.
sub pbt_runs
{
	my ($node, $indexes, %opts) = @_;
	my $list = join(', ', map { "'$_'::regclass" } @$indexes);
	my ($entries, $folds, $runs) = split /\|/, $node->safe_psql(
		$opts{dbname} // 'postgres', qq{
SELECT coalesce(sum(r.entries), 0), coalesce(sum(r.folds), 0),
       count(*) FILTER (WHERE r.entries > 0)
  FROM unnest(ARRAY[$list]) i, LATERAL pagebtree_runs(i) r});
	return { entries => $entries, folds => $folds, runs => $runs };
}

# A streaming hot standby $name of $primary from a new base backup, with
# the postgresql.conf lines $conf (if any), started.
sub pbt_new_standby
{
	my ($primary, $name, $conf) = @_;
	$primary->backup("base_$name");
	my $standby = PostgreSQL::Test::Cluster->new($name);
	$standby->init_from_backup($primary, "base_$name", has_streaming => 1);
	$standby->append_conf('postgresql.conf', $conf) if $conf;
	$standby->start;
	return $standby;
}

# Insert rows with keys $from .. $to (step 1), $copies rows per key.
sub pbt_load
{
	my ($node, $from, $to, %opts) = @_;
	my $table  = $opts{table}  // 't';
	my $copies = $opts{copies} // 1;
	my $s      = pbt_text_expr('g');
	$node->safe_psql(
		'postgres', qq(
INSERT INTO $table (k, s, pad)
  SELECT g, $s, 'load' FROM generate_series($from, $to) g, generate_series(1, $copies) c;
));
	return;
}

# pgbench scripts of the write workload.  Keys are spread over 1..$range so
# that inserts, deletes and updates hit the whole index; the table size stays
# around 0.9 rows per key.
sub _workload_files
{
	my ($range) = @_;
	my $s_g  = pbt_text_expr(':k + g');
	my $s_up = pbt_text_expr('k + d');
	return {
		'ins.sql' => qq(\\set k random(1, $range)
INSERT INTO t (k, s, pad) SELECT :k + g, $s_g, 'ins' FROM generate_series(0, 9) g;
),
		'del.sql' => qq(\\set k random(1, $range)
DELETE FROM t WHERE k BETWEEN :k AND :k + 10;
),
		'upd.sql' => qq(\\set k random(1, $range)
UPDATE t SET k = k + d, s = $s_up, pad = 'upd'
  FROM (SELECT CASE WHEN :k % 2 = 0 THEN 7 ELSE -7 END AS d) x
  WHERE k BETWEEN :k AND :k + 3;
),
		'hot.sql' => qq(\\set h random(1, 20)
BEGIN;
INSERT INTO t (k, s, pad) SELECT :h * 1000, 'hot-' || :h, 'dup' FROM generate_series(1, 20);
DELETE FROM t WHERE id IN (SELECT id FROM t WHERE k = :h * 1000 ORDER BY id LIMIT 15);
COMMIT;
),
		'rollback.sql' => qq(\\set k random(1, $range)
BEGIN;
INSERT INTO t (k, s, pad) SELECT :k + g, $s_g, 'rb' FROM generate_series(0, 19) g;
DELETE FROM t WHERE k BETWEEN :k + 100 AND :k + 110;
ROLLBACK;
),
		'read.sql' => qq(\\set k random(1, $range)
SELECT count(*) FROM t WHERE k BETWEEN :k AND :k + 100;
SELECT count(*) FROM t WHERE s >= 'acct-0' || :k % 10 AND s < 'acct-0' || :k % 10 || '5';
),
		'vacuum.sql'     => "\\sleep 200 ms\nVACUUM t;\n",
		'checkpoint.sql' => "\\sleep 500 ms\nCHECKPOINT;\n",
	};
}

# Start a pgbench write workload in the background: $clients clients running
# the DML scripts, plus one client that runs VACUUM and CHECKPOINT every now
# and then.  Returns a handle for pbt_stop_workload.  %opts: clients (4),
# seconds (120), range (50000), seed, maintenance (1; 0 = no VACUUM and
# CHECKPOINT), tag (for log file names), options (PGOPTIONS of the DML
# clients, e.g. '-c pagebtree.delta_append_always=off').
sub pbt_start_workload
{
	my ($node, %opts) = @_;
	my $clients = $opts{clients} // 4;
	my $seconds = $opts{seconds} // 120;
	my $range   = $opts{range}   // 50000;
	my $seed    = $opts{seed}    // int(rand(1 << 30));
	my $tag     = $opts{tag}     // 'workload';
	my $maint   = $opts{maintenance} // 1;
	my %weight  = (
		'ins.sql'      => 10,
		'del.sql'      => 10,
		'upd.sql'      => 5,
		'hot.sql'      => 3,
		'rollback.sql' => 2,
		'read.sql'     => 3);

	my $files = _workload_files($range);
	my $dir   = PostgreSQL::Test::Utils::tempdir();
	my @fopts;
	for my $fn (sort keys %$files)
	{
		PostgreSQL::Test::Utils::append_to_file("$dir/$fn", $files->{$fn});
		push @fopts, '-f', "$dir/$fn\@$weight{$fn}" if $weight{$fn};
	}
	my @conn = ('-h', $node->host, '-p', $node->port);
	my $logbase = "$PostgreSQL::Test::Utils::log_path/pgbench_${tag}";
	my @cmd     = (
		'pgbench', '-n', @conn,
		'-c', $clients, '-j', ($clients > 1 ? 2 : 1),
		'-T', $seconds, "--random-seed=$seed", '--max-tries=50',
		@fopts, 'postgres');
	note "starting workload: @cmd"
	  . ($opts{options} ? " (PGOPTIONS='$opts{options}')" : '');
	my @h;
	{
		local $ENV{PGOPTIONS} = $opts{options} if $opts{options};
		push @h,
		  IPC::Run::start(\@cmd, '<', \undef, '>', "$logbase.out",
			'2>', "$logbase.err");
	}
	my @err = ("$logbase.err");
	if ($maint)
	{
		my @mcmd = (
			'pgbench', '-n', @conn, '-c', 1, '-T', $seconds,
			"--random-seed=$seed", '-f', "$dir/vacuum.sql\@3",
			'-f', "$dir/checkpoint.sql\@1", 'postgres');
		push @h, IPC::Run::start(\@mcmd, '<', \undef, '>',
			"${logbase}_maint.out", '2>', "${logbase}_maint.err");
		push @err, "${logbase}_maint.err";
	}
	return { harnesses => \@h, errs => \@err };
}

# Start pgbench in the background: $clients clients running the custom
# script $script (text) for $seconds seconds, with more pgbench arguments
# in @extra.  Returns the IPC::Run handle and references to its stdout and
# stderr, filled as it runs.
sub pbt_start_script
{
	my ($node, $script, $clients, $seconds, @extra) = @_;
	my $file = PostgreSQL::Test::Utils::tempdir() . '/script.sql';
	my ($out, $err) = ('', '');

	PostgreSQL::Test::Utils::append_to_file($file, $script);
	my $h = IPC::Run::start(
		[ 'pgbench', '-n', '-h', $node->host, '-p', $node->port,
			'-c', $clients, '-j', ($clients > 1 ? 2 : 1),
			'-T', $seconds, @extra, '-f', $file, 'postgres' ],
		'<', \undef, '>', \$out, '2>', \$err);
	return ($h, \$out, \$err);
}

# Wait for (after a crash: reap) a workload started by pbt_start_workload.
# With expect_ok => 1, the workload must have finished without errors.
sub pbt_stop_workload
{
	my ($wl, %opts) = @_;
	my $rc = 0;
	for my $h (@{ $wl->{harnesses} })
	{
		my $ok = eval {
			$h->finish;
			1;
		};
		$h->kill_kill if !$ok;
		my $r = $h->full_result(0) // -1;
		$rc = $r if $r != 0;
	}
	my $err = join("\n",
		map { -e $_ ? PostgreSQL::Test::Utils::slurp_file($_) : '' } @{ $wl->{errs} });
	if ($opts{expect_ok})
	{
		is($rc, 0, "$opts{name}: workload finished without errors")
		  or diag($err);
	}
	else
	{
		# The clients lose their connections at the crash; anything else
		# (a wrong result, a server-side ERROR) is a failure.
		my @bad = grep {
			/ERROR|FATAL|PANIC|error:/
			  && !/server closed the connection|terminating connection|connection to server .* failed|Connection refused|No such file or directory|the database system is shutting down|client \d+ aborted|the database system is in recovery mode|could not receive data from server|SSL SYSCALL|perhaps the backend died|lost synchronization|could not send data to server|the database system is not yet accepting connections|the database system is starting up|canceling statement due to conflict|postmaster exited|Run was aborted|lost connection to parallel worker|could not signal for checkpoint/
		} split /\n/, $err;
		is(scalar(@bad), 0, "$opts{name}: no unexpected errors in the workload")
		  or diag(join("\n", @bad[0 .. ($#bad > 20 ? 20 : $#bad)]));
	}
	return;
}

# Start a node after an immediate stop or a kill -9 of the postmaster.  After
# kill -9, orphaned backends may hold the shared memory for a moment, so the
# start is retried for a while.
sub pbt_start_after_crash
{
	my ($node) = @_;

	# wait until the killed postmaster is gone (and reaped)
	if (open my $fh, '<', $node->data_dir . '/postmaster.pid')
	{
		my $old = <$fh>;
		close $fh;
		chomp $old if defined $old;
		if (defined $old && $old =~ /^\d+$/)
		{
			my $waited = 0;
			while (kill(0, $old) && $waited < 120)
			{
				usleep(100_000);
				$waited += 0.1;
			}
			diag("old postmaster $old of node " . $node->name . " still exists after ${waited}s")
			  if kill(0, $old);
		}
	}
	for my $try (1 .. 60)
	{
		return 1 if $node->start(fail_ok => 1);
		sleep 1;
	}
	BAIL_OUT('node "' . $node->name . '" did not start after the crash');
}

# pagebtree_check(index, heapallindexed => true) on every pagebtree index of
# the table.
sub pbt_check_indexes
{
	my ($node, $name, %opts) = @_;
	my $table = $opts{table} // 't';
	my @idx = split /\n/, $node->safe_psql('postgres', qq{
SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_am a ON a.oid = c.relam
 WHERE i.indrelid = '$table'::regclass AND a.amname = 'pagebtree' ORDER BY 1});
	ok(@idx >= 1, "$name: table $table has pagebtree indexes");
	for my $idx (@idx)
	{
		my ($ret, $out, $err) = $node->psql('postgres',
			"SELECT pagebtree_check('$idx', true)");
		ok($ret == 0 && $err eq '', "$name: pagebtree_check('$idx', true)")
		  or diag("pagebtree_check($idx) failed: $err");
	}
	return;
}

# Split psql output into sections introduced by "@@name" lines.
sub _sections
{
	my ($out) = @_;
	my (%sec, $cur);
	for my $line (split /\n/, $out)
	{
		if ($line =~ /^@@(\S+)$/)
		{
			$cur = $1;
			$sec{$cur} = [];
			next;
		}
		push @{ $sec{$cur} }, $line if defined $cur;
	}
	return \%sec;
}

sub _show
{
	my (@l) = @_;
	return join(', ', map { "'$_'" } @l[0 .. ($#l > 4 ? 4 : $#l)]);
}

# The rows of an index scan ($got) against the same query answered by a
# sequential scan and a sort ($want): the ORDER BY keys (the first $nkey
# columns) must come in the same sequence, and the rows must be the same
# multiset.
sub _compare_scan
{
	my ($name, $got, $want, $nkey) = @_;
	my $key = sub { join('|', (split /\|/, $_[0], -1)[ 0 .. $nkey - 1 ]) };
	my @gk = map { $key->($_) } @$got;
	my @wk = map { $key->($_) } @$want;
	my $firstdiff;
	for my $i (0 .. ($#gk > $#wk ? $#gk : $#wk))
	{
		if (!defined $gk[$i] || !defined $wk[$i] || $gk[$i] ne $wk[$i])
		{
			$firstdiff = $i;
			last;
		}
	}
	my (%cg, %cw);
	$cg{$_}++ for @$got;
	$cw{$_}++ for @$want;
	my @missing = grep { ($cg{$_} // 0) < $cw{$_} } sort keys %cw;
	my @extra   = grep { ($cw{$_} // 0) < $cg{$_} } sort keys %cg;

	if (!defined $firstdiff && !@missing && !@extra)
	{
		ok(1, "$name (" . scalar(@$got) . " rows)");
		return 1;
	}
	ok(0, $name);
	diag(   "index scan: "
		  . scalar(@$got)
		  . " rows, seqscan+sort: "
		  . scalar(@$want)
		  . " rows; missing from the index scan: "
		  . scalar(@missing) . " (" . _show(@missing) . ")"
		  . "; extra or duplicated: "
		  . scalar(@extra) . " (" . _show(@extra) . ")");
	diag("key order differs first at row $firstdiff: index scan '"
		  . ($gk[$firstdiff] // '(end)')
		  . "', expected '"
		  . ($wk[$firstdiff] // '(end)') . "'")
	  if defined $firstdiff;
	return 0;
}

# Compare index scans with sequential scans, all under one REPEATABLE READ
# snapshot (so it also works on a hot standby that is replaying WAL).
#
# Each check is a query run twice: once with only (plain or index-only)
# index scans allowed, where its plan must use the expected index, and once
# with only a sequential scan and a sort.  Checked: full scans in both
# directions and ranges on ${t}_k (int8), ${t}_s (text, database collation)
# and, when they exist, ${t}_sc (text COLLATE "C") and
# ${t}_ks (k DESC, s COLLATE "C") INCLUDE (id), including index-only scans,
# and the delta-area indexes ${t}_dpk (pad COLLATE "C", k) INCLUDE (id) and
# ${t}_dls (lower(s)) (pbt_create_schema(delta => 1)), whose scans merge the
# runs of pending entries (one full scan each; backward over the rows the
# workload inserted, and the text ranges).
# Returns a fingerprint of the table (count and md5 of all rows) for
# comparing nodes.
# %opts: table ('t'), ranges (8), text_ranges (6), dbname ('postgres')
sub pbt_verify
{
	my ($node, $name, %opts) = @_;
	my $t       = $opts{table}       // 't';
	my $nranges = $opts{ranges}      // 8;
	my $ntext   = $opts{text_ranges} // 6;
	my $db      = $opts{dbname}      // 'postgres';

	my %have = map { $_ => 1 } split /\n/, $node->safe_psql($db,
		"SELECT relname FROM pg_class WHERE relname IN ('${t}_sc', '${t}_ks', '${t}_id', '${t}_dpk', '${t}_dls', '${t}_gk', '${t}_gs', '${t}_km', '${t}_dkm')");
	# a standby without the resource manager plans no index-only scans on
	# pagebtree indexes (pbtcanreturn): a plain index scan serves instead
	my $no_ios = $node->safe_psql($db,
		q{SELECT pg_is_in_recovery() AND current_setting('shared_preload_libraries') !~ 'pagebtree'})
	  eq 't';

	# name, plan regexp, query, number of ORDER BY columns, index-only?
	# (ORDER BY k can also be served by ${t}_ks (k DESC, s) scanned the
	# other way; the planner prefers the smaller ${t}_k, either is fine)
	my @checks = (
		[ 'k forward', qr/Index Scan (using ${t}_k |Backward using ${t}_ks )on $t/,
			"SELECT k, id FROM $t ORDER BY k", 1 ],
		[ 'k backward', qr/Index Scan (Backward using ${t}_k |using ${t}_ks )on $t/,
			"SELECT k, id FROM $t ORDER BY k DESC", 1 ],
		[ 's forward', qr/Index Scan using ${t}_s on $t/,
			"SELECT s, id FROM $t ORDER BY s", 1 ],
		[ 's backward', qr/Index Scan Backward using ${t}_s on $t/,
			"SELECT s, id FROM $t ORDER BY s DESC", 1 ],
	);
	for (1 .. $nranges)
	{
		my $lo = int(rand(52000)) - 1000;
		my $hi = $lo + int(rand(3000));
		push @checks,
		  [ "k in [$lo, $hi]", qr/Index Scan (using ${t}_k |Backward using ${t}_ks )on $t/,
			"SELECT k, id FROM $t WHERE k >= $lo AND k <= $hi ORDER BY k", 1 ],
		  [ "k in ($lo, $hi) backward", qr/Index Scan (Backward using ${t}_k |using ${t}_ks )on $t/,
			"SELECT k, id FROM $t WHERE k > $lo AND k < $hi ORDER BY k DESC", 1 ];
	}
	my @sranges;
	for (1 .. $ntext)
	{
		my $a = sprintf('acct-%04d', int(rand(1000)));
		my $b = sprintf('acct-%04d', int(rand(1000)));
		($a, $b) = ($b, $a) if $b lt $a;
		$b .= '/8';
		push @sranges, [ $a, $b ];
		push @checks,
		  [ "s in ['$a', '$b')", qr/Index Scan using ${t}_s on $t/,
			"SELECT s, id FROM $t WHERE s >= '$a' AND s < '$b' ORDER BY s", 1 ];
	}
	if ($have{"${t}_sc"})
	{
		push @checks,
		  [ 's COLLATE "C" forward', qr/Index Scan using ${t}_sc on $t/,
			qq{SELECT s, id FROM $t ORDER BY s COLLATE "C"}, 1 ],
		  [ 's COLLATE "C" backward', qr/Index Scan Backward using ${t}_sc on $t/,
			qq{SELECT s, id FROM $t ORDER BY s COLLATE "C" DESC}, 1 ],
		  [ 's COLLATE "C" index-only', qr/Index Only Scan using ${t}_sc on $t/,
			qq{SELECT s FROM $t ORDER BY s COLLATE "C"}, 1, 1 ];
		for my $r (@sranges)
		{
			push @checks,
			  [ qq{s COLLATE "C" in ['$r->[0]', '$r->[1]')}, qr/Index Scan using ${t}_sc on $t/,
				qq{SELECT s, id FROM $t WHERE s COLLATE "C" >= '$r->[0]' AND s COLLATE "C" < '$r->[1]' ORDER BY s COLLATE "C"}, 1 ];
		}
	}
	if ($have{"${t}_ks"})
	{
		my $lo = int(rand(50000));
		my $hi = $lo + 2000;
		push @checks,
		  [ '(k DESC, s) forward', qr/Index Scan using ${t}_ks on $t/,
			qq{SELECT k, s, id FROM $t ORDER BY k DESC, s COLLATE "C"}, 2 ],
		  [ '(k DESC, s) backward', qr/Index Scan Backward using ${t}_ks on $t/,
			qq{SELECT k, s, id FROM $t ORDER BY k, s COLLATE "C" DESC}, 2 ],
		  [ "(k DESC, s) index-only, k in [$lo, $hi]", qr/Index Only Scan using ${t}_ks on $t/,
			qq{SELECT k, s, id FROM $t WHERE k BETWEEN $lo AND $hi ORDER BY k DESC, s COLLATE "C"}, 2, 1 ],
		  [ "(k DESC, s) k = ANY", qr/Index (Only )?Scan using ${t}_ks on $t/,
			qq{SELECT k, s, id FROM $t WHERE k = ANY(ARRAY[$lo, $lo + 7, $lo + 100, 1000, 20000]) ORDER BY k DESC, s COLLATE "C"}, 2, 1 ],
		  [ "(k DESC, s) second column", qr/Index (Only )?Scan using ${t}_ks on $t/,
			qq{SELECT k, s, id FROM $t WHERE k > $lo AND s COLLATE "C" >= 'acct-05' ORDER BY k DESC, s COLLATE "C"}, 2, 1 ];
	}

	if ($have{"${t}_id"})
	{
		my $lo = int(rand(40000));
		push @checks,
		  [ 'unique id forward', qr/Index Scan using ${t}_id on $t/,
			"SELECT id, k FROM $t ORDER BY id", 1 ],
		  [ "unique id in [$lo, $lo + 500] backward", qr/Index Scan Backward using ${t}_id on $t/,
			"SELECT id, k FROM $t WHERE id BETWEEN $lo AND $lo + 500 ORDER BY id DESC", 1 ],
		  [ "unique id = ANY", qr/Index Scan using ${t}_id on $t/,
			"SELECT id, k FROM $t WHERE id = ANY(ARRAY[$lo, $lo + 1, $lo + 17, $lo + 1000]) ORDER BY id", 1 ];
	}

	if ($have{"${t}_km"})
	{
		my $m = int(rand(13));
		push @checks,
		  [ "k % 13 = $m, 12 (posting leaves)", qr/Index Scan using ${t}_km on $t/,
			"SELECT k % 13, k, id FROM $t WHERE k % 13 IN ($m, 12) ORDER BY k % 13", 1 ],
		  [ "k % 13 > $m backward (posting leaves)", qr/Index Scan Backward using ${t}_km on $t/,
			"SELECT k % 13, k, id FROM $t WHERE k % 13 > $m ORDER BY k % 13 DESC", 1 ];
	}
	if ($have{"${t}_dkm"})
	{
		my $m = int(rand(7));
		push @checks,
		  [ "k % 7 = $m delta (posting leaves)", qr/Index Scan using ${t}_dkm on $t/,
			"SELECT k % 7, k, id FROM $t WHERE k % 7 = $m ORDER BY k % 7", 1 ];
	}
	if ($have{"${t}_dpk"})
	{
		my $lo = int(rand(50000));
		my $hi = $lo + 3000;
		push @checks,
		  [ '(pad, k) delta forward', qr/Index Scan using ${t}_dpk on $t/,
			qq{SELECT pad, k, id FROM $t ORDER BY pad COLLATE "C", k}, 2 ],
		  [ "(pad, k) delta backward, pad < 'load'", qr/Index Scan Backward using ${t}_dpk on $t/,
			qq{SELECT pad, k, id FROM $t WHERE pad COLLATE "C" < 'load' ORDER BY pad COLLATE "C" DESC, k DESC}, 2 ],
		  [ "(pad, k) delta index-only, k in [$lo, $hi]", qr/Index Only Scan using ${t}_dpk on $t/,
			qq{SELECT pad, k, id FROM $t WHERE pad COLLATE "C" >= 'a' AND k BETWEEN $lo AND $hi ORDER BY pad COLLATE "C", k}, 2, 1 ],
		  [ "(pad, k) delta index-only backward, k in [$lo, $hi]", qr/Index Only Scan Backward using ${t}_dpk on $t/,
			qq{SELECT pad, k, id FROM $t WHERE pad COLLATE "C" > 'e' AND k BETWEEN $lo AND $hi ORDER BY pad COLLATE "C" DESC, k DESC}, 2, 1 ],
		  [ "(pad, k) delta = ANY", qr/Index (Only )?Scan using ${t}_dpk on $t/,
			qq{SELECT pad, k, id FROM $t WHERE pad COLLATE "C" = ANY(ARRAY['ins', 'upd', 'dup', 'load', 'x', 'y']) AND k = ANY(ARRAY[$lo, $lo + 1, $lo + 7, $lo + 100, 1000, 2000, 20000]) ORDER BY pad COLLATE "C", k}, 2, 1 ];
	}
	if ($have{"${t}_dls"})
	{
		push @checks,
		  [ 'lower(s) delta forward', qr/Index Scan using ${t}_dls on $t/,
			"SELECT lower(s), id FROM $t ORDER BY lower(s)", 1 ];
		for my $r (@sranges)
		{
			push @checks,
			  [ "lower(s) delta in ['$r->[0]', '$r->[1]') backward", qr/Index Scan Backward using ${t}_dls on $t/,
				"SELECT lower(s), id FROM $t WHERE lower(s) >= '$r->[0]' AND lower(s) < '$r->[1]' ORDER BY lower(s) DESC", 1 ];
		}
	}

	# leaf groups: scans step between the subnodes of a group and check
	# its epoch; a full scan of each (one backward), ranges in both
	# directions, index-only, = ANY
	if ($have{"${t}_gk"})
	{
		my $lo = int(rand(50000));
		my $hi = $lo + 2000;
		push @checks,
		  [ '-k group backward', qr/Index Scan Backward using ${t}_gk on $t/,
			"SELECT -k, id FROM $t ORDER BY -k DESC", 1 ],
		  [ "-k group in [-$hi, -$lo]", qr/Index Scan using ${t}_gk on $t/,
			"SELECT -k, id FROM $t WHERE -k >= -$hi AND -k <= -$lo ORDER BY -k", 1 ],
		  [ "-k group index-only in (-$hi, -$lo) backward", qr/Index Only Scan Backward using ${t}_gk on $t/,
			"SELECT -k, k FROM $t WHERE -k > -$hi AND -k < -$lo ORDER BY -k DESC", 1, 1 ],
		  [ "-k group = ANY", qr/Index (Only )?Scan using ${t}_gk on $t/,
			"SELECT -k, k FROM $t WHERE -k = ANY(ARRAY[-$lo, -$lo - 1, -$lo - 9, -$lo - 500, -1000, -20000, -$hi]) ORDER BY -k", 1, 1 ];
	}
	if ($have{"${t}_gs"})
	{
		my $rs = q{reverse(s) COLLATE "C"};
		my @hex = ('0' .. '9', 'a' .. 'f');
		my ($ra, $rb) = sort { $a cmp $b } ($hex[ int(rand(16)) ] . $hex[ int(rand(16)) ],
			$hex[ int(rand(16)) ] . $hex[ int(rand(16)) ] . 'z');
		push @checks,
		  [ 'reverse(s) group forward', qr/Index Scan using ${t}_gs on $t/,
			"SELECT $rs, id FROM $t ORDER BY $rs", 1 ],
		  [ "reverse(s) group in ['$ra', '$rb')", qr/Index Scan using ${t}_gs on $t/,
			"SELECT $rs, id FROM $t WHERE $rs >= '$ra' AND $rs < '$rb' ORDER BY $rs", 1 ],
		  [ "reverse(s) group in ['$ra', '$rb') backward", qr/Index Scan Backward using ${t}_gs on $t/,
			"SELECT $rs, id FROM $t WHERE $rs >= '$ra' AND $rs < '$rb' ORDER BY $rs DESC", 1 ];
	}

	my $common = qq(SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_incremental_sort = off;
SET LOCAL enable_hashagg = off;);
	my $idx_plain = qq($common
SET LOCAL enable_seqscan = off;
SET LOCAL enable_sort = off;
SET LOCAL enable_indexscan = on;
SET LOCAL enable_indexonlyscan = off;);
	my $idx_only = qq($common
SET LOCAL enable_seqscan = off;
SET LOCAL enable_sort = off;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = on;);
	my $seq = qq($common
SET LOCAL enable_seqscan = on;
SET LOCAL enable_sort = on;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = off;);

	my $sql = "BEGIN ISOLATION LEVEL REPEATABLE READ;\n";
	for my $i (0 .. $#checks)
	{
		my ($cname, $re, $q, $nkey, $ios) = @{ $checks[$i] };
		$sql .= ($ios ? $idx_only : $idx_plain) . "\n";
		$sql .= "\\echo \@\@plan$i\nEXPLAIN (COSTS OFF) $q;\n\\echo \@\@idx$i\n$q;\n";
	}
	$sql .= "$seq\n";
	for my $i (0 .. $#checks)
	{
		$sql .= "\\echo \@\@seq$i\n$checks[$i][2];\n";
	}
	$sql .= qq(\\echo \@\@fp
SELECT count(*), md5(string_agg(id || ':' || k || ':' || s, ',' ORDER BY id)) FROM $t;
COMMIT;
);

	my ($ret, $out, $err) = $node->psql($db, $sql, on_error_stop => 1);
	if ($ret != 0)
	{
		ok(0, "$name: verification queries ran");
		diag($err);
		return undef;
	}
	my $sec = _sections($out);
	for my $i (0 .. $#checks)
	{
		my ($cname, $re, $q, $nkey, $ios) = @{ $checks[$i] };
		my $plan = join("\n", @{ $sec->{"plan$i"} // [] });
		($re = "$re") =~ s/Index Only Scan/Index Scan/g if $ios && $no_ios;
		if ($plan !~ $re)
		{
			ok(0, "$name: $cname: plan uses the index");
			diag("query: $q\nplan:\n$plan");
			next;
		}
		_compare_scan("$name: $cname", $sec->{"idx$i"} // [], $sec->{"seq$i"} // [], $nkey)
		  or diag("query: $q");
	}
	my $fp = join('', @{ $sec->{fp} // [] });
	note "$name: rows/fingerprint $fp";
	return $fp;
}

# Run $query twice in database $dbname: with only (plain or index-only)
# index scans allowed, where the plan must scan index $index (a name, or a
# regular expression that the index's name in EXPLAIN must match), and with
# only a sequential scan.  The two must return the same rows (compared as
# sorted lines) and at least one row.  Returns the number of rows.
sub pbt_index_vs_seqscan
{
	my ($node, $dbname, $query, $index) = @_;
	my $idxpat = ref $index ? $index : qr/\Q$index\E/;
	my $idxonly = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
	my $seqonly = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; '
	  . 'SET enable_bitmapscan = off;';
	my $plan = $node->safe_psql($dbname, "$idxonly EXPLAIN (COSTS OFF) $query");
	like($plan, qr/Index (?:Only )?Scan (?:Backward )?using $idxpat\b/,
		"$dbname: the plan of <$query> scans $index");
	my @got  = sort split /\n/, $node->safe_psql($dbname, "$idxonly $query");
	my @want = sort split /\n/, $node->safe_psql($dbname, "$seqonly $query");
	ok(@want > 0, "$dbname: <$query> returns rows");
	is_deeply(\@got, \@want, "$dbname: <$query>: the index scan returns what a sequential scan does ("
		  . scalar(@want) . " rows)");
	return scalar(@want);
}

# The member objects of the extension pagebtree in database $dbname, one
# line each, sorted: what pg_describe_object says of every object that
# pg_depend lists as a member, and for functions also their arguments,
# result, language, source, volatility, parallel safety, strictness and
# access privileges, and the comments on the members.
sub pbt_extension_objects
{
	my ($node, $dbname) = @_;
	return $node->safe_psql(
		$dbname, q{
SELECT pg_describe_object(d.classid, d.objid, d.objsubid)
       || coalesce(' | ' || pg_get_function_arguments(p.oid)
                   || ' | ' || pg_get_function_result(p.oid)
                   || ' | ' || l.lanname || ' | ' || p.prosrc
                   || ' | ' || p.provolatile::text || p.proparallel::text || p.proisstrict::text
                   || ' | ' || coalesce(p.proacl::text, 'default acl'), '')
       || coalesce(' | comment: ' || obj_description(d.objid, d.classid::regclass::name), '')
FROM pg_depend d
LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
LEFT JOIN pg_language l ON l.oid = p.prolang
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pagebtree')
  AND d.deptype = 'e'
ORDER BY 1});
}

# Stop the server process $pid at a breakpoint for $seconds (gdb -p):
# $break is the gdb breakpoint command, e.g. 'break pbt_side_run_set', or
# a list of commands (a breakpoint and, say, 'ignore 1 1').  Returns the
# gdb handle and a reference to its output once gdb is waiting at the
# breakpoint's "continue" (the caller makes the process reach it and pumps
# until the output says HIT), or (undef, reason) where gdb cannot stop the
# process.
sub pbt_gdb_pause
{
	my ($pid, $break, $seconds) = @_;
	my ($out, $err) = ('', '');
	my @break = map { ('-ex', $_) } (ref $break ? @$break : ($break));
	my $gdb = IPC::Run::start(
		[
			'gdb', '-p', $pid, '-batch', '-nx', @break,
			'-ex', 'echo READY\n',
			'-ex', 'continue',
			'-ex', 'echo HIT\n',
			'-ex', "shell sleep $seconds",
			'-ex', 'detach'
		],
		'<', \undef, '>', \$out, '2>', \$err);
	my $deadline = time + 60;
	$gdb->pump while $out !~ /READY|No symbol|not permitted/ && time < $deadline;
	if ($out !~ /READY/ || $out =~ /No symbol|not permitted|pending/i)
	{
		$gdb->kill_kill;
		return (undef, "gdb cannot stop process $pid: $out $err");
	}
	return ($gdb, \$out);
}

# pbt_gdb_pause for $standby's startup process.
sub pbt_pause_redo
{
	my ($standby, $break, $seconds) = @_;
	my $startup = $standby->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'startup'});
	return pbt_gdb_pause($startup, $break, $seconds);
}

1;
