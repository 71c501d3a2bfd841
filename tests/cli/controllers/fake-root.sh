# SPDX-License-Identifier: GPL-2.0-or-later
# make a fake sysfs/procfs tree under $1
R=$1
P=$R/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0
mkdir -p "$P/nvme/nvme0" "$R/sys/bus/pci/drivers/nvme" "$R/sys/bus/pci/devices" \
	"$R/sys/devices/platform/a0000000.virtio_mmio/virtio0" "$R/sys/block/dm-0/slaves/nvme0n1" \
	"$R/sys/block/loop0" "$R/sys/block/nvme0n1" "$R/sys/block/nvme0n2" "$R/sys/block/vdb" \
	"$R/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0" "$R/sys/class/net/eth0" \
	"$R/sys/class/net/bond0" "$R/sys/class/net/lo" "$R/proc/net"
ln -s ../../../../bus/pci/drivers/nvme "$P/driver"
ln -s ../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0 "$R/sys/bus/pci/devices/0000:01:00.0"
ln -s ../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0 "$R/sys/block/nvme0n1/device"
ln -s ../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0 "$R/sys/block/nvme0n2/device"
ln -s ../../devices/platform/a0000000.virtio_mmio/virtio0 "$R/sys/block/vdb/device"
ln -s ../../../devices/pci0000:00/0000:00:03.0/0000:03:00.0 "$R/sys/class/net/eth0/device"
ln -s ../eth0 "$R/sys/class/net/bond0/lower_eth0"
echo "8.0 GT/s PCIe" >"$P/current_link_speed"
echo 4 >"$P/current_link_width"
cat >"$R/proc/diskstats" <<'X'
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 259       0 nvme0n1 100 0 8000 50 20 0 400 9 0 60 70 0 0 0 0 0 0
 259       1 nvme0n2 50 0 4000 25 0 0 0 0 0 30 30 0 0 0 0 0 0
 253       0 dm-0 100 0 8000 60 20 0 400 9 0 61 72 0 0 0 0 0 0
 254      16 vdb 10 0 80 5 0 0 0 0 0 3 5 0 0 0 0 0 0
X
cat >"$R/proc/net/dev" <<'X'
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
  eth0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 bond0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
X
