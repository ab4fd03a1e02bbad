#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the cqnotify KUnit suites (cqnotify_test.ko) in the debug kernel and turn
# their KTAP results into one line per test case.
. "$(dirname "$0")/lib.sh"

# Parse one suite's debugfs KTAP: case lines sit at one level of indentation
# (4 spaces); parameterised sub-cases at two levels are reported on failure.
kunit_report()
{
	local suite=$1 results=/sys/kernel/debug/kunit/$1/results

	if [ ! -r "$results" ]; then
		echo "not ok - kunit: $suite: no results in debugfs (suite did not run)"
		return 1
	fi
	awk -v suite="$suite" '
		/^        not ok [0-9]+ / { sub(/^ +not ok [0-9]+ /, ""); bad = bad " [" $0 "]"; next }
		/^    (not )?ok [0-9]+ / {
			ok = ($1 == "ok")
			name = $0; sub(/^ +(not )?ok [0-9]+ /, "", name)
			if (ok) print "ok - kunit: " suite "." name
			else { print "not ok - kunit: " suite "." name bad; fails++ }
			bad = ""; cases++
		}
		/^    1\.\.[0-9]+/ { plan = substr($1, 4) }
		END {
			if (cases == 0 || cases != plan) {
				print "not ok - kunit: " suite ": ran " cases " of " plan " planned cases"
				fails++
			}
			exit fails > 0
		}' "$results"
}

[ -d /sys/kernel/debug/kunit ] || { echo "not ok - kunit: this kernel has no KUnit debugfs"; exit 1; }
insmod "$CQN_KO_DIR/cqnotify_configfs.ko" && insmod "$CQN_KO_DIR/cqnotify.ko" ||
	{ echo "not ok - kunit: insmod cqnotify_configfs.ko cqnotify.ko"; exit 1; }
if ! insmod "$CQN_KO_DIR/cqnotify_test.ko"; then
	echo "not ok - kunit: insmod cqnotify_test.ko"
	rmmod cqnotify cqnotify_configfs
	exit 1
fi
rc=0
for s in /sys/kernel/debug/kunit/cqnotify_*; do
	kunit_report "$(basename "$s")" || rc=1
done
rmmod cqnotify_test && rmmod cqnotify && rmmod cqnotify_configfs || { echo "not ok - kunit: unloading the test modules"; rc=1; }
exit $rc
