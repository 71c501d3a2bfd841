--- Memory running out: the host's memory (total minus MemAvailable), each memory cgroup against
-- its limit, and each process whose resident or anonymous memory grows, by their trend over the
-- window; the time until it runs out, with its range, and who grows. A process's anonymous memory
-- (its heap: what a leak grows, and what the kernel cannot drop as it drops file pages) gets its
-- own trend where it was read every round (the task iterator's ANON_PAGES); the /proc walk reads
-- it (status's RssAnon) at first sight and in the last round only, and two points make no trend.
--
-- Across runs: the host's level (metric used_bytes, instance "host") continues over the earlier
-- audits of this host in --out (ctx.history) of this boot only: a reboot frees the memory, so an
-- audit of another boot is left out, named. A process's or a cgroup's level is not carried across
-- runs: a pid does not survive its process, nor a cgroup's use the restart of what runs in it.
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
  collect = { "proc.meminfo", "proc.pids", "proc.cgroups", "history" },
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
    local host = { name = "host memory", instance = "host", ts = ts, ys = ys, capacity = total, unit = "bytes",
                   verb = "exhausted" }
    cands[1] = runout.assess(ctx, host, args)
    if #ys > 0 then ctx:metric("used_bytes", ys[#ys], { unit = "bytes", instance = "host", over = ys, agg = "last", node_exporter = "node_memory_MemAvailable_bytes" }) end
    local hist = ctx.history("used_bytes")
    local long = runout.across(host, hist and hist.host, { reset_at_boot = true })
    if long then cands[#cands + 1] = runout.assess(ctx, long, args) end

    -- processes: the room each has is what the host has left, or its cgroup if tighter
    local cglist = ctx.proc.cgroups()
    local limit_of = runout.cgroup_room(cglist, memory_limit)
    local procs = runout.task_series(ctx, "rss_bytes", "anon_bytes")
    local growing = {}
    for _, e in ipairs(procs) do
      local lim = limit_of[e.task.pid]
      local room = lim and math.min(avail, lim.headroom) or avail
      local limit = lim and room == lim.headroom and lim or nil
      local c = runout.assess(ctx, { name = fmt.task(e.task) .. " resident memory", instance = fmt.task(e.task),
        ts = e.ts, ys = e.ys, capacity = e.ys[#e.ys] + room, unit = "bytes", task = e.task, limit = limit }, args)
      local ats, ays = trend.points(e.series, "anon_bytes")
      local a, noted
      if #ats >= 2 then
        a = runout.assess(ctx, { name = fmt.task(e.task) .. " anonymous memory", instance = fmt.task(e.task),
          ts = ats, ys = ays, capacity = ays[#ays] + room, unit = "bytes", task = e.task, limit = limit,
          anon = true }, args)
        -- two reads make no trend; say so only where, were it one, it would be called (its room
        -- used up within horizon_x times the span between them): a few KiB more of a quiet
        -- process's heap is not worth a line
        local span = ats[#ats] - ats[1]
        local grew = ays[#ays] - ays[1]
        if not a.fit and #ats < 5 and grew > 0 and span > 0 and not (c.fit and c.fit.real)
          and room / (grew / span) <= (args.horizon_x or 100) * span then
          ctx:note(string.format("%s: anonymous memory %s at %.1f s, %s at %.1f s, read %d times only "
            .. "(/proc/PID/status at first sight and in the last round): %d points make no trend "
            .. "(the BPF task iterator reads it every round)", fmt.task(e.task), fmt.bytes(ays[1]), ats[1],
            fmt.bytes(ays[#ays]), ats[#ats], #ats, #ats))
          noted = true
        end
      end
      -- no room left already (its cgroup at its limit, the host out): that is the cgroup's or the
      -- host's own candidate; a process is one of its own only when it grows into it
      if room <= 0 then
        for _, x in ipairs({ c, a or false }) do
          if x and x.ex and not (x.fit and x.fit.real and x.fit.slope > 0) then
            x.ex, x.why = nil, "no room left already, but it does not grow"
          end
        end
      end
      -- the process's own candidate: its anonymous memory when that runs out sooner (file pages
      -- it drops can hide a leak from its RSS), else its resident memory
      local own = c
      if a and a.ex and (not c.ex or a.ex.seconds < c.ex.seconds) then own = a end
      -- one whose anonymous memory alone moved is listed when that says something
      if e.moved or (a and a.fit) or noted then cands[#cands + 1] = own end
      local rss_rate = c.fit and c.fit.real and c.fit.slope or nil
      local anon_rate = a and a.fit and a.fit.real and a.fit.slope or nil
      if rss_rate or anon_rate then
        growing[#growing + 1] = { task = e.task, rate = math.max(rss_rate or 0, anon_rate or 0), c = own,
          rss = c, rss_rate = rss_rate, anon_rate = anon_rate, anon_now = a and a.ys[#a.ys] or nil }
      end
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
    runout.audits(ctx, { host })
    runout.across_notes(ctx, { host, long })
    if #growing > 0 then
      local rows = {}
      table.sort(growing, function(a, b) return a.rate > b.rate end)
      for i = 1, math.min(10, #growing) do
        local g = growing[i]
        local anon = g.anon_now or g.task.anon_bytes
        rows[#rows + 1] = { g.task.pid, g.task.comm, fmt.bytes(g.rss.ys[#g.rss.ys]),
          anon and fmt.bytes(anon) or "?", g.rss_rate and runout.rate(g.rss_rate, "bytes") or "no trend",
          g.anon_rate and runout.rate(g.anon_rate, "bytes") or "no trend",
          g.c.limit and ("cgroup " .. g.c.limit.name) or "host" }
      end
      ctx:table { title = "Processes whose memory grows steadily",
                  columns = { "pid", "process", "RSS", "anonymous", "RSS growth", "anonymous growth", "room from" },
                  rows = rows }
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
      local subject = fmt.task(worst.task)
      if worst.anon then subject = subject .. "'s anonymous memory" end
      local rss_flat = ""
      if worst.anon then
        for _, g in ipairs(growing) do
          if g.task == worst.task and not g.rss_rate then rss_flat = " (its resident size does not rise steadily)" end
        end
      end
      sentence = string.format("%s grows %s%s: %s %s", subject, runout.rate(worst.ex.rate, "bytes"), rss_flat,
        worst.limit and ("its cgroup " .. worst.limit.name .. " reaches its limit") or "the host's available memory runs out",
        trend.when(worst.ex))
    elseif worst.long then
      named = runout.blame(ctx, growing, 0, 3)
      sentence = runout.grew_sentence(worst)
      local who = runout.who(named)
      if who then sentence = sentence .. "; growing now: " .. who end
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
