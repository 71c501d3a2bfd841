--- What: the processes started during the window (execs, forks, how long they
-- lived), which top and /proc sampling miss when they live less than a sampling
-- interval. From the BPF tool execsnoop; /proc says only what it happened to see.
local fmt = require("fmt")
local hist = require("hist")
local bpf = require("bpf")

-- What /proc sampling saw start and end (short-lived processes slip between two samples).
local function proc_seen(ctx)
  local list = ctx.proc.tasks()
  if not list then return nil end
  local started, exited, both = 0, 0, 0
  for _, t in ipairs(list) do
    if t.started then started = started + 1 end
    if t.exited then exited = exited + 1 end
    if t.started and t.exited then both = both + 1 end
  end
  return { started = started, exited = exited, both = both, seen = #list }
end

local function life_txt(us)
  if us >= 1e6 then return string.format("%.2f s", us / 1e6) end
  if us >= 1e3 then return string.format("%.2f ms", us / 1e3) end
  return string.format("%.0f us", us)
end

return {
  id = "workload.process-what",
  title = "What: processes started in the window",
  methodology = "workload", resource = "process", metric = "what",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.pids", "bpf.execsnoop" },
  args = {
    -- A fork+exec+exit of /bin/true costs about 1.2 ms of CPU on a small VM
    -- (500 in 0.58 s user+sys), more for anything that links many libraries or
    -- starts an interpreter: 100 execs/s is about a tenth of a CPU spent only
    -- starting processes, and CPU that top attributes to no one. A steady
    -- server execs a few per second at most.
    warn_execs_per_s = { type = "number", default = 100,
      help = "execs per second that warn (100: ~10% of a CPU just starting processes)" },
    crit_execs_per_s = { type = "number", default = 1000,
      help = "execs per second that are critical (1000: about a whole CPU)" },
    top = { type = "number", default = 8, help = "rows per table" },
  },

  run = function(ctx, args)
    local seen = proc_seen(ctx)
    local d, info = ctx.bpf.execsnoop()
    if not d then
      ctx:unknown("execs_per_s", info)
      if seen then
        ctx:metric("started_seen_by_proc", seen.started, { agg = "total", help = "processes /proc sampling saw start" })
        ctx:metric("exited_seen_by_proc", seen.exited, { agg = "total", help = "processes /proc sampling saw exit" })
        local saw = string.format("%d process%s start and %d exit", seen.started, seen.started == 1 and "" or "es",
          seen.exited)
        ctx:note(string.format("/proc sampling every %s saw %s; "
          .. "a process that lives less than a sampling interval is not seen at all", units.value(ctx.window.interval, "s"), saw))
        ctx:summary(string.format("execs unknown (%s); /proc sampling saw %s", info, saw))
      end
      return
    end

    local secs = bpf.traced_s(ctx, info)
    local execs, forks = d.execs or 0, d.forks or 0
    local rate = execs / secs
    local rate_st = ctx:metric("execs_per_s", rate, { unit = "/s", warn = args.warn_execs_per_s, crit = args.crit_execs_per_s, agg = "mean" })
    ctx:metric("forks_per_s", forks / secs, { unit = "/s", agg = "mean", help = "processes forked, traced (execsnoop); not threads where the kernel tells them apart" })
    ctx:metric("execs", execs, { agg = "total" })
    ctx:metric("forks", forks, { agg = "total", help = "processes forked, traced (execsnoop); not threads where the kernel tells them apart" })
    if d.forks_include_threads then
      ctx:note("forks include new threads: the classic tracepoint's fork record cannot tell them apart")
    end
    if seen then
      -- how much sampling misses: the reason this check traces
      ctx:metric("started_seen_by_proc", seen.started, { agg = "total", help = "processes /proc sampling saw start" })
    end

    -- parents: who starts them (the culprit of an exec storm is the parent, not the short-lived child)
    local prow = {}
    for i, p in ipairs(d.parents or {}) do
      if i > args.top then break end
      prow[#prow + 1] = { p.ppid, p.comm, p.execs, execs > 0 and fmt.pct(100 * p.execs / execs) or "-", p.forks }
    end
    if #prow > 0 then
      ctx:table { traced = info, title = "Parents of the processes started (execsnoop)",
        columns = { "ppid", "parent", "children execed", "of execs", "forks" }, rows = prow }
    end
    local nculprits = 0
    for _, p in ipairs(d.parents or {}) do
      if nculprits >= 3 or (p.execs or 0) == 0 then break end
      ctx:culprit { pid = p.ppid, comm = p.comm, share = p.execs / math.max(execs, 1) }
      nculprits = nculprits + 1
    end

    -- commands
    local crow = {}
    for i, c in ipairs(d.comms or {}) do
      if i > args.top then break end
      crow[#crow + 1] = { c.comm, c.filename ~= "" and c.filename or "-", c.execs,
                          fmt.rate(c.execs / secs, "execs"), c.exits_new,
                          c.exits_new > 0 and life_txt(c.life_us / c.exits_new) or "-" }
    end
    if #crow > 0 then
      ctx:table { traced = info, title = "Commands started (execsnoop)",
        columns = { "command", "path", "execs", "rate", "ended in window", "mean lifetime" }, rows = crow }
    end

    -- lifetimes of the processes that started and ended inside the window
    local life = d.lifetime or {}
    local nlife = hist.count(life.hist)
    local p50
    if nlife > 0 then
      p50 = hist.percentile(life.hist, 50)
      ctx:metric("short_lived", nlife, { agg = "total", help = "processes that started and ended in the window (execsnoop)" })
      ctx:metric("lifetime_p50_ms", p50 / 1000, { unit = "ms", agg = "p50" })
      ctx:metric("lifetime_p99_ms", hist.percentile(life.hist, 99) / 1000, { unit = "ms", agg = "p99" })
      hist.table(ctx, "Lifetime of the processes that started and ended in the window (execsnoop)", life.hist, "us", info)
    else
      ctx:unknown("lifetime_p50_ms", "no process both started and ended inside the window")
    end

    -- argv samples: the first execs of the window and a few per command
    local srow = {}
    for i, s in ipairs(d.samples or {}) do
      if i > 2 * args.top then break end
      srow[#srow + 1] = { string.format("%.3f", s.at_s or 0), s.pid, s.ppid, s.pcomm,
                          s.args .. (s.args_cut and " [cut]" or "") }
    end
    if #srow > 0 then
      ctx:table { traced = info, title = "Command lines sampled at exec (execsnoop)",
        columns = { "at (s)", "pid", "ppid", "parent", "arguments" }, rows = srow }
    end
    local nsamples = #(d.samples or {})
    if (d.not_sampled or 0) > 0 then
      ctx:note(string.format("%d command lines sampled of %d execs (the first %d, then up to %d per command)",
        nsamples, execs, d.sampling and d.sampling.first or 0, d.sampling and d.sampling.per_comm or 0))
    end
    if (info.drops or 0) > 0 then
      ctx:note(string.format("%d records lost (a full map or sample buffer): counts are lower bounds", info.drops))
    end

    local top = (d.parents or {})[1]
    local who = top and top.execs > 0 and string.format("; %s of them by the children of %s (pid %d)",
      fmt.pct(100 * top.execs / math.max(execs, 1)), top.comm, top.ppid) or ""
    local lived = p50 and string.format("; %d processes started and ended in the window, median life %s",
      nlife, life_txt(p50)) or ""
    local missed = seen and string.format("; /proc sampling saw %d start", seen.started) or ""
    ctx:summary(string.format("%.1f execs/s (%d execs, %d forks in %.1f s)%s%s%s",
      rate, execs, forks, secs, who, lived, missed))
    if rate_st ~= "ok" then
      ctx:next("look at the parent: a loop of short commands (shell script, health check, cron) "
        .. "is often one process's work done in many; bcc execsnoop -T to watch them live")
    end
  end,
}
