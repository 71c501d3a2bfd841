--- Disk busy or saturated, deeper: which processes did the I/O (/proc/PID/io, blkio delay) and the slowest I/Os on the busiest disk (biolatency).
local disks = require("disks")
local fmt = require("fmt")
local tasks = require("tasks")


return {
  id = "drilldown.disk-who",
  title = "Drill-down: who does the I/O, and the slowest I/Os on the busiest disk",
  methodology = "drilldown", resource = "disk", metric = "who",
  tags = { "drilldown", "proc", "tracing" },
  collect = { "proc.diskstats", "proc.pids", "bpf.biolatency" },
  args = {
    top = { type = "number", default = 10, help = "processes and I/Os listed" },
  },

  run = function(ctx, args)
    -- the disk to look at: the deepest queue of this window, then the busiest
    local disk, dx
    local list, dwhy = disks.active(ctx)
    for _, d in ipairs(list or {}) do
      local x = disks.iostat(d.series)
      if x and (not dx or x.aqu_sz > dx.aqu_sz or (x.aqu_sz == dx.aqu_sz and x.util_pct > dx.util_pct)) then
        disk, dx = d.name, x
      end
    end
    if disk then
      ctx:metric("queue_size", dx.aqu_sz, { instance = disk, agg = "mean", node_exporter = "node_disk_io_time_weighted_seconds_total" })
      ctx:metric("util_pct", dx.util_pct, { unit = "%", instance = disk, agg = "mean", node_exporter = "node_disk_io_time_seconds_total" })
    else
      ctx:unknown("queue_size", dwhy or "no disk did I/O in the drill-down window")
    end

    -- per process: bytes it caused to be read from / written to storage, and its wait on block I/O
    local top
    local procs, twhy = ctx.proc.tasks()
    if procs then
      local ranked, total = {}, 0
      for _, t in ipairs(procs) do
        local io = (t.read_bytes or 0) + (t.write_bytes or 0)
        local delay = t.blkio_delay_s or 0
        if not t.self and (io > 0 or delay > 0) then
          ranked[#ranked + 1] = { task = t, io = io, delay = delay }
          total = total + io
        end
      end
      local best = tasks.best(ranked, math.max(args.top, 1), function(a, b)
        if a.io ~= b.io then return a.io > b.io end
        if a.delay ~= b.delay then return a.delay > b.delay end
        return a.task.pid < b.task.pid
      end)
      local secs = math.max(ctx.window.seconds, 1e-9)
      local rows = {}
      for i, r in ipairs(best) do
        if i > args.top then break end
        local t = r.task
        rows[#rows + 1] = { t.pid, t.comm, t.read_bytes and fmt.bytes(t.read_bytes) or "?",
                            t.write_bytes and fmt.bytes(t.write_bytes) or "?",
                            fmt.bytes(r.io / secs) .. "/s", t.blkio_delay_s and string.format("%.3f", t.blkio_delay_s) or "?" }
      end
      ctx:table { title = "Processes by storage I/O (/proc/PID/io read_bytes + write_bytes, drill-down window)",
                  columns = { "pid", "process", "read", "written", "rate", "blkio wait (s)" }, rows = rows }
      local delayed = false
      for _, r in ipairs(ranked) do delayed = delayed or r.delay > 0 end
      if #ranked > 0 and not delayed then
        ctx:note("blkio wait is 0 for every process: the kernel counts it only with delay accounting on (kernel.task_delayacct, delayacct boot option)")
      end
      top = best[1]
      if top then
        if top.io > 0 then
          ctx:metric("top_process_io_bytes", top.io, { unit = "bytes", instance = fmt.task(top.task), agg = "total" })
        end
        ctx:culprit { pid = top.task.pid, comm = top.task.comm, cmdline = top.task.cmdline,
                      share = total > 0 and top.io / total or nil }
      end
      if total == 0 and #ranked == 0 then
        ctx:note("no process showed storage I/O or block I/O wait (reading another user's /proc/PID/io needs root; buffered writes are written back by kernel threads)")
      end
    else
      ctx:unknown("top_process_io_bytes", twhy)
    end

    -- the slowest I/Os on that disk: the thread that queued or issued each
    local bl, blwhy = ctx.bpf.biolatency()
    if bl then
      local rows, worst = {}, nil
      for _, io in ipairs(bl.slowest or {}) do
        if not disk or io.disk == disk then
          if io.total_us and (not worst or io.total_us > worst) then worst = io.total_us end
          if #rows < args.top then
            rows[#rows + 1] = { io.pid, io.comm, io.disk, io.op, string.format("%.1f", (io.bytes or 0) / 1024),
                                fmt.ms(io.queue_us), fmt.ms(io.service_us), fmt.ms(io.total_us) }
          end
        end
      end
      if #rows > 0 then
        if worst then ctx:metric("slowest_io_ms", worst / 1000, { unit = "ms", instance = disk, agg = "peak" }) end
        ctx:table { traced = blwhy, title = "Slowest I/Os on " .. (disk or "every disk") .. " (biolatency; the thread that queued or issued each)",
                    columns = { "pid", "comm", "disk", "op", "KB", "queue ms", "service ms", "total ms" }, rows = rows }
      else
        ctx:unknown("slowest_io_ms", "biolatency saw no I/O complete on " .. (disk or "any disk") .. " in the drill-down window")
      end
    else
      ctx:unknown("slowest_io_ms", blwhy)
    end

    local dtxt = disk and string.format("%s: %.2f requests queued on average, %s busy", disk, dx.aqu_sz, fmt.pct(dx.util_pct))
      or "no disk did I/O"
    if top then
      ctx:summary(string.format("%s over the drill-down window; most I/O: %s, %s read and %s written",
        dtxt, fmt.task(top.task), fmt.bytes(top.task.read_bytes), fmt.bytes(top.task.write_bytes)))
      ctx:next(string.format("the files it reads and writes: ls -l /proc/%d/fd; per-I/O detail: biosnoop", top.task.pid))
    else
      ctx:summary(dtxt .. " over the drill-down window; no process was seen doing storage I/O")
    end
  end,
}
