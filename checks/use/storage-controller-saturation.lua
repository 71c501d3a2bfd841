--- Storage controller saturation: the I/O queued or in flight on each controller, as the sum of
-- its disks' average queue sizes (aqu-sz, from time_in_queue). A controller's own command
-- queue is not visible from the host; the busiest disk's busy % is shown beside it as a proxy.
local controllers = require("controllers")
local fmt = require("fmt")

return {
  id = "use.storage-controller-saturation",
  title = "Storage controller saturation",
  methodology = "use", resource = "storage-controller", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.diskstats" },
  args = {
    warn_queue = { type = "number", default = 8, help = "requests in flight or queued over all the controller's disks (summed aqu-sz)" },
    crit_queue = { type = "number", default = 32, help = "critical summed aqu-sz" },
  },

  run = function(ctx, args)
    local list, without = controllers.storage(ctx)
    if not list then
      ctx:unknown("queue_size", without)
      return
    end
    controllers.note_without(ctx, without, "disks")
    if #list == 0 then
      ctx:unknown("queue_size", "no disk has a controller: every block device is virtual")
      return
    end
    local rows, worst = {}, nil
    for _, c in ipairs(list) do
      -- per-interval sum of the disks' queue, for the noise range
      local over = {}
      for _, d in ipairs(c.disks) do
        for i, v in ipairs(d.series:rates("time_in_queue")) do over[i] = (over[i] or 0) + v / 1000 end
      end
      ctx:metric("queue_size", c.aqu_sz, { instance = c.id, warn = args.warn_queue, crit = args.crit_queue, over = over, agg = "mean", node_exporter = "node_disk_io_time_weighted_seconds_total" })
      ctx:metric("busiest_disk_busy_pct", c.busy_max, { unit = "%", instance = c.id, agg = "mean", node_exporter = "node_disk_io_time_seconds_total" })
      if not worst or c.aqu_sz > worst.aqu_sz then worst = c end
      rows[#rows + 1] = { c.id, string.format("%.2f", c.aqu_sz), c.busiest or "-", fmt.pct(c.busy_max) }
    end
    ctx:table { title = "Storage controller queues (sum of their disks' aqu-sz)",
                columns = { "controller", "aqu-sz", "busiest disk", "its busy" }, rows = rows }
    ctx:summary(string.format("deepest storage controller queue %s: %.2f requests on average%s", worst.id,
      worst.aqu_sz, worst.busiest and (", busiest disk " .. worst.busiest .. " (no process: see use.disk-saturation)") or ""))
  end,
}
