--- How processes spend their threads' time (Gregg's TSA method): on a CPU,
-- waiting for one, blocked on something specific (a lock, the disk, the file
-- system, a network peer, memory, a pipe), or idle (epoll, poll, sleeps,
-- accept on an empty queue, a parked pool), from the thread states of the
-- first window (ctx.proc.threads: every thread each round, the busiest
-- waiters sampled faster). A workload view: it judges nothing (the
-- use.*-waits checks do); idle waits are shown here, never as a problem.
local waits = require("waits")
local tasks = require("tasks")
local cgroups = require("cgroups")
local containers = require("containers")

-- The cgroup of each pid: the deepest one that listed it (v1's hierarchies merged by path).
local function cgroup_of_pids(ctx)
  local list = ctx.proc.cgroups()
  if not list then return nil end
  local of = {}
  for _, cg in ipairs(list) do
    for _, pid in ipairs(cg.procs or {}) do
      local cur = of[pid]
      if not cur or #cg.path > #cur.path then of[pid] = cg end
    end
  end
  return of, list
end

-- The blocked share of classes (all but on CPU, runnable, idle, unknown and stopped).
local NOT_BLOCKED = { cpu = true, runq = true, idle = true, unknown = true, stopped = true }

local function threads(s, window_s)
  return string.format("%.2f", s / window_s)
end

-- The class that holds most of a process's non-idle off-CPU time, and its first wait.
local function main_wait(a)
  local best, best_s
  for _, c in ipairs(waits.classes) do
    local class, s = c.id, a.classes[c.id]
    if s and class ~= "cpu" and class ~= "runq" and class ~= "idle" and class ~= "unknown" and class ~= "stopped"
        and (not best_s or s > best_s) then
      best, best_s = class, s
    end
  end
  if not best then return "-" end
  local top = a.by[best][1]
  return waits.label[best] .. ": " .. (top and top.what or "?")
end

return {
  id = "workload.process-how",
  title = "How: where threads spend their time (thread states)",
  methodology = "workload", resource = "process", metric = "how",
  tags = { "default", "proc" },
  collect = { "proc.pids", "proc.threads", "net.sockets", "proc.cgroups" },
  args = {
    top = { type = "number", default = 12, help = "processes in the table and the bars" },
  },

  run = function(ctx, args)
    local th, why = ctx.proc.threads()
    if not th then
      ctx:unknown("blocked_threads", why)
      return
    end
    local window_s = th.span_s
    if not window_s or window_s <= 0 then
      ctx:unknown("blocked_threads", "the thread states cover no interval (one round)")
      return
    end
    local opts = waits.options(ctx)
    local host, idle, rows = {}, {}, {}
    local cg_of, cg_list = cgroup_of_pids(ctx)
    local ix = cg_list and containers.load(ctx)
    local by_cg = {}
    -- a process's classes into its cgroup's (the host's own, "/", when none listed it)
    local function into_cgroup(pid, a)
      local cg = cg_of and cg_of[pid]
      local key = cg and cgroups.name(cg, cg_list) or "/"
      local e = by_cg[key] or { name = key, label = cg and containers.label(ix, cg) or "-", procs = 0, classes = {} }
      by_cg[key] = e
      e.procs = e.procs + 1
      for _, c in ipairs(waits.classes) do
        if a.classes[c.id] then e.classes[c.id] = (e.classes[c.id] or 0) + a.classes[c.id] end
      end
    end
    waits.each(th, window_s, opts, function(p, a, n)
      for _, c in ipairs(waits.classes) do
        if a.classes[c.id] then host[c.id] = (host[c.id] or 0) + n * a.classes[c.id] end
      end
      if cg_of then
        if p.quiet then
          for _, pid in ipairs(p.quiet.pids) do into_cgroup(pid, a) end
        else
          into_cgroup(p.pid, a)
        end
      end
      for _, e in ipairs(a.by.idle or {}) do
        local k = idle[e.what] or { what = e.what, s = 0, procs = 0 }
        idle[e.what] = k
        k.s = k.s + n * e.s
        k.procs = k.procs + n
      end
      -- blocked: waiting on something named (not idle, not unknown, not stopped)
      local blocked = a.busy_s - (a.classes.cpu or 0) - (a.classes.runq or 0) - (a.classes.unknown or 0)
        - (a.classes.stopped or 0)
      if p.quiet and blocked <= 0 then return end -- idle all along: counted above, not listed
      for _, m in ipairs(p.quiet and waits.members(p) or { p }) do
        rows[#rows + 1] = { p = m, a = a, blocked = blocked }
      end
    end)

    local blocked_all = 0
    for _, c in ipairs(waits.classes) do
      if host[c.id] and not NOT_BLOCKED[c.id] then blocked_all = blocked_all + host[c.id] end
    end
    ctx:metric("oncpu_threads", (host.cpu or 0) / window_s, { unit = "threads", agg = "mean", help = "threads on a CPU, from the thread states" })
    ctx:metric("runnable_threads", (host.runq or 0) / window_s, { unit = "threads", agg = "mean", help = "threads waiting for a CPU, from the thread states" })
    ctx:metric("blocked_threads", blocked_all / window_s, { unit = "threads", agg = "mean", help = "threads blocked on something named (disk, lock, network...), from the thread states" })
    ctx:metric("idle_threads", (host.idle or 0) / window_s, { unit = "threads", agg = "mean", help = "threads idle (parked, polling with nothing to do), from the thread states" })
    ctx:metric("load_running_threads", th.r_mean or 0, { unit = "threads", agg = "mean", node_exporter = "node_procs_running" })
    ctx:metric("load_uninterruptible_threads", th.d_mean or 0, { unit = "threads", agg = "mean", node_exporter = "node_procs_blocked" })

    -- the processes that wait most on something specific; then those that run most
    -- --container, --pod: the workload's processes in the table (the host's totals stay)
    local focus, fwhy = containers.focus(ctx, ix)
    if focus == false then ctx:note(fwhy) end
    if focus then
      local mine = {}
      for _, r in ipairs(rows) do if focus.pids[r.p.pid] then mine[#mine + 1] = r end end
      rows = mine
    end
    local top = tasks.best(rows, args.top, function(x, y)
      if x.blocked ~= y.blocked then return x.blocked > y.blocked end
      local cx, cy = (x.a.classes.cpu or 0) + (x.a.classes.runq or 0), (y.a.classes.cpu or 0) + (y.a.classes.runq or 0)
      if cx ~= cy then return cx > cy end
      return x.p.pid < y.p.pid
    end)
    local tab, bars = {}, {}
    local in_ct = false
    for _, r in ipairs(top) do
      local c = r.a.classes
      if r.a.total_s > 0 then
        local e = containers.of_pid(ix, r.p.pid)
        in_ct = in_ct or e ~= nil
        tab[#tab + 1] = { r.p.pid, r.p.comm or "?", r.p.threads or 0, threads(c.cpu or 0, window_s),
          threads(c.runq or 0, window_s), threads(r.blocked, window_s), threads(c.idle or 0, window_s),
          main_wait(r.a), e and e.label or "-" }
        local values = {}
        for i, cl in ipairs(waits.classes) do values[i] = 100 * (c[cl.id] or 0) / r.a.total_s end
        bars[#bars + 1] = { label = string.format("%s (%d)", r.p.comm or "?", r.p.pid), values = values }
      end
    end
    if #tab > 0 then
      local columns = { "pid", "process", "threads", "on CPU", "runnable", "blocked", "idle", "blocked most on" }
      -- the container column where some process runs in one
      if in_ct then columns[#columns + 1] = "container" else for _, row in ipairs(tab) do row[9] = nil end end
      ctx:table { title = (focus and ("Thread states of " .. focus.label .. "'s processes")
          or "Thread states by process") .. ": threads on average in each state (most blocked first)",
        columns = columns, rows = tab }
      -- the classes some process has, in the order of waits.classes
      local cats, keep = {}, {}
      for i, cl in ipairs(waits.classes) do
        for _, b in ipairs(bars) do
          if b.values[i] >= 0.5 then keep[#keep + 1] = i; cats[#cats + 1] = cl.label; break end
        end
      end
      for _, b in ipairs(bars) do
        local v = {}
        for k, i in ipairs(keep) do v[k] = b.values[i] end
        b.values = v
      end
      if #cats > 0 then
        ctx:bars { title = "Where each process's thread time goes (% of its threads' time)", unit = "%",
          label = "process", categories = cats, rows = bars }
      end
    end

    -- by cgroup (a container, a service): the same states, summed over its processes
    local cgl = {}
    for _, e in pairs(by_cg) do
      e.blocked = 0
      for _, c in ipairs(waits.classes) do
        if not NOT_BLOCKED[c.id] then e.blocked = e.blocked + (e.classes[c.id] or 0) end
      end
      e.busy = (e.classes.cpu or 0) + (e.classes.runq or 0) + e.blocked
      cgl[#cgl + 1] = e
    end
    table.sort(cgl, function(x, y)
      if x.blocked ~= y.blocked then return x.blocked > y.blocked end
      if x.busy ~= y.busy then return x.busy > y.busy end
      return x.name < y.name
    end)
    local ctab = {}
    for i, e in ipairs(cgl) do
      if i > args.top then break end
      local best, best_s
      for _, c in ipairs(waits.classes) do
        local s = e.classes[c.id]
        if s and not NOT_BLOCKED[c.id] and (not best_s or s > best_s) then best, best_s = c.id, s end
      end
      ctab[#ctab + 1] = { e.name, e.label or "-", e.procs, threads(e.classes.cpu or 0, window_s), threads(e.classes.runq or 0, window_s),
        threads(e.blocked, window_s), threads(e.classes.idle or 0, window_s), best and waits.label[best] or "-" }
    end
    if #ctab > 1 then
      ctx:table { title = "Thread states by cgroup: threads on average in each state (most blocked first)",
        columns = { "cgroup", "container", "processes", "on CPU", "runnable", "blocked", "idle", "blocked most on" }, rows = ctab }
    end

    local il = {}
    for _, k in pairs(idle) do il[#il + 1] = k end
    table.sort(il, function(x, y)
      if x.s ~= y.s then return x.s > y.s end
      return x.what < y.what
    end)
    local itab = {}
    for i, k in ipairs(il) do
      if i > 16 then break end
      itab[#itab + 1] = { k.what, threads(k.s, window_s), k.procs }
    end
    if #itab > 0 then
      ctx:table { title = "Idle waits (threads waiting for work: not a problem)",
        columns = { "waiting in", "threads (mean)", "processes" }, rows = itab }
    end

    ctx:note(string.format("At the rounds, %.1f threads were running or runnable (R) and %.1f in uninterruptible sleep (D) on average: the load average counts both.",
      th.r_mean or 0, th.d_mean or 0))
    ctx:note(waits.resolution(th))

    local parts = {}
    for _, cl in ipairs(waits.classes) do
      local s = host[cl.id]
      if s and s > 0 and cl.id ~= "idle" and (cl.id == "cpu" or cl.id == "runq" or s / window_s >= 0.05) then
        parts[#parts + 1] = string.format("%.2f %s", s / window_s, cl.label)
      end
    end
    local s = string.format("threads on average: %s; %.1f idle", #parts > 0 and table.concat(parts, ", ") or "none busy",
      (host.idle or 0) / window_s)
    local worst = top[1]
    if worst and worst.blocked / window_s >= 0.05 then
      s = s .. string.format("; most blocked: %s, on %s", waits.who(worst.p), main_wait(worst.a))
    end
    ctx:summary(s)
  end,
}
