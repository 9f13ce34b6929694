#!/bin/sh
# usage: hack/bench-time.sh — makes sure GNU time (/usr/bin/time, Debian's package "time") is
# there for the benchmarks' peak memory (test/e2e/framework Measure). Installs it with apt-get
# when it is missing and this runs as root; otherwise says what the benchmarks report instead.
set -e
[ -x /usr/bin/time ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get install -y -qq time >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq time; }
  [ -x /usr/bin/time ] && exit 0
fi
echo "warning: /usr/bin/time is missing (Debian package time; install it as root): the benchmarks' peak memory is then the children's rusage, which counts the test binary's own memory too" >&2
