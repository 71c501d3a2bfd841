--- Memory stalls, from the thread states: the time a process's threads
-- sleep in page faults, direct reclaim and swap-in, from the kernel stack of
-- each thread in D, as a share of its busy thread time (checks/lib/waits.lua).
-- Reclaim a thread does on its CPU counts as CPU time here.
local waits = require("waits")

return {
  id = "use.memory-waits",
  title = "Memory stalls (thread states)",
  methodology = "use", resource = "memory", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.pids", "proc.threads" },
  args = waits.args(),

  run = function(ctx, args)
    waits.assess(ctx, args, "memory", {
      metric = "memory_stall_threads", what = "memory (faults, reclaim, swap-in)", d_state = true,
      next = "who faults and how the kernel reclaims (drilldown.memory-who), and the stacks that wait, in the drill-down",
    })
  end,
}
