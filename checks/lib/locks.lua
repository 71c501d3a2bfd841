--- Lock contention in the 49 Hz on-CPU profile (ctx.bpf.profile()): the
-- samples whose kernel stack is in a lock's slow path (spinning on a
-- contended spinlock, a mutex or rw-semaphore owner, or queueing for one) or
-- in futex code (user locks and condition variables handing off through the
-- kernel). A first-window sign, from samples sonde takes anyway: the waits
-- themselves need the lock tools of the drill-down (klockstat, futexctn).
local bpf = require("bpf")
local fmt = require("fmt")

local locks = {}

-- kernel frames ("name_[k]") of a lock's slow path; plain substrings
locks.kernel_slow = {
  "queued_spin_lock_slowpath", "queued_read_lock_slowpath", "queued_write_lock_slowpath",
  "mutex_spin_on_owner", "osq_lock", "__mutex_lock", "mutex_lock_slowpath",
  "rwsem_down_read_slowpath", "rwsem_down_write_slowpath", "rwsem_spin_on_owner",
  "rwsem_optimistic_spin", "rt_mutex_slowlock", "percpu_rwsem_wait",
}
-- kernel frames of futex(2) and futex_waitv(2)
locks.futex = { "futex" }

-- does one frame of folded ("comm;f;...;f_[k]") name a kernel function matching one of words?
local function kernel_frame_in(folded, words)
  for frame in string.gmatch(folded, "[^;]+") do
    if frame:sub(-4) == "_[k]" then
      for _, w in ipairs(words) do
        if frame:find(w, 1, true) then return true end
      end
    end
  end
  return false
end

--- The profile's samples in frames matching words: { samples, busy, all,
-- procs = { { pid, comm, samples }, ... most first }, stacks = { ... } }, or
-- nil, reason when the profile cannot tell.
function locks.samples(d, words)
  if d.kernel_symbols ~= "ok" then
    return nil, "kernel frames are not symbolized: " .. tostring(d.kernel_symbols)
  end
  local n, per, stacks = 0, {}, {}
  for _, st in ipairs(d.stacks or {}) do
    if kernel_frame_in(st.folded or "", words) then
      n = n + st.count
      local p = per[st.tgid]
      if not p then
        p = { pid = st.tgid, comm = st.comm, samples = 0 }
        per[st.tgid] = p
      end
      p.samples = p.samples + st.count
      stacks[#stacks + 1] = st
    end
  end
  local procs = {}
  for _, p in pairs(per) do procs[#procs + 1] = p end
  table.sort(procs, function(a, b) if a.samples ~= b.samples then return a.samples > b.samples end return a.pid < b.pid end)
  return { samples = n, busy = d.total or 0, all = d.samples or 0, procs = procs, stacks = stacks }
end

--- "a < b < leaf": the last n frames of a folded stack.
function locks.tail(folded, n)
  local frames = {}
  for f in string.gmatch(folded or "", "[^;]+") do frames[#frames + 1] = f end
  local out = {}
  for k = math.max(#frames - n + 1, 2), #frames do out[#out + 1] = frames[k] end
  return table.concat(out, " < ")
end

--- The first window's finding from the profile, shared by the kernel and the
-- user lock checks: metric name, words to match, thresholds, and what it is.
function locks.check(ctx, args, o)
  local d, why = ctx.bpf.profile()
  if not d then
    ctx:unknown(o.metric, why)
    return
  end
  local s, swhy = locks.samples(d, o.words)
  if not s then
    ctx:unknown(o.metric, swhy)
    return
  end
  if s.all == 0 then
    ctx:unknown(o.metric, "the profile took no sample in the window")
    return
  end
  -- of the host's CPU time: samples are taken on every CPU, idle ones included
  local pct = 100 * s.samples / s.all
  local pct_st = ctx:metric(o.metric, pct, { unit = "%", warn = args.warn_pct, crit = args.crit_pct, agg = "mean" })
  ctx:metric(o.metric .. "_samples", s.samples, { unit = "samples", agg = "total" })
  local rows = {}
  for i, p in ipairs(s.procs) do
    if i > 10 then break end
    rows[#rows + 1] = { p.pid, p.comm, p.samples, fmt.pct(100 * p.samples / s.all) }
  end
  if #rows > 0 then
    ctx:table { traced = why, title = o.what .. ": processes (49 Hz profile)", columns = { "pid", "process", "samples", "of the host's CPU" }, rows = rows }
    table.sort(s.stacks, function(a, b) return a.count > b.count end)
    local srows = {}
    for i, st in ipairs(s.stacks) do
      if i > 5 then break end
      srows[#srows + 1] = { st.comm, st.count, locks.tail(st.folded, 4) }
    end
    ctx:table { traced = why, title = o.what .. ": hottest stacks", columns = { "process", "samples", "stack (last frames, leaf last)" }, code = { "stack (last frames, leaf last)" }, rows = srows }
  end
  local hot = pct_st ~= "ok" and s.samples >= args.min_samples
  if hot then
    for i, p in ipairs(s.procs) do
      if i > 3 or (i > 1 and p.samples < 0.1 * s.samples) then break end
      ctx:culprit { pid = p.pid, comm = p.comm, share = p.samples / s.samples }
    end
    ctx:next(o.next)
  end
  local top = s.procs[1]
  ctx:summary(string.format("%s: %.1f%% of the host's CPU time (%d of %d samples)%s%s", o.what, pct, s.samples, s.all,
    top and string.format("; most in %s (pid %d)", top.comm, top.pid) or "",
    hot and (": " .. o.verdict) or ""))
end

-- A lock drill-down's tool (klockstat, futexctn): its data, the seconds it
-- traced (it may be detached early: a duty cycle), the CPUs and the tool's info
-- (for the evidence: traced = info); nil when it did not run, after saying why as
-- the unknown metric.
function locks.drill(ctx, tool, metric)
  local data, info = ctx.bpf[tool]()
  if not data then
    ctx:unknown(metric, info)
    return nil
  end
  return data, bpf.traced_s(ctx, info), math.max(ctx.host.cpus or 1, 1),
    info
end

return locks
