#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/cqnotifyctl against the real module (a server on rxe0 at 10.77.0.1,
# clients on rxe1), its one-line errors, save/restore, run and top; and the
# module's interfaces made for it: configfs "attributes" and "reset", the
# raw debugfs "histograms", the endpoint names mkdir refuses. (The install
# path, DKMS, is scripts/tests/dkms.sh, on the host.)
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	without_module
	server_client
	readable_errors
	save_restore
	reserved_names
	attributes_described
	reset_attribute
	run_line
	top_intervals
	abi_documented
	rdma_res_joined
	compare_side_by_side
"
CTL=$CQN_TOP/tools/cqnotifyctl
ADDR=10.77.0.1
# Iterations stay small: the debug kernel under TCG moves ~1000 messages/s.
ITER=${CQN_TEST_ITERATIONS:-200}
[ "$CQN_KERNEL" = debug ] && ITER=${CQN_TEST_ITERATIONS:-100}
# Every process start costs most of a second in the VM under TCG, a python
# one several: the tests call cqnotifyctl only as often as they must, and
# read configfs with bash's $(<file).

# ctl ARGS...: cqnotifyctl must succeed.
ctl()
{
	"$CTL" "$@" || fail "cqnotifyctl $* exited $?"
}

# ctl_fail REGEX ARGS...: cqnotifyctl must exit 1 with exactly one line on
# stderr (no traceback) that matches REGEX.
ctl_fail()
{
	local re=$1 err rc

	shift
	err=$("$CTL" "$@" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 1 ] || { fail "cqnotifyctl $*: exit $rc, expected 1 (stderr: $err)"; return 1; }
	[ "$(wc -l <<<"$err")" -eq 1 ] || { fail "cqnotifyctl $*: not one line: $err"; return 1; }
	expect_match "$err" "$re" "error of cqnotifyctl $*"
}

# pycheck WHAT PYTHON [ARG...]: a python snippet that prints "ok" when the
# check passes and anything else (the reason) when it does not.
pycheck()
{
	local what=$1 code=$2 out

	shift 2
	out=$(python3 -IS -c "$code" "$@" 2>&1)
	[ "$out" = ok ] || fail "$what: $out"
}

attr()
{
	echo "$(<"$CQN_CFS/endpoints/$1/$2")"
}

setup()
{
	cqn_load || return 1
	ep_remove $(ls "$CQN_CFS/endpoints")
}

without_module()
{
	local out cmd

	cqn_unload || return 1
	ctl_fail "^cqnotifyctl: .*cqnotify not found: is the cqnotify module loaded" list || return 1
	out=$(ctl --help) || return 1
	for cmd in create enable disable remove set get list stats watch save restore devices \
		run top compare; do
		expect_match "$out" "^    $cmd " "--help lists $cmd" || return 1
	done
	expect_match "$out" "^    attributes\$" "--help lists attributes" || return 1
	# Without the module --help still works and says where the table went.
	expect_match "$(ctl create --help)" "^attributes: load cqnotify_configfs to list them" \
		"create --help without the module" || return 1
	ctl_fail "^cqnotifyctl: .*cqnotify not found: is the cqnotify module loaded" attributes
}

# A server and a client through cqnotifyctl only; stats, list, watch.
server_client()
{
	local ep=$CQN_CFS/endpoints out

	setup || return 1
	ctl create srv --role server --addr $ADDR --port 7471 --send-depth 32 || return 1
	ctl set srv cq_mode poll || return 1
	ctl enable srv --wait || return 1
	ctl create cli --role client --addr $ADDR --workload stream --queue-depth 8 \
		--set iterations="$ITER" --enable || return 1
	expect_eq "$(attr srv cq_mode) $(attr srv send_depth) $(attr cli queue_depth)" \
		"poll 32 8" "attributes written by create and set" || return 1
	ctl wait cli "done" --timeout 120 || return 1
	# A fault knob set to a value of its own, to be read back labelled.
	expect_write "$CQN_DFS/cli/fault_rnr_retry" 3 || return 1
	# -j before the command, as rdma -j has it; the human latency file
	# beside it, for the raw histogram to be checked against.
	ctl -j stats cli >/tmp/cqn-stats.json || return 1
	cp "$CQN_DFS/cli/latency" /tmp/cqn-latency.txt
	pycheck "stats --json" 'import json, re, sys
d = json.load(open(sys.argv[1]))
s, h = d["stats"], d["histograms"]
n = int(sys.argv[2])
rtt = h["rtt"]
bad = []
if not (d["state"] == "done" and s["msgs_verified"] == n and s["msg_errors"] == 0):
    bad.append("msgs_verified %s, msg_errors %s, state %s" %
               (s["msgs_verified"], s["msg_errors"], d["state"]))
if sorted(h) != ["cq_arm", "cq_batch", "cq_delay", "cq_proc", "rtt"]:
    bad.append("histograms %s" % sorted(h))
if d["fault_knobs"] != {"fault_cq_undersize": 0, "fault_drain_short": 0,
                        "fault_rnr_retry": 3, "fault_stop_replenish": 0}:
    bad.append("fault_knobs %s" % d["fault_knobs"])
b = rtt["buckets"]
# Raw: every bucket, empty ones too, contiguous from 0, in ns.
if not (rtt["unit"] == "ns" and len(b) == 368 and b[0]["low"] == 0 and
        all(x["high"] == y["low"] for x, y in zip(b, b[1:])) and
        rtt["samples"] == n == sum(x["count"] for x in b)):
    bad.append("raw rtt: unit %s, %d buckets, samples %s" % (rtt["unit"], len(b), rtt["samples"]))
# The same buckets as the human latency file (ranges in us, 3 decimals).
human = [(round(float(m[0]) * 1000), round(float(m[1]) * 1000), int(m[2]))
         for m in re.findall(r"^ *([0-9.]+) +([0-9.]+) +([0-9]+) ", open(sys.argv[3]).read(), re.M)]
raw = [(x["low"], x["high"], x["count"]) for x in b if x["count"]]
if human != raw:
    bad.append("raw rtt %s, latency file %s" % (raw[:3], human[:3]))
print("; ".join(bad) or "ok")' /tmp/cqn-stats.json "$ITER" /tmp/cqn-latency.txt || return 1
	out=$(ctl stats cli) || return 1
	expect_match "$out" "^  msgs_verified +$ITER\$" "stats: msgs_verified" || return 1
	expect_match "$out" "^round trips\$" "stats: groups" || return 1
	# Every counter has a group of its own: none falls into "other".
	! grep -q '^other$' <<<"$out" || { fail "stats: counters in 'other': $out"; return 1; }
	expect_match "$out" "^  fault_rnr_retry +3 " "stats: a fault knob, labelled" || return 1
	expect_match "$out" "^round-trip time: $ITER samples, p50 [0-9.]+, p99 " \
		"stats: histogram title" || return 1
	expect_match "$out" "[0-9] us +[0-9,]+ +[0-9.]+% +#+\$" "stats: histogram bars" || return 1
	# The bars fit the terminal: asked of the terminal itself (a pty of
	# 60 columns, COLUMNS unset), and COLUMNS when it is set.
	out=$(env -u COLUMNS script -qec "stty cols 60 rows 20; $CTL stats cli" /dev/null) ||
		{ fail "stats on a pty: $out"; return 1; }
	out=${out//$'\r'/}
	expect_match "$out" "#\$" "stats on a pty: bars" || return 1
	expect_eq "$(awk 'length > 60 && /#$/' <<<"$out" | head -n 3)" "" \
		"stats on a 60-column terminal: bar lines within 60 columns" || return 1
	out=$(COLUMNS=70 "$CTL" stats cli) || return 1
	expect_eq "$(awk 'length > 70 && /#$/' <<<"$out" | head -n 3)" "" \
		"stats with COLUMNS=70: bar lines within 70 columns" || return 1
	# A server's stats too (its connection table, no "other" either).
	out=$(ctl stats srv) || return 1
	! grep -q '^other$' <<<"$out" || { fail "server stats: counters in 'other': $out"; return 1; }
	# get shows every readable file of the directory (attributes are
	# discovered; the write-only reset is an action, not a value).
	out=$(ctl get srv) || return 1
	expect_eq "$(awk '{ print $1 }' <<<"$out" | sort | paste -sd' ')" \
		"$(find "$ep/srv" -type f -perm /444 -printf '%f\n' | sort | paste -sd' ')" \
		"attributes shown by get" || return 1
	expect_match "$out" "^cq_mode +poll\$" "get: cq_mode" || return 1
	out=$(ctl list) || return 1
	expect_match "$out" "^cli +client +done +1 +$ADDR:7471 " "list: client" || return 1
	pycheck "-j list" 'import json, sys
d = {e["name"]: e["state"] for e in json.load(sys.stdin)}
print("ok" if d == {"cli": "done", "srv": "running"} else d)' <<<"$(ctl -j list)" || return 1
	expect_match "$out" "^srv +server +running +1 +$ADDR:7471 +poll" "list: server" || return 1
	expect_match "$(ctl devices)" "^rxe1 +ib_ca " "devices" || return 1
	# watch: per-second rates of a server under a client's stream (one
	# that runs until it is removed).
	ctl create cli2 --role client --addr $ADDR --workload stream --iterations 0 \
		--duration-ms 0 || return 1
	ctl enable cli2 --wait || return 1
	out=$(ctl watch srv --interval 1 --count 2) || return 1
	expect_eq "$(grep -c '^srv: server, running ' <<<"$out")" 2 "watch: two samples" || return 1
	expect_match "$out" "^  msgs_received +[0-9,]+ +[0-9,]*[1-9][0-9,]*\.[0-9]/s\$" \
		"watch: a rate" || return 1
	expect_match "$out" "^  conns_active +[0-9]+\$" "watch: a level, not a rate" || return 1
	ctl remove cli cli2 srv
}

readable_errors()
{
	setup || return 1
	ctl create srv --role server --addr $ADDR --port 7472 --enable || return 1
	ctl_fail "^cqnotifyctl: set srv port: Device or resource busy \(endpoint is enabled" \
		set srv port 7000 || return 1
	# enable refused by a rule: the reason from last_error, the endpoint stays.
	ctl_fail "^cqnotifyctl: create t enable: Invalid argument \(last_error: cq_depth 100 < send_depth \+ recv_depth \+ 1 = 129\)$" \
		create t --cq-depth 100 --enable || return 1
	expect_eq "$(attr t enable) $(attr t cq_depth)" "0 100" "t after the failed enable" || return 1
	# A value refused by the parser: nothing half-made is left.
	ctl_fail "^cqnotifyctl: create bad port: Numerical result out of range$" \
		create bad --role client --port 0 || return 1
	[ ! -e "$CQN_CFS/endpoints/bad" ] || { fail "a failed create left 'bad' behind"; return 1; }
	ctl_fail "^cqnotifyctl: nosuch: no such endpoint$" get nosuch || return 1
	ctl remove srv t
}

save_restore()
{
	local f1=/tmp/cqn-save1.json f2=/tmp/cqn-save2.json f3=/tmp/cqn-save3.json
	local ep=$CQN_CFS/endpoints

	setup || return 1
	ctl create srv --role server --addr $ADDR --port 7473 --cq-mode poll --enable || return 1
	# Sorts before srv: restore must still enable the server first.
	ctl create a-cli --role client --addr $ADDR --port 7473 --iterations 50 || return 1
	ctl save $f1 || return 1
	# Check the file; f3: the same with a-cli enabled, and an endpoint with
	# an attribute the module does not have.
	pycheck "save file" 'import json, sys
d = json.load(open(sys.argv[1]))
e = d["endpoints"]
ok = (sorted(e) == ["a-cli", "srv"] and e["srv"]["enable"] == "1" and
      list(e["srv"])[-1] == "enable" and e["srv"]["cq_mode"] == "poll" and
      e["a-cli"]["iterations"] == "50" and "state" not in e["srv"])
e["a-cli"]["enable"] = "1"
e["junk"] = {"no_such_attr": "1"}
json.dump(d, open(sys.argv[2], "w"))
print("ok" if ok else json.dumps(d))' $f1 $f3 || return 1
	# Change things, restore, save again: the same file.
	printf 0 >"$ep/srv/enable" && printf 7000 >"$ep/srv/port" && mkdir "$ep/extra" ||
		{ fail "changing the endpoints"; return 1; }
	ctl restore $f1 || return 1
	[ ! -e "$ep/extra" ] || { fail "restore kept 'extra'"; return 1; }
	expect_eq "$(attr srv state) $(attr srv port)" "running 7473" "srv after restore" || return 1
	ctl save $f2 || return 1
	cmp -s $f1 $f2 || { fail "save, restore, save differ: $(diff $f1 $f2)"; return 1; }
	# The error is reported and fails the restore, the rest is restored;
	# enable is written last and servers first: the client finishes.
	ctl_fail "^cqnotifyctl: restore junk no_such_attr: no such attribute" restore $f3 || return 1
	ep_wait_state a-cli "done" 60 || return 1
	expect_eq "$(ep_stat a-cli msgs_verified) $(attr junk enable)" "50 0" \
		"endpoints after a restore with an error" || return 1
	ctl clear || return 1
	expect_eq "$(ls "$ep" | wc -l)" 0 "endpoints after clear"
}

# Names mkdir refuses (the kernel and the tool), and the debugfs directory
# the tool reads: <debugfs>/<name>, even with endpoints named "endpoints"
# and "conns" around (endpoints/conns would be another directory).
reserved_names()
{
	local err

	setup || return 1
	if mkdir "$CQN_CFS/endpoints/devices" 2>/tmp/cqn-mkdir.err; then
		fail "mkdir endpoints/devices succeeded"
		return 1
	fi
	expect_match "$(</tmp/cqn-mkdir.err)" "Invalid argument" "mkdir devices: the error" || return 1
	[ -f "$CQN_DFS/devices" ] && expect_match "$(<"$CQN_DFS/devices")" "^rxe0 " \
		"debugfs devices after the refused mkdir" || return 1
	cqn_klog_read
	cqn_klog_match 0 "cqnotify: endpoint name 'devices' refused"
	[ "$KLOG_NMATCH" -ge 1 ] || { fail "no kernel message for the refused name"; return 1; }
	ctl_fail "^cqnotifyctl: 'devices' cannot name an endpoint: .*/devices is a file of the module$" \
		create devices --role server || return 1
	[ ! -e "$CQN_CFS/endpoints/devices" ] || { fail "endpoints/devices exists"; return 1; }
	ctl create endpoints --role client --addr $ADDR || return 1
	ctl create conns --role server --addr $ADDR --port 7479 --enable || return 1
	err=$(ctl stats conns 2>&1) || { fail "stats conns: $err"; return 1; }
	expect_match "$err" "^conns: server, running" "stats conns: its own directory" || return 1
	ctl remove endpoints conns
}

# configfs "attributes" describes every attribute as the module enforces
# it: the same names as an endpoint's directory, in its order; a new
# endpoint's value is the default; u32 ranges hold at both ends (min and max
# taken, one beyond each -ERANGE), bools take 0 and 1 and refuse 2, choices
# take each listed name; on an enabled endpoint the live ones take a write
# and the others are -EBUSY. --help shows the same table.
attributes_described()
{
	local d=$CQN_CFS/endpoints/a name kind values dflt live lo hi v cur names=() n=0

	setup || return 1
	ep_create a || return 1
	while read -r name kind values dflt live; do
		names+=("$name")
		n=$((n + 1))
		[ "$dflt" = - ] || expect_eq "$(ep_attr a "$name")" "$dflt" "default of $name" ||
			return 1
		case $kind in
		u32)
			lo=${values%..*} hi=${values#*..}
			expect_write "$d/$name" "$hi" || return 1
			expect_write "$d/$name" "$lo" || return 1
			expect_write_err "$d/$name" $((hi + 1)) "Numerical result out of range" ||
				return 1
			[ "$lo" = 0 ] || expect_write_err "$d/$name" $((lo - 1)) \
				"Numerical result out of range" || return 1
			expect_eq "$(ep_attr a "$name")" "$lo" "$name after the refused writes" ||
				return 1
			expect_write "$d/$name" "$dflt" || return 1
			;;
		bool)
			[ "$values" = 0..1 ] || { fail "$name: bool values '$values'"; return 1; }
			if [ "$name" != enable ]; then
				expect_write "$d/$name" 1 && expect_write "$d/$name" 0 || return 1
				expect_write "$d/$name" "$dflt" || return 1
			fi
			expect_write_err "$d/$name" 2 "Invalid argument" || return 1
			;;
		choice)
			for v in ${values//|/ }; do
				expect_write "$d/$name" "$v" || return 1
				expect_eq "$(ep_attr a "$name")" "$v" "$name after writing $v" || return 1
			done
			expect_write_err "$d/$name" nosuch "Invalid argument" || return 1
			expect_write "$d/$name" "$dflt" || return 1
			;;
		read-only)
			expect_write_err "$d/$name" 1 "Permission denied|Invalid argument|Input/output" ||
				return 1
			;;
		esac
	done <"$CQN_CFS/attributes"
	expect_eq "${names[*]}" "$(ls -U "$d" | tac | paste -sd' ')" \
		"attributes lists the directory's files, in the module's order" || return 1
	# Enabled (a server, no connection): live writes go through, the rest is busy.
	expect_write "$d/addr" $ADDR && expect_write "$d/port" 7478 && ep_enable a 1 || return 1
	while read -r name kind values dflt live; do
		case $kind in read-only | write-only | address) continue ;; esac
		[ "$name" != enable ] || continue
		cur=$(ep_attr a "$name")
		if [ "$live" = live ]; then
			expect_write "$d/$name" "$cur" || return 1
		else
			expect_write_err "$d/$name" "$cur" "Device or resource busy" || return 1
		fi
	done <"$CQN_CFS/attributes"
	expect_match "$(ctl create --help)" "^  port +1\.\.65535 +7471\$" \
		"create --help: port's values and default" || return 1
	expect_match "$(ctl set --help)" "^  cq_mode +event, poll, adaptive, softirq, workqueue, irqpoll +event +live\$" \
		"set --help: cq_mode, live" || return 1
	ep_remove a
	reliability "bad_inputs=$((n * 2))"
}

# configfs "reset" zeroes the counters and histograms (the home for it that
# lockdown leaves, unlike debugfs writes); it takes 1 only, and without the
# service it is -ENODEV. cqnotifyctl reset uses it.
reset_attribute()
{
	local r=$CQN_CFS/endpoints/cli/reset

	setup || return 1
	ctl create srv --role server --addr $ADDR --port 7477 --enable || return 1
	ctl create cli --role client --addr $ADDR --port 7477 --iterations 50 --enable || return 1
	ep_wait_state cli "done" 60 || return 1
	expect_eq "$(ep_stat cli msgs_verified)" 50 "msgs_verified before reset" || return 1
	expect_write_err "$r" 0 "Numerical result out of range" &&
		expect_write_err "$r" 2 "Numerical result out of range" &&
		expect_write_err "$r" yes "Invalid argument" || return 1
	expect_eq "$(ep_stat cli msgs_verified)" 50 "msgs_verified after refused resets" || return 1
	expect_write "$r" 1 || return 1
	ep_stats cli || return 1
	expect_eq "${STATS[msgs_verified]} ${STATS[msgs_sent]} ${STATS[rtt_samples]} ${STATS[wr_posted]}" \
		"0 0 0 0" "counters after configfs reset" || return 1
	expect_eq "$(grep -c '^# histogram .* samples 0 ' "$CQN_DFS/cli/histograms")" 5 \
		"every histogram empty after configfs reset" || return 1
	ep_enable cli 0 && ep_enable cli 1 && ep_wait_state cli "done" 60 || return 1
	expect_eq "$(ep_stat srv msgs_received)" 100 "server: both runs" || return 1
	ctl reset srv || return 1
	expect_eq "$(ep_stat srv msgs_received)" 0 "server after cqnotifyctl reset" || return 1
	# save leaves the action out.
	ctl save /tmp/cqn-save-reset.json || return 1
	! grep -q '"reset"' /tmp/cqn-save-reset.json || { fail "save wrote reset"; return 1; }
	# Without the service.
	rmmod cqnotify || { fail "rmmod cqnotify"; return 1; }
	expect_write_err "$r" 1 "No such device" || return 1
	cqn_load || return 1
	ctl remove cli srv
	reliability "bad_inputs=4"
}

# cqnotifyctl run: one line per mode under one header, the figures the
# modes differ by (poll never takes an event, event one per message), every
# message counted, its endpoints gone afterwards; --json agrees with the
# kernel's counters (--keep leaves them to compare); a run that cannot
# connect fails in one line and leaves nothing.
run_line()
{
	local out line

	setup || return 1
	out=$(ctl run --server --addr $ADDR --port 7476 --cq-mode event,poll --msg-size 64 \
		--iterations "$ITER") || return 1
	expect_eq "$(wc -l <<<"$out")" 3 "run: a header and two lines: $out" || return 1
	expect_match "$(sed -n 1p <<<"$out")" "^ *#bytes +#msgs +mode +workload +qd +msgs/s +MB/s +t_p50\[us\] +t_p99\[us\] +t_p99.9\[us\] +rtt_p50\[us\] +rtt_p99\[us\] +rtt_p99.9\[us\] +cpu/msg\[us\] +events/msg +wakeups/msg\$" \
		"run: the header" || return 1
	line=$(sed -n 2p <<<"$out")
	expect_match "$line" "^ +64 +$ITER event +pingpong +1 " "run: the event line" || return 1
	# events/msg (column 15): a pingpong client in event mode takes about
	# one event per message. Poll mode arms the CQ only to nap, and a
	# 200-message run naps at about every message on a busy host (0.345
	# and 1.015 per message in two runs beside other VMs, against event
	# mode's 1.010): its column is only a number here; cq's tests judge
	# poll mode's events against its arms and naps.
	expect_eq "$(awk '{ print ($15 >= 0.5) }' <<<"$line")" 1 \
		"run: event mode's events/msg in '$line'" || return 1
	line=$(sed -n 3p <<<"$out")
	expect_match "$line" "^ +64 +$ITER poll +pingpong +1 " "run: the poll line" || return 1
	expect_match "$(awk '{ print $15 }' <<<"$line")" '^[0-9]+\.[0-9]{3}$' \
		"run: poll mode's events/msg in '$line'" || return 1
	expect_eq "$(ls "$CQN_CFS/endpoints" | wc -l)" 0 "endpoints after run" || return 1
	ctl -j run --name r --server --addr $ADDR --port 7476 --workload stream --queue-depth 8 \
		--iterations "$ITER" --keep >/tmp/cqn-run.json || return 1
	ep_stats r || return 1
	pycheck "run --json" 'import json, sys
(r,) = json.load(open(sys.argv[1]))
n, st = int(sys.argv[2]), dict(a.split(" ", 1) for a in sys.argv[3:])
bad = []
if not (r["msgs"] == r["msgs_verified"] == n and r["msg_errors"] == r["wc_errors"] == 0):
    bad.append("msgs %s verified %s" % (r["msgs"], r["msgs_verified"]))
if r["workload"] != "stream" or r["queue_depth"] != 8 or r["cq_mode"] != "event":
    bad.append("workload %s qd %s mode %s" % (r["workload"], r["queue_depth"], r["cq_mode"]))
for k in ("p50", "p99", "p999"):
    if r["rtt_ns"][k] != int(st["rtt_%s_ns" % k]) or abs(r["t_%s_us" % k] * 2000 - r["rtt_ns"][k]) > 0.01:
        bad.append("%s: %s, kernel %s" % (k, r["rtt_ns"][k], st["rtt_%s_ns" % k]))
if r["msgs_per_sec"] != int(st["msgs_per_sec"]):
    bad.append("msgs_per_sec %s, kernel %s" % (r["msgs_per_sec"], st["msgs_per_sec"]))
if abs(r["events_per_msg"] * 1000 - int(st["cq_events_per_kmsg"])) > 1:
    bad.append("events_per_msg %s, kernel per kmsg %s" % (r["events_per_msg"], st["cq_events_per_kmsg"]))
if abs(r["mb_per_sec"] * (1 << 20) * int(st["run_ms"]) / 1000 - int(st["bytes_received"])) > 1:
    bad.append("mb_per_sec %s" % r["mb_per_sec"])
if not r["server_stats"]["msgs_received"] == n:
    bad.append("server msgs_received %s" % r["server_stats"]["msgs_received"])
print("; ".join(bad) or "ok")' /tmp/cqn-run.json "$ITER" \
		"rtt_p50_ns ${STATS[rtt_p50_ns]}" "rtt_p99_ns ${STATS[rtt_p99_ns]}" \
		"rtt_p999_ns ${STATS[rtt_p999_ns]}" "msgs_per_sec ${STATS[msgs_per_sec]}" \
		"cq_events_per_kmsg ${STATS[cq_events_per_kmsg]}" "run_ms ${STATS[run_ms]}" \
		"bytes_received ${STATS[bytes_received]}" || return 1
	ctl remove r r-srv || return 1
	# Nothing listens on 7475: the run fails, says why, leaves nothing.
	ctl_fail "^cqnotifyctl: run: state error \(last_error: .+\)$" \
		run --addr $ADDR --port 7475 --iterations 10 --timeout 60 || return 1
	expect_eq "$(ls "$CQN_CFS/endpoints" | wc -l)" 0 "endpoints after a failed run" || return 1
	ctl_fail "^cqnotifyctl: run: iterations and duration_ms are both 0" \
		run --addr $ADDR --iterations 0 || return 1
	expect_eq "$(ls "$CQN_CFS/endpoints" | wc -l)" 0 "endpoints after a refused run"
}

# cqnotifyctl top: per interval, not since the start. A client that is done
# has a cumulative rate (msgs_per_sec) but none in top; a running stream
# and its server connection have one, and the client round-trip
# percentiles from the histogram's change.
top_intervals()
{
	setup || return 1
	ctl create srv --role server --addr $ADDR --port 7474 --enable || return 1
	ctl create old --role client --addr $ADDR --port 7474 --iterations 50 --enable || return 1
	ep_wait_state old "done" 60 || return 1
	ctl create cli --role client --addr $ADDR --port 7474 --workload stream --queue-depth 8 \
		--iterations 0 --duration-ms 0 --enable || return 1
	ep_wait_state cli "running" 30 || return 1
	wait_stat 30 cli msgs_verified -gt 0 || return 1
	ctl -j top --interval 1 --count 2 >/tmp/cqn-top.json || return 1
	pycheck "top --json" 'import json, sys
lines = open(sys.argv[1]).read().splitlines()
cum = int(sys.argv[2])
bad = [] if len(lines) == 2 else ["%d samples" % len(lines)]
for line in lines:
    e = {x["name"]: x for x in json.loads(line)["endpoints"]}
    if sorted(e) != ["cli", "old", "srv"]:
        bad.append("endpoints %s" % sorted(e))
        break
    o, c, s = e["old"], e["cli"], e["srv"]
    if not (cum > 0 and o["state"] == "done" and o["msgs_per_sec"] == 0 and o["rtt_p50_ns"] is None):
        bad.append("done client: %s (cumulative %d)" % (o, cum))
    if not (c["msgs_per_sec"] > 0 and c["rtt_p50_ns"] and c["rtt_p99_ns"] >= c["rtt_p50_ns"]):
        bad.append("running client: %s" % c)
    conns = s["conns"]
    if not (len(conns) == 1 and conns[0]["msgs_per_sec"] > 0 and s["msgs_per_sec"] > 0):
        bad.append("server: %s" % s)
print("; ".join(bad) or "ok")' /tmp/cqn-top.json "$(ep_stat old msgs_per_sec)" || return 1
	ctl remove cli old srv
}

# Documentation/ABI has a What: entry for every file the module makes: each
# attribute of an endpoint directory, the subsystem's own, and each debugfs
# file of a server with a live connection (and of that connection).
abi_documented()
{
	local abi=$CQN_TOP/Documentation/ABI/testing f id line lines guide missing=
	local e=/sys/kernel/config/cqnotify/endpoints/\<name\> d=/sys/kernel/debug/cqnotify
	local -A what=()

	setup || return 1
	# The What: lines of both files, read by bash (no process per file).
	for f in "$abi/configfs-cqnotify" "$abi/debugfs-cqnotify"; do
		while IFS= read -r line; do
			[[ $line =~ ^What:[[:space:]]+(.+)$ ]] && what[${BASH_REMATCH[1]}]=1
		done <"$f"
	done
	ctl create srv --role server --addr $ADDR --port 7473 --enable || return 1
	ctl create cli --role client --addr $ADDR --port 7473 --workload stream --iterations 0 \
		--duration-ms 0 --enable || return 1
	ep_wait_state cli "running" 30 || return 1
	wait_for 30 test -n "$(ls "$CQN_DFS/srv/conns")" || return 1
	id=$(ls "$CQN_DFS/srv/conns" | head -n 1)
	for f in "$CQN_CFS"/endpoints/srv/*; do
		[ -n "${what[$e/${f##*/}]:-}" ] || missing+=" configfs:${f##*/}"
	done
	for f in "$CQN_CFS"/*; do
		[ "${f##*/}" = endpoints ] || [ -n "${what[$f]:-}" ] || missing+=" configfs:${f##*/}"
	done
	for f in "$CQN_DFS"/*; do
		case ${f##*/} in srv | cli) continue ;; esac
		[ -n "${what[$d/${f##*/}]:-}" ] || missing+=" debugfs:${f##*/}"
	done
	for f in "$CQN_DFS"/srv/*; do
		[ -f "$f" ] || continue
		[ -n "${what[$d/<name>/${f##*/}]:-}" ] || missing+=" debugfs:<name>/${f##*/}"
	done
	for f in "$CQN_DFS/srv/conns/$id"/*; do
		[ -n "${what[$d/<name>/conns/<id>/${f##*/}]:-}" ] ||
			missing+=" debugfs:conns/<id>/${f##*/}"
	done
	expect_eq "$missing" "" "files without a Documentation/ABI entry" || return 1
	# Every stats key (a server's, a connected client's, a connection's)
	# is in the admin guide's tables, as ``key``.
	guide=$(<"$CQN_TOP/Documentation/admin-guide.rst")
	for f in "$CQN_DFS/srv/stats" "$CQN_DFS/cli/stats" "$CQN_DFS/srv/conns/$id/stats"; do
		mapfile -t lines <"$f"
		for line in "${lines[@]}"; do
			[[ $guide == *"\`\`${line%% *}\`\`"* ]] || missing+=" ${f#"$CQN_DFS"/}:${line%% *}"
		done
	done
	expect_eq "$missing" "" "stats keys not in Documentation/admin-guide.rst" || return 1
	ctl remove cli srv
}

# res_line WHAT LIST REGEX: the one line of LIST ("rdma res show ...")
# that matches REGEX, into RES_LINE.
res_line()
{
	RES_LINE=$(grep -E -- "$3" <<<"$2")
	[ "$(grep -c . <<<"$RES_LINE")" -eq 1 ] && [ -n "$RES_LINE" ] ||
		{ fail "$1: not one line of rdma res matches '$3': '$RES_LINE'"; return 1; }
}

# Each connection's QP and CQ as the RDMA core lists them: the lqpn, cqn,
# device and ib_port of a server connection's conns/<id>/stats and of its
# client's stats name one QP in "rdma res show qp" (on that link, RC, RTS,
# its rqpn the peer's lqpn) and one CQ in "rdma res show cq" (on that
# device, owned by cqnotify, serving both queues, as many entries as
# cq_depth_actual), the QP's owner being rdma_cm, which creates it;
# comp_vector is within the device's, a server's connections in turn.
# The poll context is the kernel's enum ib_poll_context as iproute2's
# rdma decodes it, by the order the enum had before 5.9 (DIRECT first):
# an own mode's CQ (ib_create_cq(), poll_ctx left 0) and a softirq one
# (IB_POLL_SOFTIRQ, 0 since 5.9) both show DIRECT, a workqueue one
# (IB_POLL_WORKQUEUE, 1) SOFTIRQ.
rdma_res_joined()
{
	local mode ctx id qps cqs side other nvec line lines
	local -A lqpn=() cqn=() dev=() port=() cqe=() vec=()

	setup || return 1
	command -v rdma >/dev/null || { fail "no rdma tool (iproute2)"; return 1; }
	for mode in event:DIRECT softirq:DIRECT workqueue:SOFTIRQ; do
		ctx=${mode#*:} mode=${mode%:*}
		ep_create srv role=server addr=$ADDR port=7477 cq_mode=$mode || return 1
		ep_enable srv 1 || return 1
		ep_create cli role=client addr=$ADDR port=7477 cq_mode=$mode workload=stream \
			iterations=0 duration_ms=0 || return 1
		ep_enable cli 1 || return 1
		ep_wait_state cli running 30 || return 1
		wait_for 30 test -n "$(ls "$CQN_DFS/srv/conns")" || return 1
		id=$(ls "$CQN_DFS/srv/conns" | head -n 1)
		for side in srv cli; do
			if [ $side = srv ]; then
				mapfile -t lines <"$CQN_DFS/srv/conns/$id/stats"
				STATS=()
				for line in "${lines[@]}"; do STATS[${line%% *}]=${line#* }; done
			else
				ep_stats cli || return 1
			fi
			lqpn[$side]=${STATS[lqpn]:-} cqn[$side]=${STATS[cqn]:-}
			dev[$side]=${STATS[device]:-} port[$side]=${STATS[ib_port]:-}
			vec[$side]=${STATS[comp_vector]:-}
			cqe[$side]=$(ep_attr $side cq_depth_actual)
			[[ "${lqpn[$side]} ${cqn[$side]} ${port[$side]} ${vec[$side]}" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]] &&
				[ -n "${dev[$side]}" ] || { fail "$mode: $side stats: lqpn '${lqpn[$side]}' cqn '${cqn[$side]}' device '${dev[$side]}' ib_port '${port[$side]}' comp_vector '${vec[$side]}'"; return 1; }
		done
		qps=$(rdma res show qp) && cqs=$(rdma res show cq) ||
			{ fail "rdma res show failed"; return 1; }
		for side in srv cli; do
			other=cli
			[ $side = cli ] && other=srv
			# QP numbers are per device: rxe0 and rxe1 may both have 18.
			res_line "$mode $side QP" "$qps" "^link ${dev[$side]}/[0-9]+ lqpn ${lqpn[$side]} " ||
				return 1
			echo "figure: $mode $side: $RES_LINE"
			# The admin guide's filter finds that QP alone (its PSNs move).
			res_line "$mode $side QP, filtered" \
				"$(rdma res show qp link "${dev[$side]}/${port[$side]}" lqpn "${lqpn[$side]}")" \
				"^link ${dev[$side]}/${port[$side]} lqpn ${lqpn[$side]} " || return 1
			expect_match "$RES_LINE" "^link ${dev[$side]}/${port[$side]} lqpn ${lqpn[$side]} rqpn ${lqpn[$other]} type RC state RTS .*comm \[rdma_cm\]" \
				"$mode $side: its QP in rdma res show qp" || return 1
			res_line "$mode $side CQ" "$cqs" "^dev ${dev[$side]} cqn ${cqn[$side]} " || {
				echo "figure: $cqs"
				return 1
			}
			echo "figure: $mode $side: $RES_LINE"
			res_line "$mode $side CQ, filtered" \
				"$(rdma res show cq dev "${dev[$side]}" cqn "${cqn[$side]}")" \
				"^dev ${dev[$side]} cqn ${cqn[$side]} " || return 1
			expect_match "$RES_LINE" "^dev ${dev[$side]} cqn ${cqn[$side]} cqe ${cqe[$side]} users 2 poll-ctx $ctx .*comm \[cqnotify\]" \
				"$mode $side: its CQ in rdma res show cq" || return 1
			nvec=$(sed -n "s/^${dev[$side]} .*comp_vectors=\([0-9]*\) .*/\1/p" "$CQN_DFS/devices")
			[ -n "$nvec" ] && [ "${vec[$side]}" -lt "$nvec" ] ||
				{ fail "$mode $side: comp_vector ${vec[$side]} of $nvec"; return 1; }
		done
		# The server's connections take the vectors in turn.
		nvec=$(sed -n "s/^${dev[srv]} .*comp_vectors=\([0-9]*\) .*/\1/p" "$CQN_DFS/devices")
		expect_eq "${vec[srv]}" $((id % nvec)) "$mode: connection $id's comp_vector" || return 1
		ep_remove cli srv
	done
}

# us NS: nanoseconds as the tool shows them, microseconds with 3 decimals.
us()
{
	printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
}

# compare: two clients' round-trip histograms side by side (event and
# poll mode). Each one's line has its samples, p50 and p99 equal to its
# stats' rtt_samples, rtt_p50_ns and rtt_p99_ns; its column marks <p50
# and <p99 once each, on a row whose range holds that value; --png writes
# a PNG; an endpoint that does not exist is one line of error.
compare_side_by_side()
{
	local out name col n p50 p99 rows

	setup || return 1
	ep_create srv role=server addr=$ADDR port=7478 || return 1
	ep_enable srv 1 || return 1
	for name in ev:event po:poll; do
		ep_create ${name%:*} role=client addr=$ADDR port=7478 cq_mode=${name#*:} \
			iterations="$ITER" || return 1
		ep_enable ${name%:*} 1 || return 1
	done
	ep_wait_state ev done 120 && ep_wait_state po done 120 || return 1
	rm -f /tmp/cqn-compare.png
	out=$(COLUMNS=120 "$CTL" compare ev po --png /tmp/cqn-compare.png) ||
		{ fail "compare: $out"; return 1; }
	echo "figure: $(sed -n 2p <<<"$out")"
	echo "figure: $(sed -n 3p <<<"$out")"
	col=2
	for name in ev po; do
		ep_stats $name || return 1
		n=${STATS[rtt_samples]} p50=${STATS[rtt_p50_ns]} p99=${STATS[rtt_p99_ns]}
		expect_match "$out" "^  $name  $n samples, p50 $(us "$p50"), p99 $(us "$p99"), max " \
			"compare: $name's line against its stats (rtt_samples $n, rtt_p50_ns $p50, rtt_p99_ns $p99)" ||
			return 1
		# Its column's marks, each on the row whose [low, high) holds it.
		rows=$(awk -F' [|] ' -v c=$col -v p50="$p50" -v p99="$p99" '
			NF >= 2 && $1 ~ / - / {
				split($1, r, " - "); lo = r[1] * 1000
				hi = r[2] ~ /inf/ ? 1e30 : r[2] * 1000
				if ($c ~ /<p50/) { n50++; if (!(lo <= p50 && p50 < hi)) bad = bad " p50 on " $1 }
				if ($c ~ /<p50,p99|<p99/) { n99++; if (!(lo <= p99 && p99 < hi)) bad = bad " p99 on " $1 }
			}
			END { print n50 + 0, n99 + 0 bad }' <<<"$out")
		expect_eq "$rows" "1 1" "compare: $name's <p50 and <p99 marks (count, misplaced)" ||
			return 1
		col=$((col + 1))
	done
	expect_eq "$(head -c 8 /tmp/cqn-compare.png | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a \
		"compare --png: the file's PNG signature" || return 1
	ctl_fail "^cqnotifyctl: .*nosuch" compare ev nosuch || return 1
	ep_remove ev po srv
}

cqn_run_tests
rc=$?
ep_remove $(ls "$CQN_CFS/endpoints" 2>/dev/null) 2>/dev/null
cqn_unload 2>/dev/null
exit $rc
