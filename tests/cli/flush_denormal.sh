#!/usr/bin/env bash
# `harmonic` flushes subnormal floats on its CPU threads unless HARMONIC_FLUSH_DENORMAL=0
# (core/denormals.h); `harmonic info` reports the mode the command runs with.
set -u
on=$("$1" info 2>&1) || { echo "info failed: $on"; exit 1; }
off=$(HARMONIC_FLUSH_DENORMAL=0 "$1" info 2>&1) || { echo "info failed: $off"; exit 1; }
case "$(uname -m)" in
  x86_64) [[ $on == *"subnormal floats (cpu ops): flushed to zero"* ]] || { echo "default: $on"; exit 1; } ;;
esac
[[ $off == *"subnormal floats (cpu ops): kept"* ]] || { echo "HARMONIC_FLUSH_DENORMAL=0: $off"; exit 1; }
echo "ok: $(grep subnormal <<< "$on") / $(grep subnormal <<< "$off")"
