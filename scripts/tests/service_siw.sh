#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The service suite again on siw (iWARP in software), the second provider:
# a cqnotify server on siw0 (veth2, 10.77.1.1), clients on siw1 (veth3,
# 10.77.1.2). Its TAP lines read "service_siw@KERNEL/siw: ...". Debian's kernel has no
# siw, so this runs on the debug kernel.
CQN_PROVIDER=siw exec "$(dirname "$0")/service.sh" "$@"
