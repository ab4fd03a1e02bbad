#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the cqnotify KUnit suites (cqnotify_test.ko) and the moderating rxe's
# (rxe_cq_moder_test.ko) in the debug kernel and turn their KTAP results
# into one line per test case.
. "$(dirname "$0")/lib.sh"

# Parse one suite's KTAP on stdin: case lines sit at one level of
# indentation (4 spaces); parameterised sub-cases at two levels, and the
# first failed expectation of a case, are reported on failure. Exit status
# 2: fewer cases than planned.
kunit_parse()
{
	awk -v suite="$1" -v k="kunit@$CQN_KLABEL: " '
		/^        not ok [0-9]+ / { sub(/^ +not ok [0-9]+ /, ""); bad = bad " [" $0 "]"; next }
		/^ +# [A-Za-z0-9_]+: (EXPECTATION|ASSERTION) FAILED at / {
			if (why == "") { why = $0; sub(/^ +# /, "", why) }
			next
		}
		/^    (not )?ok [0-9]+ / {
			ok = ($1 == "ok")
			name = $0; sub(/^ +(not )?ok [0-9]+ /, "", name)
			if (ok) print "ok - " k suite "." name
			else { print "not ok - " k suite "." name bad (why == "" ? "" : " (" why ")"); fails++ }
			bad = ""; why = ""; cases++
		}
		/^    1\.\.[0-9]+/ { plan = substr($1, 4) }
		END {
			if (cases == 0 || cases != plan) {
				print "not ok - " k suite ": ran " cases " of " plan " planned cases"
				exit 2
			}
			exit fails > 0
		}'
}

# The suite's part of the kernel log: from its "# Subtest:" line to its
# own result line.
kunit_klog()
{
	dmesg -t | awk -v s="$1" '
		$0 ~ "^ *# Subtest: " s "$" { on = 1; next }
		on && $0 ~ "^(not )?ok [0-9]+ " s "$" { exit }
		on { print }'
}

# One suite's results, from debugfs. 6.1 keeps 512 bytes of log per case:
# a failing case with many messages loses its result line there (and takes
# the next case's with it), so when debugfs holds fewer cases than planned
# the kernel log, which has every line, is read instead.
kunit_report()
{
	local suite=$1 results=/sys/kernel/debug/kunit/$1/results out rc

	if [ ! -r "$results" ]; then
		echo "not ok - kunit@$CQN_KLABEL: $suite: no results in debugfs (suite did not run)"
		return 1
	fi
	out=$(kunit_parse "$suite" <"$results")
	rc=$?
	if [ $rc = 2 ]; then
		echo "# $suite: debugfs holds fewer cases than planned (a case's log overflowed); reading the kernel log"
		out=$(kunit_klog "$suite" | kunit_parse "$suite")
		rc=$?
	fi
	echo "$out"
	[ $rc = 0 ]
}

[ -d /sys/kernel/debug/kunit ] || { echo "not ok - kunit@$CQN_KLABEL: this kernel has no KUnit debugfs"; exit 1; }
insmod "$CQN_KO_DIR/cqnotify_configfs.ko" && insmod "$CQN_KO_DIR/cqnotify.ko" ||
	{ echo "not ok - kunit@$CQN_KLABEL: insmod cqnotify_configfs.ko cqnotify.ko"; exit 1; }
if ! insmod "$CQN_KO_DIR/cqnotify_test.ko"; then
	echo "not ok - kunit@$CQN_KLABEL: insmod cqnotify_test.ko"
	rmmod cqnotify cqnotify_configfs
	exit 1
fi
rc=0
n=0
for s in /sys/kernel/debug/kunit/cqnotify_*; do
	kunit_report "$(basename "$s")" || rc=1
	n=$((n + 1))
done
# One suite per kunit/*_test.c: a suite missing from the module (a Kbuild
# or kunit_test_suites() slip) is a failure, not a smaller run.
want=$(find "$CQN_TOP/kunit" -name '*_test.c' | wc -l)
if [ "$n" -ne "$want" ]; then
	echo "not ok - kunit@$CQN_KLABEL: $n suites ran, $want expected (one per kunit/*_test.c)"
	rc=1
fi
rmmod cqnotify_test && rmmod cqnotify && rmmod cqnotify_configfs || { echo "not ok - kunit@$CQN_KLABEL: unloading the test modules"; rc=1; }

# The moderating rxe's own KUnit suite (scripts/rxe-patches/, patch 0002:
# its moderation decisions, header-only, so the module needs no rxe).
# scripts/build-rxe debug builds it beside the patched rdma_rxe.ko.
rxe_test=$CQN_TOP/build/rxe-debug/rxe_cq_moder_test.ko
if [ ! -f "$rxe_test" ]; then
	echo "not ok - kunit@$CQN_KLABEL: $rxe_test missing: run scripts/build-rxe debug on the host"
	rc=1
elif ! insmod "$rxe_test"; then
	echo "not ok - kunit@$CQN_KLABEL: insmod rxe_cq_moder_test.ko"
	rc=1
else
	kunit_report rxe_cq_moder || rc=1
	rmmod rxe_cq_moder_test || { echo "not ok - kunit@$CQN_KLABEL: unloading rxe_cq_moder_test"; rc=1; }
fi
exit $rc
