#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DKMS, as a user runs it on Debian: dkms add, build and install of a copy
# of the tree (as a release tarball has it) for one stock Debian kernel
# (6.1 or 6.12), modinfo and modprobe's view of the installed modules, the
# control tool installed beside them (/usr/local/sbin/cqnotifyctl, its
# --help), both modules loaded by modprobe in a VM of that kernel and seen
# by the installed tool, then dkms remove, which takes the tool away too.
# And make install, staged (INSTALL_MOD_PATH): both modules in updates/,
# depmod's files, the tool.
#
# Runs on the host (the build is native: under TCG it took 11 minutes),
# inside a private mount namespace that leaves the host as it was:
# /var/lib/dkms is a tmpfs, /usr/src, /lib/modules/KVER and /usr/local/sbin
# are overlays with a tmpfs upper layer. The VM is started inside the namespace, so its
# 9p root shows the installed modules.
#
# Usage: scripts/tests/dkms.sh [6.1|6.12] (default 6.1)
# Prints TAP lines "ok - dkms@SERIES: ..." / "not ok - dkms@SERIES: ...";
# exits non-zero on any failure.
set -u
. "$(dirname "$0")/../lib.sh"

if [ "${1:-}" != --inside ]; then
	exec unshare --mount --propagation private "$0" --inside "${1:-6.1}"
fi
series=${2:-6.1}

T=
failed=0

ok()
{
	echo "ok - dkms@$series: $1"
}

not_ok()
{
	echo "not ok - dkms@$series: $1"
	[ -z "${2:-}" ] || echo "# $2"
	failed=1
}

# check NAME CMD...: one TAP line for a command's success; its output goes
# to the log.
check()
{
	local name=$1

	shift
	if "$@" >>"$log" 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		return 1
	fi
}

# overlay DIR: DIR writable, its writes kept in the namespace's tmpfs.
overlay()
{
	local n

	n=$T/ovl/$(tr / _ <<<"$1")
	mkdir -p "$n/upper" "$n/work" &&
		mount -t overlay overlay -o "lowerdir=$1,upperdir=$n/upper,workdir=$n/work" "$1"
}

setup()
{
	T=$(mktemp -d /tmp/cqn-dkms.XXXXXX) || return 1
	mount -t tmpfs tmpfs "$T" || return 1
	mkdir -p /var/lib/dkms "$T/src" || return 1
	mount -t tmpfs tmpfs /var/lib/dkms || return 1
	mkdir -p /usr/local/sbin || return 1
	overlay /usr/src && overlay "/lib/modules/$kver" && overlay /usr/local/sbin || return 1
	# A copy of the tree as a release tarball would have it: no .git, no objects.
	(cd "$CQN_TOP" && tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		dkms.conf VERSION Kbuild Makefile README src include kunit \
		tools/cqnotifyctl scripts/dkms-tool) | tar -xf - -C "$T/src"
}

command -v dkms >/dev/null || { not_ok "dkms is installed (scripts/install-deps)"; exit 1; }
kver=$(cqn_stock_kver "$series") ||
	{ not_ok "a Debian $series kernel is installed (scripts/install-deps)"; exit 1; }
ver=$(cat "$CQN_TOP/VERSION")
log=$CQN_BUILD/check/dkms-$series.log
mkdir -p "$(dirname "$log")"
: >"$log"

if ! setup >>"$log" 2>&1; then
	not_ok "private namespace with tmpfs and overlays" "see $log"
	exit 1
fi
trap 'umount -l "/lib/modules/$kver" /usr/src /usr/local/sbin /var/lib/dkms "$T" 2>/dev/null; rmdir "$T"' EXIT
tool=/usr/local/sbin/cqnotifyctl

check "dkms add" dkms add "$T/src" &&
	check "dkms add copies the tree to /usr/src/cqnotify-$ver" test -f "/usr/src/cqnotify-$ver/dkms.conf" ||
	exit 1
t0=$SECONDS
if ! dkms build -k "$kver" "cqnotify/$ver" >>"$log" 2>&1; then
	not_ok "dkms build for $kver" "see $log and /var/lib/dkms/cqnotify/$ver/build/make.log"
	tail -n 20 "/var/lib/dkms/cqnotify/$ver/build/make.log" 2>/dev/null | sed 's/^/# /'
	exit 1
fi
ok "dkms build for $kver ($((SECONDS - t0)) s)"
check "dkms install" dkms install -k "$kver" "cqnotify/$ver" || exit 1
if [ -x $tool ] && cmp -s $tool "$T/src/tools/cqnotifyctl"; then
	ok "dkms install puts the tool in $tool"
else
	not_ok "dkms install puts the tool in $tool" "$(ls -l $tool 2>&1)"
fi
help=$($tool --help 2>&1)
if grep -q "^    compare " <<<"$help" && grep -q "^examples:" <<<"$help"; then
	ok "$tool --help"
else
	not_ok "$tool --help" "$help"
fi

status=$(dkms status cqnotify)
# Quoted parts of a bash regex are literal: 6.12's release has a '+'.
if [[ $status =~ ^"cqnotify/$ver, $kver, "[^:]*:\ installed ]]; then
	ok "dkms status: $status"
else
	not_ok "dkms status says installed" "got: $status"
fi
for m in cqnotify cqnotify_configfs; do
	path=$(modinfo -k "$kver" -n $m 2>>"$log")
	# 6.12's modules are xz-compressed, and DKMS compresses to match.
	if [[ $path =~ ^"/lib/modules/$kver/updates/"(dkms/)?"$m.ko"(\.xz|\.zst|\.gz)?$ ]]; then
		ok "modinfo finds $m in updates/: $path"
	else
		not_ok "modinfo finds $m in updates/" "got: '$path'"
	fi
done
info=$(modinfo -k "$kver" cqnotify 2>&1)
for field in "version: +$ver\$" "description: +cqnotify: " "author: +." "license: +GPL\$" \
	     "parm: +[a-z_]+:."; do
	grep -qE "^$field" <<<"$info" || not_ok "modinfo cqnotify shows ${field%%:*}" "$info"
done
deps=$(modprobe -S "$kver" --show-depends cqnotify 2>&1)
if grep -q "updates/.*cqnotify_configfs\.ko" <<<"$deps" && grep -q "updates/.*cqnotify\.ko" <<<"$deps"; then
	ok "modprobe resolves cqnotify and its front end from updates/"
else
	not_ok "modprobe resolves cqnotify and its front end from updates/" "$deps"
fi

# The modules DKMS built, loaded by modprobe on the kernel they were built for.
guest='modprobe cqnotify && echo "loaded $(cat /sys/module/cqnotify/version)'
guest+=' $(cat /sys/module/cqnotify_configfs/version) $(/usr/local/sbin/cqnotifyctl --version)"'
guest+=' && modprobe -r cqnotify && [ ! -d /sys/module/cqnotify_configfs ] && echo unloaded'
out=$("$CQN_TOP/scripts/vm-run" --kernel "$series" --no-rxe --timeout 300 -- bash -c "$guest" 2>&1)
echo "$out" >>"$log"
want="loaded $ver $ver cqnotify module $ver"
if grep -qx "$want" <<<"$out" && grep -qx unloaded <<<"$out"; then
	ok "modprobe cqnotify in a $series VM loads both modules (version $ver) and modprobe -r unloads both"
else
	not_ok "modprobe cqnotify in a $series VM" "want '$want' then 'unloaded'; see $log"
fi

check "dkms remove" dkms remove "cqnotify/$ver" --all
if modinfo -k "$kver" -n cqnotify >/dev/null 2>&1; then
	not_ok "dkms remove leaves no cqnotify module" "$(modinfo -k "$kver" -n cqnotify)"
else
	ok "dkms remove leaves no cqnotify module"
fi
if [ -e $tool ]; then
	not_ok "dkms remove takes $tool away" "$(ls -l $tool)"
else
	ok "dkms remove takes $tool away"
fi

# make install, staged under a directory (as a package build does).
stage=$T/stage
if make -C "$T/src" install KDIR="/lib/modules/$kver/build" INSTALL_MOD_PATH="$stage" \
	>>"$log" 2>&1; then
	ok "make install INSTALL_MOD_PATH=DIR"
else
	not_ok "make install INSTALL_MOD_PATH=DIR" "see $log"
fi
# 6.12's modules_install compresses (.ko.xz), as its kernel's modules are.
for f in "lib/modules/$kver/updates/cqnotify.ko" "lib/modules/$kver/updates/cqnotify_configfs.ko" \
	 "lib/modules/$kver/modules.dep" usr/local/sbin/cqnotifyctl; do
	ls "$stage/$f" "$stage/$f".xz "$stage/$f".zst "$stage/$f".gz 2>/dev/null | grep -q . ||
		not_ok "make install puts $f in place" "$(ls -lR "$stage" 2>&1 | head)"
done
if grep -qE "^updates/cqnotify\.ko(\.xz|\.zst|\.gz)?: .*updates/cqnotify_configfs\.ko" \
	"$stage/lib/modules/$kver/modules.dep" &&
	[ -x "$stage/usr/local/sbin/cqnotifyctl" ] &&
	"$stage/usr/local/sbin/cqnotifyctl" --help | grep -q "^    compare "; then
	ok "make install: both modules in updates/ (cqnotify depends on its front end), the tool and its --help"
else
	not_ok "make install: modules.dep and the tool" "$(cat "$stage/lib/modules/$kver/modules.dep" 2>&1)"
fi
exit $failed
