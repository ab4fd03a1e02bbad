#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/cqnotifyctl against the real module (a server on rxe0 at 10.77.0.1,
# clients on rxe1), its one-line errors, save/restore. (The install path,
# DKMS, is scripts/tests/dkms.sh, on the host.)
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	without_module
	server_client
	readable_errors
	save_restore
"
CTL=$CQN_TOP/scripts/cqnotifyctl
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
	for cmd in create enable disable remove set get list stats watch save restore devices; do
		expect_match "$out" "^    $cmd " "--help lists $cmd" || return 1
	done
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
	ctl stats cli --json >/tmp/cqn-stats.json || return 1
	pycheck "stats --json" 'import json, sys
d = json.load(open(sys.argv[1]))
s, lat = d["stats"], d["histograms"]["latency"][0]
n = int(sys.argv[2])
ok = (d["state"] == "done" and s["msgs_verified"] == n and s["msg_errors"] == 0 and
      lat["samples"] == n and sum(b["count"] for b in lat["buckets"]) == n)
print("ok" if ok else "msgs_verified %s, msg_errors %s, state %s, latency samples %s" %
      (s["msgs_verified"], s["msg_errors"], d["state"], lat["samples"]))' \
		/tmp/cqn-stats.json "$ITER" || return 1
	out=$(ctl stats cli) || return 1
	expect_match "$out" "^  msgs_verified +$ITER\$" "stats: msgs_verified" || return 1
	expect_match "$out" "^round trips\$" "stats: groups" || return 1
	expect_match "$out" "^round-trip time, $ITER samples" "stats: histogram title" || return 1
	expect_match "$out" "[0-9] us +[0-9,]+ +[0-9.]+% +#+\$" "stats: histogram bars" || return 1
	# get shows every file of the directory (attributes are discovered).
	out=$(ctl get srv) || return 1
	expect_eq "$(awk '{ print $1 }' <<<"$out" | sort | paste -sd' ')" \
		"$(ls "$ep/srv" | sort | paste -sd' ')" "attributes shown by get" || return 1
	expect_match "$out" "^cq_mode +poll\$" "get: cq_mode" || return 1
	out=$(ctl list) || return 1
	expect_match "$out" "^cli +client +done +1 +$ADDR:7471 " "list: client" || return 1
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

cqn_run_tests
rc=$?
ep_remove $(ls "$CQN_CFS/endpoints" 2>/dev/null) 2>/dev/null
cqn_unload 2>/dev/null
exit $rc
