#!/usr/bin/env bash
# `harmonic nosuch` names the unknown command and the known ones and exits 2 (CLI11
# alone said "A subcommand is required").
set -u
out=$("$1" nosuch 2>&1)
rc=$?
[[ $rc -eq 2 ]] || { echo "exit $rc, expected 2: $out"; exit 1; }
[[ $out == *"unknown command 'nosuch'"* && $out == *"study"* && $out == *"train"* ]] || { echo "message: $out"; exit 1; }
echo "ok: $out"
