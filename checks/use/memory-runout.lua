--- Memory running out: the host's memory (total minus MemAvailable), each memory cgroup against
-- its limit, and each process whose resident memory grows, by their trend over the window; the
-- time until it runs out, with its range, and who grows.
local runout = require("runout")
local trend = require("trend")
local cgroups = require("cgroups")
local fmt = require("fmt")

-- A memory cgroup's limit and its use now.
local function memory_limit(cg)
  return cg.memory.limit, #cg.memory.usage > 0 and cg.memory.usage:last("bytes") or nil
end

return {
  id = "use.memory-runout",
  title = "Memory running out",
  methodology = "use", resource = "memory", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.meminfo", "proc.pids", "proc.cgroups" },
  args = runout.args(),

  run = function(ctx, args)
    local mem, why = ctx.proc.meminfo()
    if not mem then
      ctx:unknown("time_left_s", why)
      return
    end
    local total, avail = mem:last("MemTotal"), mem:last("MemAvailable")
    if not total or total <= 0 or not avail then
      ctx:unknown("time_left_s", "/proc/meminfo has no MemAvailable (kernel older than 3.14)")
      return
    end
    local cands = {}
    local ts, ys = {}, {}
    for _, s in ipairs(mem) do
      if s.MemAvailable then ts[#ts + 1], ys[#ys + 1] = s.t, s.MemTotal - s.MemAvailable end
    end
    local host = { name = "host memory", instance = "host", ts = ts, ys = ys, capacity = total, unit = "bytes" }
    cands[1] = runout.assess(ctx, host, args)

    -- processes: the room each has is what the host has left, or its cgroup if tighter
    local cglist = ctx.proc.cgroups()
    local limit_of = runout.cgroup_room(cglist, memory_limit)
    local procs = runout.task_series(ctx, "rss_bytes")
    local growing = {}
    for _, e in ipairs(procs) do
      local lim = limit_of[e.task.pid]
      local room = lim and math.min(avail, lim.headroom) or avail
      local c = runout.assess(ctx, { name = fmt.task(e.task) .. " resident memory", instance = fmt.task(e.task),
        ts = e.ts, ys = e.ys, capacity = e.ys[#e.ys] + room, unit = "bytes", task = e.task,
        limit = lim and room == lim.headroom and lim or nil }, args)
      cands[#cands + 1] = c
      if c.fit and c.fit.real then growing[#growing + 1] = { task = e.task, rate = c.fit.slope, c = c } end
    end

    -- memory cgroups against their limits: usage counts page cache, which is reclaimed at the
    -- limit, so a cgroup runs out only when its processes' own memory grows
    for _, cg in ipairs(cglist or {}) do
      local limit = cg.memory.limit
      if limit and limit > 0 and #cg.memory.usage > 0 then
        local name = cgroups.name(cg, cglist)
        local cts, cys = {}, {}
        for _, x in ipairs(cg.memory.usage) do cts[#cts + 1], cys[#cys + 1] = x.t, x.bytes end
        local members = {}
        for _, pid in ipairs(cg.procs) do members[pid] = true end
        local own = {}
        for _, g in ipairs(growing) do if members[g.task.pid] then own[#own + 1] = g end end
        local c = runout.assess(ctx, { name = "cgroup " .. name, instance = name, ts = cts, ys = cys,
          capacity = limit, unit = "bytes", members = own }, args)
        if c.ex and #own == 0 then
          ctx:note(string.format("cgroup %s fills toward its limit, but none of its processes grows: page cache, "
            .. "which the kernel reclaims at the limit", name))
          c.ex, c.why = nil, "page cache, not its processes' memory"
        end
        cands[#cands + 1] = c
      end
    end

    local out = runout.report(ctx, cands, args, "Memory: level, trend and time until it runs out")
    if #growing > 0 then
      local rows = {}
      table.sort(growing, function(a, b) return a.rate > b.rate end)
      for i = 1, math.min(10, #growing) do
        local g = growing[i]
        rows[#rows + 1] = { g.task.pid, g.task.comm, fmt.bytes(g.c.ys[#g.c.ys]),
          g.task.anon_bytes and fmt.bytes(g.task.anon_bytes) or "?", runout.rate(g.rate, "bytes"),
          g.c.limit and ("cgroup " .. g.c.limit.name) or "host" }
      end
      ctx:table { title = "Processes whose resident memory grows steadily",
                  columns = { "pid", "process", "RSS", "anonymous", "growth", "room from" }, rows = rows }
    end
    if #out == 0 then
      ctx:summary(string.format("memory is not running out: %s available of %s, no steady growth that exhausts it",
        fmt.bytes(avail), fmt.bytes(total)))
      return
    end
    local worst = out[1]
    local named, sentence
    if worst.task then
      named = runout.blame_self(ctx, worst)
      sentence = string.format("%s grows %s: %s %s", fmt.task(worst.task), runout.rate(worst.ex.rate, "bytes"),
        worst.limit and ("its cgroup " .. worst.limit.name .. " reaches its limit") or "the host's available memory runs out",
        trend.when(worst.ex))
    else
      sentence, named = runout.say(ctx, worst, worst.members or growing, "exhausted", "growing")
    end
    ctx:summary(sentence)
    if named[1] then
      ctx:next("where it grows: grep -E 'Rss|Anon' /proc/" .. named[1].task.pid .. "/status; its heap: pmap -x "
        .. named[1].task.pid .. " | sort -k3 -n | tail")
    end
  end,
}
