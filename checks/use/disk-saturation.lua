--- Disk saturation: I/O waiting in queues (average queue size, await, PSI io).
local disks = require("disks")
local fmt = require("fmt")
local tasks = require("tasks")

return {
  id = "use.disk-saturation",
  title = "Disk saturation",
  methodology = "use", resource = "disk", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "proc.diskstats", "proc.pressure", "proc.stat", "proc.pids" },
  args = {
    warn_queue = { type = "number", default = 4, help = "average requests in flight or queued (aqu-sz)" },
    crit_queue = { type = "number", default = 16, help = "critical aqu-sz" },
    warn_await_ms = { type = "number", default = 20, help = "average I/O time (non-rotational)" },
    warn_await_rot_ms = { type = "number", default = 50, help = "average I/O time (rotational disks)" },
    warn_psi_pct = { type = "number", default = 10, help = "% of the window some task stalled on I/O" },
    crit_psi_pct = { type = "number", default = 40, help = "critical PSI io some %" },
  },

  run = function(ctx, args)
    local saturated = false
    local list, why = disks.active(ctx)
    if not list then
      ctx:unknown("queue_size", why)
    else
      local rows = {}
      for _, d in ipairs(list) do
        local x = disks.iostat(d.series)
        if x then
          local warn_await = d.info.rotational and args.warn_await_rot_ms or args.warn_await_ms
          local q = {}
          for i, v in ipairs(d.series:rates("time_in_queue")) do q[i] = v / 1000 end
          ctx:metric("queue_size", x.aqu_sz, { instance = d.name, warn = args.warn_queue, crit = args.crit_queue, over = q })
          if x.ios > 0 then
            ctx:metric("await_ms", x.await, { unit = "ms", instance = d.name, warn = warn_await, crit = 10 * warn_await })
          end
          saturated = saturated or x.aqu_sz >= args.warn_queue or (x.ios > 0 and x.await >= warn_await)
          rows[#rows + 1] = { d.name, string.format("%.2f", x.aqu_sz), string.format("%.2f", x.r_await),
                              string.format("%.2f", x.w_await), string.format("%.1f", x.rareq_kb),
                              string.format("%.1f", x.wareq_kb), d.info.scheduler or "?", d.info.nr_requests or "?" }
        end
      end
      if #rows > 0 then
        ctx:table { title = "Queues", columns = { "disk", "aqu-sz", "r_await ms", "w_await ms", "rareq KB", "wareq KB", "scheduler", "nr_requests" }, rows = rows }
      end
    end

    local psi, pwhy = ctx.proc.pressure("io")
    if psi and psi:seconds() > 0 and psi:delta("some_total") then
      local some = 100 * psi:delta("some_total") / 1e6 / psi:seconds()
      ctx:metric("psi_some_pct", some, { unit = "%", warn = args.warn_psi_pct, crit = args.crit_psi_pct })
      saturated = saturated or some >= args.warn_psi_pct
    else
      ctx:unknown("psi_some_pct", pwhy or "fewer than two PSI samples in the window")
    end

    local stat = ctx.proc.stat()
    if stat then
      ctx:metric("blocked_threads_mean", stat.total:mean("procs_blocked"), { unit = "threads" })
      ctx:series("Threads blocked on I/O (procs_blocked)", stat.total:values("procs_blocked"), { unit = "threads", step = ctx.window.interval })
    end

    local procs = ctx.proc.tasks()
    if procs and saturated then
      local top = tasks.top(procs, function(t) return t.blkio_delay_s end, 5)
      if #top == 0 then
        top = tasks.top(procs, function(t) return (t.read_bytes or 0) + (t.write_bytes or 0) end, 5)
      end
      local total = 0
      for _, e in ipairs(top) do total = total + e.value end
      tasks.blame(ctx, top, total, 3)
      ctx:next("slowest I/Os and per-process latency on the saturated disk (drill-down; biolatency, biosnoop)")
    end
    local worst_q, worst_d = 0, nil
    for _, d in ipairs(list or {}) do
      local x = disks.iostat(d.series)
      if x and x.aqu_sz >= worst_q then worst_q, worst_d = x.aqu_sz, d.name end
    end
    if worst_d then
      ctx:summary(string.format("deepest queue on %s: %.2f requests on average%s", worst_d, worst_q,
        saturated and ": I/O waits" or ""))
    end
  end,
}
