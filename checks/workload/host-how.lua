--- How: how the load changed over the window, second by second, and short-lived processes.
local cpu = require("cpu")
local fmt = require("fmt")

return {
  id = "workload.host-how",
  title = "How the load changed over the window",
  methodology = "workload", resource = "host", metric = "how",
  tags = { "default", "proc" },
  collect = { "proc.stat", "proc.pids" },

  run = function(ctx, args)
    local stat, why = ctx.proc.stat()
    if not stat then
      ctx:unknown("per_second", why)
      return
    end
    local step = ctx.window.interval
    ctx:series("CPU busy %", cpu.busy_per_interval(stat.total), { unit = "%", step = step })
    ctx:series("Context switches per second", stat.total:rates("ctxt"), { unit = "/s", step = step })
    ctx:series("Processes created per second", stat.total:rates("processes"), { unit = "/s", step = step })
    local forks = stat.total:rate("processes") or 0
    ctx:metric("forks_per_s", forks, { unit = "/s", over = stat.total:rates("processes"), agg = "mean", node_exporter = "node_forks_total", help = "tasks created, threads included (/proc/stat processes)" })
    ctx:metric("context_switches_per_s", stat.total:rate("ctxt") or 0, { unit = "/s", over = stat.total:rates("ctxt"), agg = "mean", node_exporter = "node_context_switches_total" })

    -- Short-lived processes: started and gone inside the window (top would miss them).
    local list = ctx.proc.tasks()
    if list then
      local parents, short = {}, 0
      local comm_of = {}
      for _, t in ipairs(list) do comm_of[t.pid] = t.comm end
      for _, t in ipairs(list) do
        if t.started and t.exited then
          short = short + 1
          local key = t.ppid
          parents[key] = parents[key] or { n = 0, comms = {} }
          parents[key].n = parents[key].n + 1
          parents[key].comms[t.comm] = (parents[key].comms[t.comm] or 0) + 1
        end
      end
      local rows = {}
      for ppid, p in pairs(parents) do
        local names = {}
        for c, n in pairs(p.comms) do names[#names + 1] = c .. " x" .. n end
        table.sort(names)
        rows[#rows + 1] = { ppid, comm_of[ppid] or "?", p.n, table.concat(names, ", ") }
      end
      table.sort(rows, function(a, b) return a[3] > b[3] or (a[3] == b[3] and a[1] < b[1]) end)
      ctx:metric("short_lived_seen", short, { agg = "total", help = "processes sampling saw start and end in the window" })
      if #rows > 0 then
        ctx:table { title = "Short-lived processes seen (started and exited in the window), by parent",
          columns = { "parent pid", "parent", "children seen", "commands" }, rows = rows }
      end
      ctx:note(string.format("%.1f processes were created per second (/proc/stat); sampling every %s saw %d of the short-lived ones",
        forks, units.value(step, "s"), short))
    end
    ctx:summary(string.format("%.1f processes created/s, %s context switches/s", forks, fmt.num(math.floor(stat.total:rate("ctxt") or 0))))
  end,
}
