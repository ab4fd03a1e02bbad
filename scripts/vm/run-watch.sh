# SPDX-License-Identifier: GPL-2.0
# scripts/vm-run, part 3 of 4: QEMU runs; the guest's output is streamed
# here as it comes, its stages logged, and QEMU killed at --timeout, at
# --stall, or when the guest never reaches vm-init (exit 124 or 126). Sets
# qrc (QEMU's status), el (seconds) and s (the guest's last stage).
# shellcheck shell=bash disable=SC2034,SC2154 # variables shared by the parts

"${qemu[@]}" </dev/null >"$rd/qemu.log" 2>&1 &
qpid=$!
# Never leave a VM behind, whatever ends this script.
trap 'kill "$qpid" 2>/dev/null || true' EXIT
trap 'kill "$qpid" 2>/dev/null || true; cqn_log "vm-run: interrupted"; exit 130' INT TERM

# stream: copy what the guest appended to output.log since the last call
# (and note when it last did, for --stall).
off=0
last_output=$(date +%s)
stream()
{
	local size

	[ -f "$rd/output.log" ] || return 0
	size=$(stat -c %s "$rd/output.log")
	[ "$size" -gt "$off" ] || return 0
	tail -c +$((off + 1)) "$rd/output.log" | head -c $((size - off))
	off=$size
	last_output=$(date +%s)
}

# The guest appends "STAGE UPTIME" lines to "stage": setup, running, gate, done.
cur_stage()
{
	local s

	s=$(tail -n 1 "$rd/stage" 2>/dev/null | cut -d' ' -f1)
	echo "${s:-booting}"
}

start=$(date +%s)
stage=booting
init_at="?"
boot_timeout=300
next_progress=30
timed_out=0
while kill -0 "$qpid" 2>/dev/null; do
	stream
	el=$(($(date +%s) - start))
	s=$(cur_stage)
	if [ "$s" != "$stage" ]; then
		[ "$stage" != booting ] || init_at=$el
		stage=$s
		cqn_log "vm-run: $stage (${el} s)"
	fi
	if [ "$el" -ge "$next_progress" ]; then
		cqn_log "vm-run: still $stage, ${el} s elapsed"
		next_progress=$((next_progress + 30))
	fi
	# A guest that never reaches vm-init (no root file system, no
	# interrupts for virtio) would otherwise sit out the whole --timeout.
	if [ "$stage" = booting ] && [ "$el" -ge "$boot_timeout" ] && [ "$el" -lt "$timeout" ]; then
		timed_out=boot
	elif [ "$el" -ge "$timeout" ]; then
		timed_out=1
	elif [ "$stall" -gt 0 ] && [ "$stage" = running ] &&
	     [ $(($(date +%s) - last_output)) -ge "$stall" ]; then
		timed_out=stall
	fi
	if [ "$timed_out" != 0 ]; then
		kill "$qpid" 2>/dev/null || true
		for _ in 1 2 3 4 5; do
			kill -0 "$qpid" 2>/dev/null || break
			sleep 1
		done
		kill -9 "$qpid" 2>/dev/null || true
		break
	fi
	sleep 1
done
qrc=0
wait "$qpid" || qrc=$?
trap - EXIT INT TERM
stream
el=$(($(date +%s) - start))
s=$(cur_stage)

console_tail()
{
	echo "vm-run: last 40 lines of $rd/console.log:" >&2
	tail -n 40 "$rd/console.log" 2>/dev/null | sed 's/^/  /' >&2
}

if [ "$timed_out" = boot ]; then
	console_tail
	fail "the guest did not reach vm-init in $boot_timeout s, killed QEMU"
elif [ "$timed_out" = 1 ]; then
	cqn_log "vm-run: TIMEOUT: killed QEMU after $timeout s (stage $s)"
	console_tail
	exit 124
elif [ "$timed_out" = stall ]; then
	cqn_log "vm-run: TIMEOUT: the command printed nothing for $stall s (a hung guest?), killed QEMU after $el s"
	echo "not ok - vm-run: the guest was silent for $stall s during: $(tail -n 1 "$rd/output.log" 2>/dev/null)"
	console_tail
	exit 124
fi
if [ "$qrc" != 0 ] && [ "$s" = booting ]; then
	sed 's/^/  /' "$rd/qemu.log" >&2
	fail "QEMU exited with status $qrc before the guest started"
fi
# Per-stage times from the guest's uptime stamps.
summary=$(awk '{ t[$1] = $2 }
	END {
		printf "boot %.1f s", t["setup"]
		if ("running" in t) printf ", setup %.1f s", t["running"] - t["setup"]
		if ("gate" in t) printf ", command %.1f s", t["gate"] - t["running"]
		if ("done" in t) printf ", gate %.1f s", t["done"] - t["gate"]
	}' "$rd/stage" 2>/dev/null || echo "boot ?")
cqn_log "vm-run: guest finished after $el s (vm-init after $init_at s; guest uptime: $summary)"
