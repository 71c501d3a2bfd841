--- Disk waits, from the thread states: the time a process's threads sleep
-- on disk I/O (in iowait: a read from disk, a writeback it waits for, an
-- fsync), from the kernel stack of each thread in D, as a share of its busy
-- thread time (checks/lib/waits.lua). The disks' own queues are
-- use.disk-saturation's; this says who waits on them.
local waits = require("waits")

return {
  id = "use.disk-waits",
  title = "Disk I/O waits (thread states)",
  methodology = "use", resource = "disk", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.pids", "proc.threads" },
  args = waits.args(),

  run = function(ctx, args)
    waits.assess(ctx, args, "disk", {
      metric = "disk_wait_threads", what = "disk I/O", d_state = true,
      next = "the culprit's I/O and its latency per file syscall and mount (biolatency, fslatency), in the drill-down",
    })
  end,
}
