#!/usr/bin/env bash
# `harmonic nosuch` names the unknown command and the known ones and exits 2 (CLI11
# alone said "A subcommand is required"); bare `harmonic` prints the help and exits 0.
set -u
bare=$("$1" 2>&1)
rc=$?
[[ $rc -eq 0 ]] || { echo "bare: exit $rc, expected 0: $bare"; exit 1; }
[[ $bare == *"Subcommands:"* && $bare == *"train"* && $bare == *"study"* ]] || { echo "bare: $bare"; exit 1; }
out=$("$1" nosuch 2>&1)
rc=$?
[[ $rc -eq 2 ]] || { echo "exit $rc, expected 2: $out"; exit 1; }
[[ $out == *"unknown command 'nosuch'"* && $out == *"study"* && $out == *"train"* ]] || { echo "message: $out"; exit 1; }
echo "ok: $out"
