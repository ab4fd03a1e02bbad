# SPDX-License-Identifier: GPL-2.0
# scripts/vm-run, part 4 of 4: the gate. The run fails (exit 125) on a
# kernel splat, a kmemleak report (naming the test that allocated it) or a
# bad taint flag, and on a guest that died; else it exits with the
# command's own status.
# shellcheck shell=bash disable=SC2154 # variables set by the earlier parts

# The gate.
gate_failed=0
gate_fail()
{
	echo "vm-run: GATE FAILED: $*" >&2
	gate_failed=1
}

rc=$(cat "$rd/rc" 2>/dev/null || true)
if [ -z "$rc" ]; then
	gate_fail "the guest died before the command finished (no $rd/rc)"
	console_tail
elif [ "$rc" != setup-failed ] && [ ! -f "$rd/tainted.txt" ]; then
	gate_fail "the guest died during the gate (no tainted.txt)"
	console_tail
fi

# CQN_SPLAT_RE and CQN_TAINT_OK, the same as each test's own gate
. "$CQN_TOP/scripts/gate.sh"
# dmesg.txt is the complete log of a guest that lived; console.log is what
# is left when it did not (or when the log buffer wrapped). vm-init's own
# lines on the console are not the kernel's.
for f in dmesg.txt console.log; do
	[ -f "$rd/$f" ] || continue
	klog=$(grep -v '^vm-init:' "$rd/$f" || true)
	grep -qE "$CQN_SPLAT_RE" <<<"$klog" || continue
	gate_fail "kernel splat in $f: $(grep -oE "$CQN_SPLAT_RE" <<<"$klog" | sort -u | paste -sd, | sed 's/,/, /g')"
	grep -E -B 3 -A 15 "$CQN_SPLAT_RE" <<<"$klog" | head -n 100 | sed 's/^/  /' >&2
	break
done

# kmemleak_dates: one line per reported object, "TEST<tab>WHAT", TEST
# being the test (from the guest's test-windows.txt) during which it was
# allocated. kmemleak gives each object's allocation time in jiffies; the
# guest's clock and jiffies read together at the gate (kmemleak-clock.txt)
# and the kernel's HZ put it on the clock of the test windows.
kmemleak_dates()
{
	local clock hz

	clock=$(cat "$rd/kmemleak-clock.txt" 2>/dev/null) || clock=
	hz=$(sed -n 's/^CONFIG_HZ=//p' "$kconfig" 2>/dev/null) || hz=
	awk -v clock="$clock" -v hz="$hz" -v wfile="$rd/test-windows.txt" '
		BEGIN {
			split(clock, c, " ")
			while ((getline line < wfile) > 0) {
				n++
				split(line, f, " ")
				ws[n] = f[1]; we[n] = f[2]
				wn[n] = substr(line, length(f[1]) + length(f[2]) + 3)
			}
		}
		/^unreferenced object / { obj = $3 " " $4 " " $5; sub(/:$/, "", obj) }
		/^  comm "/ && obj != "" {
			who = $0
			sub(/^  comm /, "", who)
			sub(/, jiffies .*/, "", who)
			test = "outside any test window"
			if (c[2] != "" && hz > 0 && match($0, /jiffies [0-9]+/)) {
				at = c[1] - (c[2] - substr($0, RSTART + 8, RLENGTH - 8)) / hz
				for (i = 1; i <= n; i++) {
					if (at >= ws[i] && at <= we[i])
						test = wn[i]
					else if (at > we[i] && (i == n || at < ws[i + 1]))
						test = "after " wn[i] " (between tests)"
				}
				who = who sprintf(", at %.2f s", at)
			}
			printf "%s\t%s by %s\n", test, obj, who
			obj = ""
		}' "$rd/kmemleak.txt"
}

if [ -s "$rd/kmemleak.txt" ]; then
	dates=$(kmemleak_dates)
	gate_fail "kmemleak: $(grep -c '^unreferenced object' "$rd/kmemleak.txt") unreferenced object(s), suspected memory leak, allocated during: $(cut -f1 <<<"$dates" | sort | uniq -c | sed 's/^ *\([0-9]*\) \(.*\)/\2 (\1)/' | paste -sd';' | sed 's/;/; /g')"
	sed 's/\t/: /; s/^/  /' <<<"$dates" | head -n 20 >&2
	# The test named gets a failing line of its own in the TAP stream.
	cut -f1 <<<"$dates" | sort -u | grep -v -e '^outside any test window$' -e '^after .* (between tests)$' |
		sed 's/$/: kmemleak: memory allocated during this test leaked (VM gate)/; s/^/not ok - /'
	head -n 60 "$rd/kmemleak.txt" | sed 's/^/  /' >&2
fi

if [ -f "$rd/tainted.txt" ]; then
	taint=$(cat "$rd/tainted.txt")
	bad=$((taint & ~CQN_TAINT_OK))
	if [ "$bad" != 0 ]; then
		letters=PFSRMBUDAWCIOELKXTN
		flags=
		for ((i = 0; i < ${#letters}; i++)); do
			[ $((bad >> i & 1)) = 0 ] || flags+=${letters:i:1}
		done
		gate_fail "kernel tainted $taint, bad flags: $flags (mask $bad)"
	fi
fi

if [ "$gate_failed" = 1 ]; then
	cqn_log "vm-run: exit 125 (gate failed); results in $rd"
	exit 125
fi
if [ "$rc" = setup-failed ]; then
	sed 's/^/  /' "$rd/init.log" >&2
	fail "guest setup failed before the command ran; results in $rd"
fi
cqn_log "vm-run: command exited with status $rc, gate passed; results in $rd"
exit "$rc"
