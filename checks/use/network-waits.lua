--- Network waits, from the thread states: the time a process's threads
-- spend waiting on a remote peer they connected to (a backend's replies, a
-- connect, a send the peer does not drain), as a share of their busy thread
-- time, with the peer's address. A server waiting for its clients' next
-- request (its local port is one the host listens on) is idle, not waiting
-- (checks/lib/waits.lua).
local waits = require("waits")

return {
  id = "use.network-waits",
  title = "Waits on network peers (thread states)",
  methodology = "use", resource = "network", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.pids", "proc.threads", "net.sockets" },
  args = waits.args(),

  run = function(ctx, args)
    waits.assess(ctx, args, "network", {
      metric = "network_wait_threads", what = "network peers", opts = waits.options(ctx),
      next = "the peer's own latency (run sonde there), and where the culprit's threads block (an off-CPU flame graph), in the drill-down",
    })
  end,
}
