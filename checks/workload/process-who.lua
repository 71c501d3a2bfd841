--- Who: the processes behind the load, by CPU, disk I/O and context switches;
-- then the same load summed by user (uid) and by cgroup.
local fmt = require("fmt")
local tasks = require("tasks")
local cgroups = require("cgroups")

local function table_of(ctx, title, top, unit_col, value_fmt)
  local rows = {}
  for _, e in ipairs(top) do
    rows[#rows + 1] = { e.task.pid, e.task.comm, value_fmt(e.value), e.task.uid or "?", e.task.cmdline }
  end
  ctx:table { title = title, columns = { "pid", "process", unit_col, "uid", "command" }, rows = rows }
end

--- Groups of processes summed by a name (a uid, a cgroup): CPU seconds, I/O bytes and
-- processes, in one table per kind, added to as the tasks are walked once.
local function groups_new()
  return { by = {}, order = {} }
end

local function group_add(gs, name, cpu, io, has_io)
  local g = gs.by[name]
  if not g then
    g = { name = name, cpu = 0, io = 0, procs = 0, io_unread = 0 }
    gs.by[name] = g
    gs.order[#gs.order + 1] = g
  end
  g.cpu = g.cpu + cpu
  if has_io then
    g.io = g.io + io
  else
    g.io_unread = g.io_unread + 1
  end
  g.procs = g.procs + 1
end

--- The groups by CPU, then I/O, then name.
local function groups_sorted(gs)
  table.sort(gs.order, function(a, b)
    if a.cpu ~= b.cpu then return a.cpu > b.cpu end
    if a.io ~= b.io then return a.io > b.io end
    return tostring(a.name) < tostring(b.name)
  end)
  return gs.order
end

--- Rows of the top n groups by CPU then I/O, the rest summed into one row.
local function group_rows(order, n, secs, label)
  local rows, rest = {}, nil
  for i, g in ipairs(order) do
    if i <= n then
      rows[#rows + 1] = { label(g), g.procs, fmt.pct(100 * g.cpu / secs), fmt.bytes(g.io),
        g.io_unread > 0 and tostring(g.io_unread) or "" }
    else
      rest = rest or { cpu = 0, io = 0, procs = 0, n = 0 }
      rest.cpu, rest.io, rest.procs, rest.n = rest.cpu + g.cpu, rest.io + g.io, rest.procs + g.procs, rest.n + 1
    end
  end
  if rest then
    rows[#rows + 1] = { string.format("(%d more)", rest.n), rest.procs, fmt.pct(100 * rest.cpu / secs), fmt.bytes(rest.io), "" }
  end
  return rows
end

return {
  id = "workload.process-who",
  title = "Who: top processes",
  methodology = "workload", resource = "process", metric = "who",
  tags = { "default", "proc" },
  collect = { "proc.pids", "proc.cgroups" },
  args = { top = { type = "number", default = 8, help = "rows per table" } },

  run = function(ctx, args)
    local list, why = ctx.proc.tasks()
    if not list then
      ctx:unknown("top_processes", why)
      return
    end
    local hide = ctx.host.proc_hidepid
    if hide and hide ~= "0" and hide ~= "off" and ctx.host.euid ~= 0 then
      ctx:unknown("other_users_processes", string.format(
        "/proc is mounted with hidepid=%s and sonde ran as uid %s: other users' processes are hidden from it (run it as root)",
        hide, tostring(ctx.host.euid)))
    end
    local hz, secs = ctx.host.clk_tck, math.max(ctx.window.seconds, 1e-9)

    -- By cgroup: the processes each cgroup.procs listed (direct members, not descendants).
    local cgs, cwhy = ctx.proc.cgroups()
    local member = {}
    if cgs then
      for _, cg in ipairs(cgs) do
        for _, pid in ipairs(cg.procs) do
          local names = member[pid] or {}
          names[#names + 1] = cgroups.name(cg, cgs)
          member[pid] = names
        end
      end
    end

    -- One walk over the processes (a host may run tens of thousands): each field read
    -- once, for the three rankings, the sums by user and by cgroup, and the counts.
    -- sonde itself is left out of the rankings and sums, as tasks.top leaves it out.
    local offer_cpu, by_cpu = tasks.ranker(args.top)
    local offer_io, by_io = tasks.ranker(args.top)
    local offer_cs, by_cs = tasks.ranker(args.top)
    local by_uid, by_cg = groups_new(), groups_new()
    local started, exited, kthreads, denied = 0, 0, 0, 0
    for _, t in ipairs(list) do
      if not t.self then
        local cpu = tasks.cpu_seconds(t, hz)
        local rb, wb = t.read_bytes, t.write_bytes
        local has_io = rb ~= nil or wb ~= nil
        local io = (rb or 0) + (wb or 0)
        local sw = t.switches
        if cpu > 0 then offer_cpu(t, cpu) end
        if io > 0 then offer_io(t, io) end
        if sw and sw > 0 then offer_cs(t, sw) end
        local uid = t.uid
        if uid then group_add(by_uid, uid, cpu, io, has_io) end
        -- a process listed in several cgroups (v1 hierarchies that place it apart) counts in each
        for _, name in ipairs(member[t.pid] or {}) do
          group_add(by_cg, name, cpu, io, has_io)
        end
      end
      if t.io_denied then denied = denied + 1 end
      if t.started then started = started + 1 end
      if t.exited then exited = exited + 1 end
      if t.kernel_thread then kthreads = kthreads + 1 end
    end
    table_of(ctx, "By CPU (share of one CPU over the window)", by_cpu, "CPU",
      function(v) return fmt.pct(100 * v / secs) end)
    table_of(ctx, "By disk I/O (bytes read + written)", by_io, "I/O", fmt.bytes)
    table_of(ctx, "By context switches (main thread, times scheduled in)", by_cs, "switches", fmt.num)

    -- By user: the uid of each process (the captures hold no user names).
    ctx:table { title = "By user (uid; CPU as a share of one CPU, I/O read + written)",
      columns = { "uid", "processes", "CPU", "I/O", "I/O unreadable (processes)" },
      rows = group_rows(groups_sorted(by_uid), args.top, secs, function(g) return tostring(g.name) end) }

    if not cgs then
      ctx:unknown("cgroup_load", cwhy)
    else
      ctx:table { title = "By cgroup (processes listed in its cgroup.procs; CPU as a share of one CPU, I/O read + written)",
        columns = { "cgroup", "processes", "CPU", "I/O", "I/O unreadable (processes)" },
        rows = group_rows(groups_sorted(by_cg), args.top, secs, function(g) return g.name end) }
      if cgs.v1 then
        ctx:note("cgroup v1: a process is in one cgroup per hierarchy (cpu, memory, pids, ...), so it counts in each cgroup that lists it above.")
      end
      if cgs.truncated then
        ctx:note("The cgroup walk hit its bound: some cgroups are missing from the table above.")
      end
    end

    if denied > 0 then
      -- The kernel shows /proc/PID/io only to who may ptrace the process (ptrace_may_access, read
      -- mode). Not root: another user's processes. Root: a non-dumpable process, or one holding
      -- capabilities sonde lacks, needs CAP_SYS_PTRACE over it (in its user namespace), which
      -- sonde did not have (a unit's capability bounding set, a container), or a security module
      -- refused: running as root again would not help.
      local of = fmt.count(#list, "process", "processes")
      local rest = ": the I/O ranking covers the others only"
      if ctx.host.euid == 0 then
        ctx:unknown("io_bytes", string.format("/proc/PID/io was refused for %d of %s although sonde ran as root: "
          .. "the kernel shows it only to who may ptrace the process, and sonde may not ptrace these (a "
          .. "non-dumpable one, or one holding capabilities sonde lacks, takes CAP_SYS_PTRACE over it)%s",
          denied, of, rest))
      elseif ctx.host.euid then
        ctx:unknown("io_bytes", string.format("/proc/PID/io was unreadable for %d of %s (permission denied: other "
          .. "users' processes, and sonde ran as uid %d)%s", denied, of, ctx.host.euid, rest))
      else
        ctx:unknown("io_bytes", string.format("/proc/PID/io was unreadable for %d of %s (permission denied: other "
          .. "users' processes when not root, or ones sonde may not ptrace)%s", denied, of, rest))
      end
    end
    ctx:metric("processes", #list, { agg = "total", help = "processes seen in the window" })
    ctx:metric("started_in_window", started, { agg = "total" })
    ctx:metric("exited_in_window", exited, { agg = "total" })
    if by_cpu[1] then
      ctx:summary(string.format("%s (%s); top CPU: %s at %s of a CPU; %d started and %d exited during the window",
        fmt.count(#list, "process", "processes"), fmt.count(kthreads, "kernel thread"), fmt.task(by_cpu[1].task), fmt.pct(100 * by_cpu[1].value / secs), started, exited))
    else
      ctx:summary(string.format("%s, none used measurable CPU", fmt.count(#list, "process", "processes")))
    end
  end,
}
