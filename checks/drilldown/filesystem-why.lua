--- Waiting on files, deeper: of the processes the first window named, is the
-- disk slow (their file syscalls wait, and the block I/O under them is as
-- slow), is the file system slow while the disk is not (the syscalls wait,
-- the block I/O is fast or absent: locks, the journal, fsync, page-cache
-- misses served by a slow layer), are they waiting on files that answer fast
-- (many quick calls), or not waiting on files at all? fslatency times every
-- file syscall of theirs per mount; biolatency the block I/O of the same
-- window.
local fmt = require("fmt")
local hist = require("hist")
local bpf = require("bpf")

-- Mounts with no storage behind them: pipes, sockets, event fds, /dev, /proc.
-- Time in calls on these is the application waiting on something else.
local NOT_STORAGE = {
  pipefs = true, sockfs = true, anon_inodefs = true, devpts = true, devtmpfs = true,
  proc = true, sysfs = true, cgroup = true, cgroup2 = true, debugfs = true, tracefs = true,
  bpf = true, nsfs = true, securityfs = true, configfs = true, pstore = true, mqueue = true,
  binfmt_misc = true, fusectl = true, efivarfs = true, selinuxfs = true, hugetlbfs = true,
}

local function is_storage(r)
  return (r.mnt_id or 0) ~= 0 and not NOT_STORAGE[r.fstype or ""]
end

-- p99 of a row's histogram (us), never above its largest call: a log2
-- histogram knows a value only to within a factor of two
local function p99(r)
  local v = hist.percentile(r.hist or {}, 99)
  if v and r.max_us and v > r.max_us then v = r.max_us end
  return v
end


local function where(r)
  if (r.mount or "") == "" then return string.format("mount %d (%s)", r.mnt_id or 0, r.fstype or "?") end
  return string.format("%s (%s)", r.mount, r.fstype or "?")
end

-- Every op's total histogram of a disk (biolatency), summed.
local function disk_hist(disk)
  local sum = {}
  for _, op in pairs(disk.ops or {}) do
    for i, c in ipairs(op.total or {}) do sum[i] = (sum[i] or 0) + c end
  end
  for i = 1, #sum do sum[i] = sum[i] or 0 end
  return sum
end

-- The disk under a mount: its device (dev "MAJ:MIN"), else the disk the
-- partition is on (same major, the source's name starting with the disk's).
local function disk_of(bio, mount)
  if not bio or not mount then return nil end
  local major = (mount.dev or ""):match("^(%d+):")
  local src = (mount.source or ""):match("([^/]+)$") or ""
  local best
  for _, d in ipairs(bio.disks or {}) do
    if d.dev == mount.dev then return d end
    if major and (d.dev or ""):match("^(%d+):") == major and d.name and src:sub(1, #d.name) == d.name then
      best = d
    end
  end
  return best
end

-- The answer for the process that spends most time in file syscalls on storage (top, its
-- busiest row w with that row's p99 w99 in us, its share wait_pct of the traced seconds):
-- one decision, whose lead and sentence the summary is made of, so the two never disagree.
-- kind: "none" (no file syscall on storage), "little" (under wait_pct of the time), "fast"
-- (waiting on files, but they answer under warn_p99_ms), or "slow" (the disk or the file
-- system: decided below from the block I/O).
local function answer(top, w, wait_pct, w99, traced, args)
  if not w then
    return { kind = "none", lead = "not waiting on files", why = "no traced process made a file syscall on storage" }
  end
  local share = string.format("%s spent %s of the traced %.1f s in file syscalls on storage", fmt.task(top),
    fmt.pct(wait_pct), traced)
  if wait_pct < args.wait_pct then
    return { kind = "little", lead = "not waiting on files", why = string.format("%s (under %s)", share,
      fmt.pct(args.wait_pct)) }
  end
  if w99 < args.warn_p99_ms * 1000 then
    return { kind = "fast", lead = "waiting on files that answer fast",
      why = string.format("%s, %s on %s p99 %s ms (under %s ms): many fast calls, not slow ones",
        share, w.syscall, where(w), fmt.ms(w99), fmt.num(args.warn_p99_ms)) }
  end
  return { kind = "slow" }
end

return {
  id = "drilldown.filesystem-why",
  title = "Drill-down: slow disk, slow file system, or not waiting on files",
  methodology = "drilldown", resource = "filesystem", metric = "why",
  tags = { "drilldown", "tracing" },
  collect = { "bpf.fslatency", "bpf.biolatency" },
  args = {
    warn_p99_ms = { type = "number", default = 10, help = "p99 of a process's file syscalls (one syscall, one mount) that warns" },
    crit_p99_ms = { type = "number", default = 200, help = "p99 that is critical" },
    wait_pct = { type = "number", default = 5, help = "time in file syscalls, % of the traced time, below which a process is not waiting on files" },
    disk_share = { type = "number", default = 0.5, help = "block I/O p99 at least this share of the syscalls' p99: the disk is what is slow" },
    top = { type = "number", default = 10, help = "rows per table" },
  },

  run = function(ctx, args)
    local d, info = ctx.bpf.fslatency()
    if not d then
      ctx:unknown("file_p99_ms", info)
      return
    end
    local traced = bpf.traced_s(ctx, info)
    local only = info.filtered_to
    if only and #only > 0 then
      local pids = {}
      for i, p in ipairs(only) do pids[i] = tostring(p) end
      ctx:note(string.format("traced only pid %s (the first window's culprits), filtered in the kernel; over %.1f s of the window",
        table.concat(pids, ", "), traced))
    end
    if (info.drops or 0) > 0 then
      ctx:note(string.format("fslatency lost %d map entries (full maps): some processes or mounts are missing", info.drops))
    end
    if (d.calls or 0) == 0 then
      ctx:metric("file_wait_pct", 0, { unit = "%", agg = "mean" })
      ctx:summary("not waiting on files: no file syscall (read, write, open, fsync, ...) completed in the traced time")
      return
    end

    -- time in file syscalls per process: storage and the rest
    local per, order = {}, {}
    for _, r in ipairs(d.by_process_mount or {}) do
      local p = per[r.pid]
      if not p then
        p = { pid = r.pid, comm = r.comm, storage_us = 0, other_us = 0, other = {} }
        per[r.pid] = p
        order[#order + 1] = p
      end
      if is_storage(r) then
        p.storage_us = p.storage_us + (r.total_us or 0)
        if not p.worst or (r.total_us or 0) > (p.worst.total_us or 0) then p.worst = r end
      else
        p.other_us = p.other_us + (r.total_us or 0)
        if not p.other_top or (r.total_us or 0) > (p.other_top.total_us or 0) then p.other_top = r end
      end
    end
    table.sort(order, function(a, b)
      if a.storage_us ~= b.storage_us then return a.storage_us > b.storage_us end
      return a.pid < b.pid
    end)

    local rows = {}
    for _, r in ipairs(d.by_process_mount or {}) do
      if #rows >= args.top then break end
      rows[#rows + 1] = { r.pid, r.comm, r.syscall, r.mount ~= "" and r.mount or "?", r.fstype ~= "" and r.fstype or "-",
                          fmt.num(r.count), string.format("%.3f", (r.total_us or 0) / 1e6),
                          string.format("%.1f", (r.total_us or 0) / math.max(r.count or 1, 1)),
                          fmt.ms(p99(r)), fmt.ms(r.max_us) }
    end
    ctx:table { traced = info, title = "Time in file syscalls by process, syscall and mount (fslatency)",
                columns = { "pid", "process", "syscall", "mount", "fs", "calls", "time in it (s)", "mean (us)", "p99 (ms)", "max (ms)" },
                rows = rows }
    -- every traced call per interval of the window, as a latency heat map,
    -- whatever the answer: a stall is a stripe, a periodic flush stripes at
    -- its period, a cache that misses part of the time two bands (Markdown:
    -- p50/p99/max per interval)
    hist.heatmap(ctx, "File syscall latency over the window, every traced call (fslatency)", d.intervals, info)

    local top = order[1]
    local total_storage = 0
    for _, p in ipairs(order) do total_storage = total_storage + p.storage_us end
    local wait_pct = top and 100 * top.storage_us / 1e6 / traced or 0
    local w = top and top.worst
    local w99 = w and p99(w) or 0
    local a = answer(top, w, wait_pct, w99, traced, args)
    if a.kind ~= "slow" then
      ctx:metric("file_wait_pct", wait_pct, { unit = "%", instance = top and fmt.task(top) or nil, agg = "mean" })
      if w then
        ctx:metric("file_p99_ms", w99 / 1000, { unit = "ms", instance = string.format("%s %s %s", fmt.task(top), w.syscall, w.mount ~= "" and w.mount or where(w)), agg = "p99" })
      end
      -- not waiting on files: say what the syscall time went to instead
      local busiest
      for _, p in ipairs(a.kind ~= "fast" and order or {}) do
        if p.other_us > 0 and (not busiest or p.other_us > busiest.other_us) then busiest = p end
      end
      local instead = ""
      if busiest then
        local o = busiest.other_top
        instead = string.format("; %s's syscall time goes to %s on %s instead (%.3f s)", fmt.task(busiest), o.syscall,
          (o.fstype or "") ~= "" and o.fstype or "no file", (o.total_us or 0) / 1e6)
      end
      ctx:summary(string.format("%s: %s%s", a.lead, a.why, instead))
      return
    end

    local p99_us = p99(w) or 0
    local inst = string.format("%s %s %s", fmt.task(top), w.syscall, w.mount ~= "" and w.mount or where(w))
    ctx:metric("file_wait_pct", wait_pct, { unit = "%", instance = fmt.task(top), agg = "mean" })
    ctx:metric("file_p99_ms", p99_us / 1000, { unit = "ms", instance = inst, warn = args.warn_p99_ms, crit = args.crit_p99_ms, agg = "p99" })
    -- the processes that wait on storage, most first (up to 3)
    for i, p in ipairs(order) do
      if i > 3 or 100 * p.storage_us / 1e6 / traced < args.wait_pct then break end
      ctx:culprit { pid = p.pid, comm = p.comm, share = total_storage > 0 and p.storage_us / total_storage or nil }
    end
    hist.table(ctx, string.format("Latency of %s's %s on %s", top.comm, w.syscall, where(w)), w.hist or {}, "us", info)

    local slow = {}
    for _, s in ipairs(d.slowest or {}) do
      if #slow >= args.top then break end
      slow[#slow + 1] = { s.pid, s.comm, s.syscall, s.mount ~= "" and s.mount or "?", s.file ~= "" and s.file or "?",
                          fmt.ms(s.latency_us), string.format("%.2f", s.at_s or 0) }
    end
    if #slow > 0 then
      ctx:table { traced = info, title = "Slowest file syscalls (fslatency)",
                  columns = { "pid", "process", "syscall", "mount", "file", "latency (ms)", "at (s)" }, rows = slow }
    end

    -- the block I/O under that mount, in the same window
    local mount
    for _, m in ipairs(d.by_mount or {}) do
      if m.mnt_id == w.mnt_id then mount = m end
    end
    local bio, bwhy = ctx.bpf.biolatency()
    local disk = disk_of(bio, mount)
    local what = string.format("%s waits in %s on %s: p99 %s ms, %s of the traced time in file syscalls",
      fmt.task(top), w.syscall, where(w), fmt.ms(p99_us), fmt.pct(wait_pct))
    if not bio then
      ctx:unknown("block_p99_ms", bwhy)
      ctx:summary(what .. "; the block I/O under it is unknown, so slow disk and slow file system cannot be told apart")
      return
    end
    local bh = disk and disk_hist(disk)
    local b99 = bh and hist.percentile(bh, 99)
    if b99 then
      ctx:metric("block_p99_ms", b99 / 1000, { unit = "ms", instance = disk.name, agg = "p99" })
    end
    if b99 and b99 >= args.disk_share * p99_us then
      ctx:summary(string.format("the disk is slow: %s, and %s's own I/O takes p99 %s ms: the syscalls wait with the disk",
        what, disk.name, fmt.ms(b99)))
      ctx:next(string.format("who else loads %s and how deep its queue is: drilldown.disk-who, biosnoop; iostat -x 1 %s", disk.name, disk.name))
    else
      local under
      if b99 then
        under = string.format("%s answers its I/O in p99 %s ms", disk.name, fmt.ms(b99))
      elseif disk then
        under = string.format("%s did no I/O in the window", disk.name)
      else
        under = string.format("no block I/O under %s in the window", w.mount ~= "" and w.mount or where(w))
      end
      ctx:summary(string.format("the file system is slow while the disk is not: %s, while %s: locks, the journal, fsync, page-cache misses",
        what, under))
      ctx:next(string.format("where %s blocks in the kernel: offcputime stacks of pid %d (drilldown.cpu-why), lock contention (drilldown.kernel-mutex-who); for ext4 the journal (jbd2 threads, /proc/fs/jbd2/*/info)",
        top.comm, top.pid))
    end
  end,
}
