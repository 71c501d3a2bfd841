--- Who: the containers and pods, the USE view that matters inside limits, and the noisy
-- neighbour. Each container (Docker, containerd, CRI-O, podman, runc, systemd-nspawn, LXC; a
-- Kubernetes pod's containers by pod) with its processes, CPU against its quota and the
-- periods it was throttled, memory against its limit with the time until it reaches it,
-- tasks against pids.max, I/O against io.max; then the noisy neighbour: the container that
-- holds most of a contended resource while the others (other containers and the host's own
-- processes) wait for it: runnable threads waiting for a CPU, threads blocked on the disk or
-- on memory (faults, reclaim), from the thread states. A throttled container hurts itself;
-- a noisy one hurts the others.
local cgroups = require("cgroups")
local containers = require("containers")
local waits = require("waits")
local trend = require("trend")
local tasks = require("tasks")
local fmt = require("fmt")

-- The resources a neighbour can take from the others: what it uses, and the wait class of
-- those it hurts.
local CONTENDED = {
  { id = "cpu", wait = "runq", what = "CPU", waiting = "runnable threads waiting for a CPU",
    key = cgroups.cpu_key },
  { id = "disk", wait = "disk", what = "disk I/O", waiting = "threads blocked on the disk",
    key = cgroups.io_key },
  { id = "memory", wait = "memory", what = "memory", waiting = "threads stalled on memory (faults, reclaim)",
    key = cgroups.rss_key },
}

-- A container's cgroups (v1 hierarchies share a path) as ctx.proc.cgroups() entries, top first.
local function cgroups_of(c, by_path)
  local out = {}
  for _, p in ipairs(c.cgroups) do
    if by_path[p] then out[#out + 1] = by_path[p] end
  end
  table.sort(out, function(a, b)
    if #a.path ~= #b.path then return #a.path < #b.path end
    return a.version < b.version
  end)
  return out
end

-- Thread-seconds of each class per workload key (a container's label), "host" for the rest.
local function waits_by_workload(ctx, ix)
  local th = ctx.proc.threads()
  if not th or not th.span_s or th.span_s <= 0 then return nil end
  local out, opts = {}, waits.options(ctx)
  local function add(pid, a)
    local e = containers.of_pid(ix, pid)
    local key = e and e.container and e.container.label or (e and e.label) or "host"
    local w = out[key] or {}
    out[key] = w
    for id, s in pairs(a.classes) do w[id] = (w[id] or 0) + s end
  end
  waits.each(th, th.span_s, opts, function(p, a)
    if p.quiet then
      for _, pid in ipairs(p.quiet.pids) do add(pid, a) end
    else
      add(p.pid, a)
    end
  end)
  return out, th.span_s
end

-- Memory against its limit: the peak share, and the time until the limit at the window's trend.
local function memory_of(cg)
  local limit = cg.memory.limit
  if not limit or limit <= 0 or #cg.memory.usage == 0 then return nil end
  local ts, ys = trend.points(cg.memory.usage, "bytes")
  local ex = trend.runout(ts, ys, limit)
  return { pct = 100 * cg.memory.usage:max("bytes") / limit, limit = limit, now = ys[#ys], ex = ex }
end

return {
  id = "workload.container-who",
  title = "Who: containers and pods (limits, throttling, the noisy neighbour)",
  methodology = "workload", resource = "container", metric = "who",
  tags = { "default", "proc" },
  collect = { "proc.cgroups", "proc.pids", "proc.threads", "net.sockets" },
  args = {
    top = { type = "number", default = 16, help = "containers in the table" },
    noisy_share = { type = "number", default = 0.5, help = "share of a contended resource's use that makes a container the neighbour" },
    warn_victims = { type = "number", default = 0.5, help = "threads of the others waiting on average (runnable, blocked on the disk or memory) that warns" },
    crit_victims = { type = "number", default = 2, help = "threads of the others waiting on average that is critical" },
  },

  run = function(ctx, args)
    local ix, why = containers.load(ctx)
    local list = ctx.proc.cgroups()
    if not ix or not list then
      ctx:unknown("containers", why or "no cgroup information")
      return
    end
    local all = ctx.proc.tasks() or {}
    local by_path, by_pid = {}, {}
    for _, cg in ipairs(list) do
      if not by_path[cg.path] or cg.version == 1 then by_path[cg.path] = cg end
    end
    for _, t in ipairs(all) do by_pid[t.pid] = t end
    local hz = ctx.host.clk_tck or 100
    local focus, fwhy = containers.focus(ctx, ix)
    if focus == false then ctx:note(fwhy) end
    local obs = ctx.host.observer
    if obs and (obs.pid_ns == "own" or obs.cgroup_ns == "own") then
      ctx:note(string.format("sonde ran in its own %s namespace: the containers here are those it could see, not the host's (the Host section says what it could not see)",
        obs.pid_ns == "own" and "PID" or "cgroup"))
    end

    -- one row per container (its monitor apart), its processes from the pid map
    local rows, members = {}, {}
    for pid, path in pairs(ix.pids) do
      local e = ix.cgroups[path]
      local c = e and not e.monitor and e.container
      if c then
        members[c] = members[c] or {}
        if by_pid[pid] then table.insert(members[c], by_pid[pid]) end
      end
    end
    for _, c in ipairs(ix) do
      local cgs = cgroups_of(c, by_path)
      local top = cgs[1]
      local procs = members[c] or {}
      local cpu = 0
      for _, t in ipairs(procs) do cpu = cpu + tasks.cpu_seconds(t, hz) end
      local r = { c = c, cg = top, procs = procs, cpu_s = cpu, cpu = "-", mem = "-", pids = "-", io = "-", thr = "-" }
      -- each part from the first of its cgroups that has it: v1 runc puts its memory cgroup
      -- below the caller's memory cgroup, its CPU one elsewhere
      local function part(has)
        for _, cg in ipairs(cgs) do if has(cg) then return cg end end
        return nil
      end
      local cpu_cg = part(function(cg) return cgroups.delta(cg, "cpu", "usage_usec") or cg.cpu.quota_usec end)
      if cpu_cg then
        local quota, period = cpu_cg.cpu.quota_usec, cpu_cg.cpu.period_usec
        -- the cgroup's own CPU time where read at both ends, else its processes'
        local used, secs = cgroups.delta(cpu_cg, "cpu", "usage_usec"), cgroups.span(cpu_cg, "cpu")
        if used and secs then r.cpu_s = used / 1e6 * ctx.window.seconds / secs end
        local cpus = ctx.window.seconds > 0 and r.cpu_s / ctx.window.seconds or 0
        r.cpu = quota and period and period > 0 and string.format("%.2f of %.2f CPUs", cpus, quota / period)
          or string.format("%.2f CPUs", cpus)
        local periods, thr = cgroups.delta(cpu_cg, "cpu", "nr_periods"), cgroups.delta(cpu_cg, "cpu", "nr_throttled")
        if periods and thr and periods > 0 then
          r.thr = fmt.pct(100 * thr / periods)
          ctx:metric("throttled_pct", 100 * thr / periods, { unit = "%", instance = c.label, agg = "mean" })
        end
      end
      local mem_cg = part(function(cg) return memory_of(cg) end)
      local m = mem_cg and memory_of(mem_cg)
      if m then
        r.mem = string.format("%s of %s%s", fmt.bytes(m.now), fmt.bytes(m.limit),
          m.ex and (", limit " .. trend.when(m.ex)) or "")
        ctx:metric("memory_limit_pct", m.pct, { unit = "%", instance = c.label, agg = "peak" })
      end
      local pids_cg = part(function(cg) return cg.pids.limit and #cg.pids.current > 0 end)
      if pids_cg then
        r.pids = string.format("%d of %d", pids_cg.pids.current:max("current"), pids_cg.pids.limit)
      end
      local io_cg = part(function(cg) return cgroups.io_limit(cg) or cgroups.io_rate(cg) end)
      if io_cg then
        local io, rate = cgroups.io_limit(io_cg), cgroups.io_rate(io_cg)
        if io then
          r.io = string.format("%s of limit on %s", fmt.pct(io.pct), io.dev)
        elseif rate then
          r.io = fmt.bytes(rate) .. "/s"
        end
      end
      if not focus or (top and focus.paths[top.path]) then rows[#rows + 1] = r end
    end
    ctx:metric("containers", #ix, { agg = "last", help = "containers with processes in the window" })
    ctx:metric("pods", #ix.pods, { agg = "last", help = "Kubernetes pods with processes in the window" })
    if #ix == 0 or #rows == 0 then
      ctx:summary(#ix > 0 and "no container of this window is the workload asked for"
        or #ix.pods > 0 and string.format("%d pods, no container cgroup with processes", #ix.pods)
        or "no container runs on this host (no cgroup of a container runtime held a process)")
      return
    end
    table.sort(rows, function(a, b)
      if a.cpu_s ~= b.cpu_s then return a.cpu_s > b.cpu_s end
      return a.c.label < b.c.label
    end)
    local tab = {}
    for i, r in ipairs(rows) do
      if i > args.top then break end
      tab[#tab + 1] = { r.c.label, r.c.image or "-", r.c.short or r.c.id, #r.procs, r.cpu, r.thr, r.mem, r.pids, r.io }
    end
    ctx:table { title = focus and ("The workload " .. focus.label) or "Containers by CPU used (limits: use against them)",
      columns = { "container", "image", "id", "processes", "CPU", "throttled", "memory", "tasks", "I/O" }, rows = tab }
    local unnamed = containers.unnamed(ix)
    if unnamed then ctx:note(unnamed) end

    -- the noisy neighbour: most of a contended resource while the others wait for it
    local w, span = waits_by_workload(ctx, ix)
    if not w then
      ctx:unknown("neighbour_waiting_threads", "no thread states (proc.threads) to tell who waits")
      ctx:summary(string.format("%s; CPU busiest: %s", fmt.count(#ix, "container"), rows[1].c.label))
      return
    end
    local worst
    for _, res in ipairs(CONTENDED) do
      local use, total = {}, 0
      for _, r in ipairs(rows) do
        local v = 0
        for _, t in ipairs(r.procs) do v = v + (not t.self and res.key(t) or 0) end
        use[r] = v
      end
      for _, t in ipairs(all) do total = total + (not t.self and res.key(t) or 0) end
      local big, big_v = nil, 0
      for r, v in pairs(use) do
        if v > big_v or (v == big_v and big and r.c.label < big.c.label) then big, big_v = r, v end
      end
      if big and total > 0 and big_v / total >= args.noisy_share then
        local others = 0
        for key, cls in pairs(w) do
          if key ~= big.c.label then others = others + (cls[res.wait] or 0) end
        end
        local victims = others / span
        local st = ctx:metric("neighbour_waiting_threads", victims, { unit = "threads", instance = res.id,
          warn = args.warn_victims, crit = args.crit_victims, agg = "mean",
          help = "the others' threads waiting for the resource the busiest container holds most of" })
        if st ~= "ok" and (not worst or victims > worst.victims) then
          worst = { r = big, res = res, share = big_v / total, victims = victims }
        end
      end
    end
    if worst then
      local top = tasks.top(worst.r.procs, worst.res.key, 3)
      local sum = 0
      for _, t in ipairs(worst.r.procs) do sum = sum + math.max(0, worst.res.key(t)) end
      tasks.blame(ctx, top, sum, 3)
      ctx:summary(string.format("%s is the noisy neighbour: %s of the %s, while the others had %.1f %s on average",
        worst.r.c.label, fmt.pct(100 * worst.share), worst.res.what, worst.victims, worst.res.waiting))
      ctx:next("its limits: the container's CPU quota (cpu.max), memory.max, io.max; for Kubernetes, the pod's resources.limits")
    else
      ctx:summary(string.format("%s%s; CPU busiest: %s (%.2f CPUs); no container crowds the others out",
        fmt.count(#ix, "container"), #ix.pods > 0 and (" in " .. fmt.count(#ix.pods, "pod")) or "",
        rows[1] and rows[1].c.label or "-", rows[1] and ctx.window.seconds > 0 and rows[1].cpu_s / ctx.window.seconds or 0))
    end
  end,
}
