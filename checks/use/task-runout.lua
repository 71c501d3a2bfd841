--- Tasks running out: the host's threads against threads-max and pid_max, each pids cgroup
-- against pids.max, and each process whose threads grow, by their trend over the window; the
-- time until fork fails, and who forks.
--
-- Across runs: the host's threads (metric threads, instance "host") continue over the earlier
-- audits of this host in --out (ctx.history) of this boot only: a reboot ends every task, so an
-- audit of another boot is left out, named. A process's threads and a pids cgroup's count are not
-- carried across runs: a pid does not survive its process.
local runout = require("runout")
local trend = require("trend")
local cgroups = require("cgroups")
local fmt = require("fmt")

-- A pids cgroup's limit and its tasks now.
local function pids_limit(cg)
  return cg.pids.limit, #cg.pids.current > 0 and cg.pids.current:last("current") or nil
end

-- Parents of the processes born in the window and still alive: those hold new pids too.
local function spawners(ctx, members)
  local list = ctx.proc.tasks() or {}
  local by_pid, kids = {}, {}
  for _, t in ipairs(list) do by_pid[t.pid] = t end
  for _, t in ipairs(list) do
    if t.started and not t.exited and (not members or members[t.pid]) then
      kids[t.ppid] = (kids[t.ppid] or 0) + 1
    end
  end
  local out, secs = {}, math.max(ctx.window.seconds, 1)
  for ppid, n in pairs(kids) do
    local p = by_pid[ppid]
    if p and not p.self then out[#out + 1] = { task = p, rate = n / secs } end
  end
  return out
end

return {
  id = "use.task-runout",
  title = "Tasks running out",
  methodology = "use", resource = "task", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.loadavg", "proc.pids", "proc.cgroups", "history" },
  args = runout.args(),

  run = function(ctx, args)
    local cands, room, host, long = {}, math.huge, nil, nil
    local la, why = ctx.proc.loadavg()
    if la then
      -- every thread holds a pid: the host runs out at the smaller of the two
      local cap = math.min(ctx.host.threads_max or math.huge, ctx.host.pid_max or math.huge)
      if cap > 0 and cap < math.huge then
        local ts, ys = trend.points(la, "threads")
        host = runout.assess(ctx, { name = "host threads", instance = "host", ts = ts, ys = ys,
          capacity = cap, unit = "", verb = "out of threads" }, args)
        cands[1] = host
        room = cap - (ys[#ys] or 0)
        if #ys > 0 then ctx:metric("threads", ys[#ys], { instance = "host", over = ys, agg = "last" }) end
        local hist = ctx.history("threads")
        long = runout.across(host, hist and hist.host, { reset_at_boot = true })
        if long then cands[2] = runout.assess(ctx, long, args) end
      end
    else
      ctx:unknown("time_left_s", why)
    end
    local cglist = ctx.proc.cgroups()
    local limit_of = runout.cgroup_room(cglist, pids_limit)
    local growers = {}
    for _, e in ipairs(runout.task_series(ctx, "threads")) do
      local lim = limit_of[e.task.pid]
      local r = lim and math.min(room, lim.headroom) or room
      if r < math.huge then
        local c = runout.assess(ctx, { name = fmt.task(e.task) .. " threads", instance = fmt.task(e.task), ts = e.ts,
          ys = e.ys, capacity = e.ys[#e.ys] + r, unit = "", task = e.task,
          limit = lim and r == lim.headroom and lim or nil }, args)
        cands[#cands + 1] = c
        if c.fit and c.fit.real then growers[#growers + 1] = { task = e.task, rate = c.fit.slope, pid = e.task.pid } end
      end
    end
    for _, cg in ipairs(cglist or {}) do
      local limit = cg.pids.limit
      if limit and limit > 0 and #cg.pids.current > 0 then
        local ts, ys = trend.points(cg.pids.current, "current")
        local members = {}
        for _, pid in ipairs(cg.procs) do members[pid] = true end
        local own = {}
        for _, g in ipairs(growers) do if members[g.pid] then own[#own + 1] = g end end
        cands[#cands + 1] = runout.assess(ctx, { name = "cgroup " .. cgroups.name(cg, cglist) .. " pids",
          instance = cgroups.name(cg, cglist), ts = ts, ys = ys, capacity = limit, unit = "", members = own,
          member_set = members }, args)
      end
    end
    local out = runout.report(ctx, cands, args, "Tasks: level, trend and time until fork fails")
    if host then
      runout.audits(ctx, { host })
      runout.across_notes(ctx, { host, long })
    end
    if #out == 0 then
      ctx:summary("no task limit is being approached: no steady growth of threads toward threads-max, pid_max or "
        .. "a pids.max")
      return
    end
    local worst = out[1]
    local sentence
    if worst.task then
      runout.blame_self(ctx, worst)
      sentence = string.format("%s starts %s threads: %s %s", fmt.task(worst.task), runout.rate(worst.ex.rate, ""),
        worst.limit and ("its cgroup " .. worst.limit.name .. " reaches pids.max") or "the host runs out of threads",
        trend.when(worst.ex))
    elseif worst.long then
      local blamed = #growers > 0 and growers or spawners(ctx)
      sentence = runout.grew_sentence(worst)
      local who = runout.who(runout.blame(ctx, blamed, 0, 3))
      if who then sentence = sentence .. "; forking now: " .. who end
    else
      local blamed = worst.members or growers
      if #blamed == 0 then blamed = spawners(ctx, worst.member_set) end
      sentence = runout.say(ctx, worst, blamed, "exhausted", "forking")
    end
    ctx:summary(sentence)
  end,
}
