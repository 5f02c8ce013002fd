#!/bin/sh
# ensure-chromium.sh: make Chromium available for the browser tests of report.html
# (cmd/nodesim/html_browser_test.go), which skip without it.
#
# Quick when Chromium is already there. Otherwise it installs the Debian package with apt-get
# when it can (root, or password-less sudo; network to the Debian mirrors). It never fails the
# build: when it cannot install, it prints a note and exits 0, and the browser tests skip.
# NODESIM_NO_CHROMIUM_INSTALL=1 turns the install off.

for name in chromium chromium-browser google-chrome google-chrome-stable; do
	if command -v "$name" >/dev/null 2>&1; then
		exit 0
	fi
done
if [ -n "${CHROMIUM:-}" ] && [ -x "${CHROMIUM}" ]; then
	exit 0
fi

note() { echo "note: $* The report.html browser tests will skip." >&2; }

if [ "${NODESIM_NO_CHROMIUM_INSTALL:-}" = 1 ]; then
	note "Chromium is not installed and NODESIM_NO_CHROMIUM_INSTALL=1."
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	note "Chromium is not installed and there is no apt-get to install it with."
	exit 0
fi
if [ "$(id -u)" = 0 ]; then
	as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	as_root="sudo -n"
else
	note "Chromium is not installed and installing it needs root (apt-get install -y chromium)."
	exit 0
fi

# Bounded, so that a machine without network gives up rather than stalls the tests.
with_timeout=""
if command -v timeout >/dev/null 2>&1; then
	with_timeout="timeout 300"
fi
log="${TMPDIR:-/tmp}/nodesim-ensure-chromium.log"
echo "installing Chromium for the report.html browser tests (apt-get; log in $log) ..." >&2
if $as_root env DEBIAN_FRONTEND=noninteractive $with_timeout apt-get update -qq >"$log" 2>&1 &&
	$as_root env DEBIAN_FRONTEND=noninteractive $with_timeout apt-get install -y -qq chromium >>"$log" 2>&1; then
	echo "Chromium installed." >&2
else
	note "Could not install Chromium (see $log)."
fi
exit 0
