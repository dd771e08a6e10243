#!/usr/bin/env bash
# The btrfs collector's ioctl half against node_exporter 1.5 on the live
# kernel: a two-device raid1 btrfs made here on loop devices (mounted twice,
# plus a bind mount of a subdirectory, which is not a subvolume root), both
# exporters asked with only the btrfs collector; expo_diff.py must find every
# family equal: node_btrfs_device_size_bytes with btrfs_dev_uuid,
# node_btrfs_device_unused_bytes, node_btrfs_device_errors_total. Then one
# device's data is overwritten and a scrub repairs it from the mirror: the
# kernel counts corruption errors on that device, and both pages must show
# the same non-zero count.
# Needs root, loop devices, btrfs in the kernel, btrfs-progs, node_exporter.
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"

NE="${NODE_EXPORTER:-prometheus-node-exporter}"
require_cmd "$NE" || skip "node_exporter ($NE) not installed (apt-get install prometheus-node-exporter)"
require_cmd python3 || skip "python3 not installed"
require_cmd mkfs.btrfs || skip "mkfs.btrfs not installed (apt-get install btrfs-progs)"
require_cmd losetup || skip "losetup not installed (util-linux)"
[[ "$(id -u)" == 0 ]] || skip "not root: cannot attach loop devices and mount the btrfs this test compares on"
grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null || true
grep -qw btrfs /proc/filesystems || skip "the kernel has no btrfs (not in /proc/filesystems)"

IMG1="$SCRATCH/dev1.img"
IMG2="$SCRATCH/dev2.img"
MNT="$SCRATCH/mnt"
LOOPS=()
MOUNTS=()
btrfs_cleanup() {
  local rc=$? i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}"; done
  for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
  (exit "$rc")
  itest_cleanup
}
trap btrfs_cleanup EXIT

truncate -s 300M "$IMG1" "$IMG2"
mkfs.btrfs -q -L llmon-itest -d raid1 -m raid1 "$IMG1" "$IMG2" >"$SCRATCH/mkfs.log" 2>&1 ||
  fail "mkfs.btrfs failed: $(cat "$SCRATCH/mkfs.log")"
for img in "$IMG1" "$IMG2"; do
  l="$(losetup -f --show "$img" 2>"$SCRATCH/losetup.err")" ||
    skip "cannot attach a loop device: $(head -c 200 "$SCRATCH/losetup.err")"
  LOOPS+=("$l")
done
mkdir -p "$MNT" "$SCRATCH/again" "$SCRATCH/sub"
mount -t btrfs -o "device=${LOOPS[0]},device=${LOOPS[1]}" "${LOOPS[0]}" "$MNT" 2>"$SCRATCH/mount.err" ||
  skip "cannot mount the test btrfs: $(head -c 200 "$SCRATCH/mount.err")"
MOUNTS+=("$MNT")
mkdir "$MNT/dir"
mount --bind "$MNT/dir" "$SCRATCH/sub" && MOUNTS+=("$SCRATCH/sub")
mount --bind "$MNT" "$SCRATCH/again" && MOUNTS+=("$SCRATCH/again")
N_ITEST="$(cat /sys/fs/btrfs/*/label 2>/dev/null | grep -c llmon-itest)"
[[ "$N_ITEST" -ge 1 ]] || fail "the test filesystem is not in /sys/fs/btrfs"

start_server ne /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@ --collector.disable-defaults --collector.btrfs \
  --log.level=warn
start_llmon --collector.disable-defaults --collector.btrfs --log.level=warn

# compare TAG WANT: both pages fetched and diffed until they agree (llmon's
# page is its last cycle's, up to 1 s old, and a scrub that just ended still
# moves the reserved bytes for a moment); WANT is what llmon's corruption
# counter must match first.
compare() {
  local tag="$1" want="$2" i
  for ((i = 0; i < 50; i++)); do
    fetch "$llmon_URL/metrics" "$SCRATCH/llmon-$tag.prom"
    grep -Eq "^node_btrfs_device_errors_total\{.*type=\"corruption\".*\} $want" "$SCRATCH/llmon-$tag.prom" && break
    sleep 0.2
  done
  for ((i = 0; ; i++)); do
    fetch "$ne_URL/metrics" "$SCRATCH/ne-$tag.prom"
    fetch "$llmon_URL/metrics" "$SCRATCH/llmon-$tag.prom"
    python3 "$REPO/tests/integration/expo_diff.py" --node-exporter "$SCRATCH/ne-$tag.prom" \
      --llmon "$SCRATCH/llmon-$tag.prom" --quiet-notes >"$SCRATCH/diff-$tag.txt" 2>&1 && break
    ((i < 20)) || fail "$tag: llmon's btrfs families differ from node_exporter's: $(cat "$SCRATCH/diff-$tag.txt")"
    sleep 0.5
  done
  for f in node_btrfs_device_unused_bytes node_btrfs_device_errors_total; do
    grep -q "^$f{" "$SCRATCH/llmon-$tag.prom" || fail "$tag: no $f on llmon's page"
  done
  grep -q '^node_btrfs_device_size_bytes{.*btrfs_dev_uuid=' "$SCRATCH/llmon-$tag.prom" ||
    fail "$tag: node_btrfs_device_size_bytes lacks btrfs_dev_uuid (the ioctl form)"
}
compare clean 0

# Corrupt the second device's copy of a file's data and scrub: the kernel
# repairs it from the first and counts corruption errors on the second.
head -c 60M /dev/urandom >"$MNT/data.bin"
sync
dd if=/dev/urandom of="$IMG2" bs=1M seek=40 count=200 conv=notrunc,fsync status=none
echo 3 >/proc/sys/vm/drop_caches
if ! require_cmd btrfs; then
  log "btrfs (btrfs-progs) without the btrfs command: scrub step skipped"
else
  btrfs scrub start -B "$MNT" >"$SCRATCH/scrub.log" 2>&1 || true
  grep -q "csum=" "$SCRATCH/scrub.log" || fail "the scrub found no checksum errors: $(cat "$SCRATCH/scrub.log")"
  compare scrubbed '[1-9]'
  dev2="$(basename "${LOOPS[1]}")"
  grep -Eq "^node_btrfs_device_errors_total\{.*type=\"corruption\".*device=\"$dev2\".*\} [1-9]" \
    "$SCRATCH/llmon-scrubbed.prom" || fail "no corruption errors counted on $dev2: $(grep corruption "$SCRATCH/llmon-scrubbed.prom")"
fi
log "llmon's btrfs families match node_exporter's on a live raid1 btrfs, error counters included"
