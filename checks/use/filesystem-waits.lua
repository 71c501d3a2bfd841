--- File system waits, from the thread states: the time a process's threads
-- sleep in the file system rather than on the disk: a frozen file system
-- (fsfreeze, a snapshot), the journal, writeback throttling
-- (balance_dirty_pages), a network or FUSE file system; from the kernel
-- stack of each thread in D, as a share of its busy thread time
-- (checks/lib/waits.lua).
local waits = require("waits")

return {
  id = "use.filesystem-waits",
  title = "File system waits (thread states)",
  methodology = "use", resource = "filesystem", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.pids", "proc.threads" },
  args = waits.args(),

  run = function(ctx, args)
    waits.assess(ctx, args, "filesystem", {
      metric = "filesystem_wait_threads", what = "the file system", d_state = true,
      next = "the culprit's file syscalls by mount and latency (fslatency), and the stacks that wait, in the drill-down",
    })
  end,
}
