--- Disk saturation: I/O waiting in queues (average queue size, await, PSI io), and with
-- biolatency the time each request waited before the device got it, and the slowest I/Os.
local disks = require("disks")
local tasks = require("tasks")
local hist = require("hist")
local psi = require("psi")
local fmt = require("fmt")

local OPS = { "read", "write", "discard", "flush", "other" }

-- One disk's histogram of `kind` (queue, service, total) over every operation, and the counts.
local function merged(d, kind)
  local slots, measured, queued = {}, 0, 0
  for _, op in ipairs(OPS) do
    local o = d.ops and d.ops[op]
    if o then
      measured = measured + (o.measured or 0)
      queued = queued + (o.queued or 0)
      for i, c in ipairs(o[kind] or {}) do slots[i] = (slots[i] or 0) + c end
    end
  end
  for i = 1, #slots do slots[i] = slots[i] or 0 end
  return slots, measured, queued
end


return {
  id = "use.disk-saturation",
  title = "Disk saturation",
  methodology = "use", resource = "disk", metric = "saturation",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.diskstats", "proc.pressure", "proc.stat", "proc.pids", "bpf.biolatency" },
  args = {
    warn_queue = { type = "number", default = 4, help = "average requests in flight or queued (aqu-sz)" },
    crit_queue = { type = "number", default = 16, help = "critical aqu-sz" },
    warn_await_ms = { type = "number", default = 20, help = "average I/O time (non-rotational)" },
    warn_await_rot_ms = { type = "number", default = 50, help = "average I/O time (rotational disks)" },
    warn_psi_pct = { type = "number", default = 10, help = "% of the window some task stalled on I/O" },
    crit_psi_pct = { type = "number", default = 40, help = "critical PSI io some %" },
    warn_queue_p99_ms = { type = "number", default = 50, help = "p99 time a request waits before the device gets it (biolatency)" },
    crit_queue_p99_ms = { type = "number", default = 500, help = "critical queue time p99 (ms)" },
    heatmaps = { type = "number", default = 1, help = "disks whose I/O latency over the window is drawn as a heat map, busiest first" },
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
          local qst = ctx:metric("queue_size", x.aqu_sz, { instance = d.name, warn = args.warn_queue, crit = args.crit_queue, over = q, agg = "mean", node_exporter = "node_disk_io_time_weighted_seconds_total" })
          local ast = "ok"
          if x.ios > 0 then
            ast = ctx:metric("await_ms", x.await, { unit = "ms", instance = d.name, warn = warn_await, crit = 10 * warn_await, agg = "mean", node_exporter = "node_disk_read_time_seconds_total" })
          end
          saturated = saturated or qst ~= "ok" or ast ~= "ok"
          rows[#rows + 1] = { d.name, string.format("%.2f", x.aqu_sz), string.format("%.2f", x.r_await),
                              string.format("%.2f", x.w_await), string.format("%.1f", x.rareq_kb),
                              string.format("%.1f", x.wareq_kb), d.info.scheduler or "?", d.info.nr_requests or "?" }
        end
      end
      if #rows > 0 then
        ctx:table { title = "Queues", columns = { "disk", "aqu-sz", "r_await ms", "w_await ms", "rareq KB", "wareq KB", "scheduler", "nr_requests" }, rows = rows }
      end
    end

    -- biolatency: queue time (insert -> issue) and service time (issue -> complete) per request
    local bl, blwhy = ctx.bpf.biolatency()
    local queue_txt = ""
    if bl then
      local direct, qrows, worst, worst_p99 = {}, {}, nil, -1
      local any_measured, any_queued = false, false
      for _, d in ipairs(bl.disks or {}) do
        local q, measured, queued = merged(d, "queue")
        local sv = merged(d, "service")
        if measured > 0 then
          any_measured = true
          local s99 = hist.percentile(sv, 99) / 1000
          ctx:metric("service_p99_ms", s99, { unit = "ms", instance = d.name, agg = "p99" })
          local q99
          if queued > 0 then
            any_queued = true
            q99 = hist.percentile(q, 99) / 1000
            local st = ctx:metric("queue_p99_ms", q99, { unit = "ms", instance = d.name, warn = args.warn_queue_p99_ms, crit = args.crit_queue_p99_ms, agg = "p99" })
            saturated = saturated or st ~= "ok"
            if q99 > worst_p99 then worst, worst_p99 = d, q99 end
          else
            direct[#direct + 1] = d.name
          end
          local q50 = queued > 0 and hist.percentile(q, 50) / 1000
          qrows[#qrows + 1] = { d.name, measured, queued, q99 and string.format("%.2f", q99) or "-",
                                q50 and string.format("%.2f", q50) or "-", string.format("%.2f", s99) }
        end
      end
      if not any_measured then
        ctx:unknown("queue_p99_ms", "biolatency saw no block request both issued and completed in the window")
        ctx:unknown("service_p99_ms", "biolatency saw no block request both issued and completed in the window")
      elseif #direct > 0 then
        -- honest count: these disks' requests went straight to the driver (no scheduler queueing seen)
        ctx:unknown("queue_p99_ms", "no request on " .. table.concat(direct, ", ")
          .. " passed through a scheduler queue (no block_rq_insert before the issue: issued directly), so it has a service time only")
      end
      if #qrows > 0 then
        ctx:table { traced = blwhy, title = "Request queue and service time (biolatency)", columns = { "disk", "I/Os measured", "queued", "queue p99 ms", "queue p50 ms", "service p99 ms" }, rows = qrows }
      end
      if worst then
        queue_txt = string.format("; queue time p99 %.2f ms on %s", worst_p99, worst.name)
      end
      if worst and any_queued then
        hist.table(ctx, "Queue time on " .. worst.name .. " (biolatency, insert to issue)", (merged(worst, "queue")), "us", blwhy)
      end
      -- latency over the window, the busiest disks first: a stall or a second band shows here
      local busy = {}
      for _, d in ipairs(bl.disks or {}) do
        if hist.intervals(d.intervals) then busy[#busy + 1] = d end
      end
      busy = tasks.best(busy, args.heatmaps, function(a, b)
        local na, nb = 0, 0
        for _, s in ipairs(a.intervals.counts) do na = na + hist.count(s) end
        for _, s in ipairs(b.intervals.counts) do nb = nb + hist.count(s) end
        if na ~= nb then return na > nb end
        return a.name < b.name
      end)
      for i = 1, math.min(#busy, args.heatmaps) do
        hist.heatmap(ctx, "I/O latency over the window on " .. busy[i].name .. " (biolatency, insert to complete)", busy[i].intervals,
          blwhy)
      end
      local srows = {}
      for i, io in ipairs(bl.slowest or {}) do
        if i > 10 then break end
        srows[#srows + 1] = { io.pid, io.comm, io.disk, io.op, string.format("%.1f", (io.bytes or 0) / 1024),
                              fmt.ms(io.queue_us), fmt.ms(io.service_us), fmt.ms(io.total_us) }
      end
      if #srows > 0 then
        ctx:table { traced = blwhy, title = "Slowest I/Os (biolatency; pid and comm of the thread that queued or issued the request)",
                    columns = { "pid", "comm", "disk", "op", "KB", "queue ms", "service ms", "total ms" }, rows = srows }
      end
    else
      ctx:unknown("queue_p99_ms", blwhy)
      ctx:unknown("service_p99_ms", blwhy)
    end

    local pr, pwhy = ctx.proc.pressure("io")
    local some = psi.window_pct(pr, "some_total")
    if some then
      local st = ctx:metric("psi_some_pct", some, { unit = "%", warn = args.warn_psi_pct, crit = args.crit_psi_pct, agg = "mean", node_exporter = "node_pressure_io_waiting_seconds_total" })
      saturated = saturated or st ~= "ok"
    else
      ctx:unknown("psi_some_pct", pwhy or "fewer than two PSI samples in the window")
    end

    local stat = ctx.proc.stat()
    if stat then
      ctx:metric("blocked_threads_mean", stat.total:mean("procs_blocked"), { unit = "threads", agg = "mean", node_exporter = "node_procs_blocked" })
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
      ctx:summary(string.format("deepest queue on %s: %.2f requests on average%s%s", worst_d, worst_q,
        queue_txt, saturated and ": I/O waits" or ""))
    end
  end,
}
