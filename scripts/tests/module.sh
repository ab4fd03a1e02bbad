#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module itself: load and unload, the ib_client's view of devices as they
# come and go, and the configfs and debugfs roots. Needs rxe0 and rxe1 (vm-run).
. "$(dirname "$0")/lib.sh"

ALL_TESTS="load_unload devices_rxe device_hotplug device_siw configfs_root debugfs_root split_modules unload_clean"
# Debian's kernel is built without siw (CONFIG_RDMA_SIW is not set).
[ "$CQN_KERNEL" = distro ] && CQN_SKIP[device_siw]="the stock $CQN_KSERIES kernel has no siw (CONFIG_RDMA_SIW unset)"

# devices_line NAME: the debugfs "devices" line of one device.
devices_line()
{
	grep -E "^$1 " "$CQN_DFS/devices"
}

load_unload()
{
	local i

	for i in 1 2 3; do
		cqn_load || return 1
		expect_match "$(cat /sys/module/cqnotify/initstate)" '^live$' "initstate" || return 1
		cqn_unload || return 1
	done
	expect_match "$(dmesg | tail -n 20)" 'cqnotify: unloaded' "unload message"
}

devices_rxe()
{
	local l dev

	cqn_load || return 1
	for dev in rxe0 rxe1; do
		l=$(devices_line $dev) || { fail "$dev missing from devices: $(cat "$CQN_DFS/devices")"; return 1; }
		expect_match "$l" ' node_type=ib_ca ' "$dev node type" || return 1
		expect_match "$l" ' modify_cq=no ' "$dev modify_cq" || return 1
		expect_match "$l" ' resize_cq=yes ' "$dev resize_cq" || return 1
		expect_match "$l" ' comp_vectors=[1-9][0-9]* ' "$dev comp_vectors" || return 1
		expect_match "$l" ' max_cqe=[1-9][0-9]* max_qp_wr=[1-9][0-9]* ' "$dev limits" || return 1
		expect_match "$l" ' moder_max_count=0 moder_max_period_us=0$' "$dev moderation limits" || return 1
	done
	expect_eq "$(wc -l <"$CQN_DFS/devices")" 2 "device count"
}

device_hotplug()
{
	cqn_load || return 1
	rdma link delete rxe1 || { fail "rdma link delete rxe1"; return 1; }
	! devices_line rxe1 >/dev/null || { fail "rxe1 still listed after removal"; return 1; }
	devices_line rxe0 >/dev/null || { fail "rxe0 lost when rxe1 was removed"; return 1; }
	rdma link add rxe1 type rxe netdev veth1 || { fail "rdma link add rxe1"; return 1; }
	devices_line rxe1 >/dev/null || fail "rxe1 not listed after it came back"
}

device_siw()
{
	local l

	modprobe siw 2>/dev/null || { fail "siw provider not available"; return 1; }
	cqn_load || return 1
	rdma link add siw0 type siw netdev veth0 || { fail "rdma link add siw0"; return 1; }
	l=$(devices_line siw0) || { fail "siw0 missing from devices"; rdma link delete siw0; return 1; }
	rdma link delete siw0 || { fail "rdma link delete siw0"; return 1; }
	expect_match "$l" ' node_type=rnic ' "siw0 node type" || return 1
	expect_match "$l" ' modify_cq=no resize_cq=no ' "siw0 CQ ops" || return 1
	! devices_line siw0 >/dev/null || fail "siw0 still listed after removal"
}

configfs_root()
{
	cqn_load || return 1
	[ -d "$CQN_CFS/endpoints" ] || { fail "$CQN_CFS/endpoints missing"; return 1; }
	cqn_unload || return 1
	[ ! -e "$CQN_CFS" ] || fail "$CQN_CFS left behind after rmmod"
}

debugfs_root()
{
	cqn_load || return 1
	expect_eq "$(stat -c %a "$CQN_DFS/devices")" 400 "devices mode" || return 1
	cqn_unload || return 1
	[ ! -e "$CQN_DFS" ] || fail "$CQN_DFS left behind after rmmod"
}

# The directories belong to cqnotify_configfs.ko, the service to cqnotify.ko:
# the service comes and goes while directories exist; the front end cannot
# go while the service or a directory needs it.
split_modules()
{
	local err

	cqn_load || return 1
	if err=$(rmmod cqnotify_configfs 2>&1); then
		fail "rmmod cqnotify_configfs succeeded under cqnotify"
		return 1
	fi
	expect_match "$err" "in use" "front end refusal under the service" || return 1
	ep_create a port=7500 || return 1
	[ -d "$CQN_DFS/a" ] || { fail "debugfs of endpoint a missing"; return 1; }
	rmmod cqnotify || { fail "rmmod cqnotify with an idle endpoint"; return 1; }
	expect_eq "$(ep_attr a port)" 7500 "port kept without the service" || return 1
	expect_match "$(ep_attr a last_error)" "not loaded" "reason without the service" || return 1
	expect_write_err "$CQN_CFS/endpoints/a/enable" 1 "No such device" || return 1
	ep_create b msg_size=64 || return 1
	if err=$(rmmod cqnotify_configfs 2>&1); then
		fail "rmmod cqnotify_configfs succeeded with directories"
		return 1
	fi
	expect_match "$err" "in use" "front end refusal with directories" || return 1
	cqn_load || return 1
	[ -d "$CQN_DFS/a" ] && [ -d "$CQN_DFS/b" ] ||
		{ fail "endpoints not attached on load: $(ls "$CQN_DFS")"; return 1; }
	expect_eq "$(ep_attr b state)" idle "state after attach" || return 1
	expect_eq "$(ep_attr b last_error)" "" "no reason after attach" || return 1
	expect_eq "$(ep_attr b msg_size)" 64 "msg_size kept" || return 1
	ep_remove a b
	cqn_unload
}

unload_clean()
{
	cqn_load || return 1
	cat "$CQN_DFS/devices" >/dev/null
	cqn_unload || return 1
	! grep -q cqnotify /proc/modules || fail "cqnotify in /proc/modules after rmmod"
}

cqn_run_tests
