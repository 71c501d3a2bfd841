--- Where threads wait: the thread states of ctx.proc.threads() (Gregg's TSA
-- method) as classes of time, for the checks that judge them (use.*-waits)
-- and the workload's thread-state table (workload.process-how).
--
-- A process's thread time is on a CPU, waiting for a CPU (runnable), or off
-- CPU in a wait. A wait is classed by what the capture says it waits in:
-- the kernel stack of a thread in D (a frozen file system, the journal,
-- writeback, swap-in, reclaim, a kernel lock, the disk), the syscall and the
-- file behind its fd otherwise. Whether a wait is contended or idle is
-- decided from evidence, never from the syscall's name alone: a futex wait
-- is a lock when it has a lock's signature (a contended glibc mutex waits
-- expecting 2; PI locks) or when the process is serialised on it (waiters
-- queued on one address, woken again and again, at most one thread on a
-- CPU); a socket read waits on a backend when this side connected (its
-- local port is not one the host listens on), and is idle when it waits for
-- a client's next request; a poll names its first fd. Idle waits (epoll,
-- poll, select, sleeps, accept on an empty queue, a parked pool) are never a
-- problem: they are shown, not judged.
local waits = {}

-- The resource each judged class is a wait for (methodologies/use.lua rows).
waits.resource = {
  ["user-lock"] = "user-mutex", ["kernel-lock"] = "kernel-mutex", disk = "disk",
  filesystem = "filesystem", network = "network", memory = "memory",
}

-- How the classes read in tables and sentences, in the order the table shows them.
waits.classes = {
  { id = "cpu", label = "on CPU" },
  { id = "runq", label = "runnable (waiting for a CPU)" },
  { id = "user-lock", label = "user lock" },
  { id = "kernel-lock", label = "kernel lock" },
  { id = "disk", label = "disk I/O" },
  { id = "filesystem", label = "file system" },
  { id = "network", label = "network" },
  { id = "memory", label = "memory (faults, reclaim, swap-in)" },
  { id = "ipc", label = "pipes and IPC" },
  { id = "other", label = "other waits" },
  { id = "stopped", label = "stopped" },
  { id = "unknown", label = "unknown waits" },
  { id = "idle", label = "idle" },
}
waits.label = {}
for _, c in ipairs(waits.classes) do waits.label[c.id] = c.label end

-- Kernel frames of a thread in D, by what they wait for: the first rule
-- with a frame that starts with one of its prefixes names the wait. Order
-- matters: a fault that waits on the disk is memory; a frozen file system's
-- writers wait on a percpu rwsem, not on a kernel lock of their own.
local D_RULES = {
  { class = "memory", what = "swap-in", frames = { "swap_read", "swap_readpage", "do_swap_page", "swapin_" } },
  { class = "memory", what = "memory reclaim", frames = { "shrink_", "try_to_free_pages", "reclaim_throttle",
      "throttle_direct_reclaim", "__alloc_pages_slowpath", "mem_cgroup_handle_over_high",
      "try_to_free_mem_cgroup_pages", "compact_zone", "__alloc_pages_direct_compact", "wait_iff_congested" } },
  { class = "memory", what = "a page fault", frames = { "handle_mm_fault", "__handle_mm_fault", "do_page_fault",
      "exc_page_fault", "filemap_fault", "do_fault", "do_read_fault", "__do_fault" } },
  { class = "filesystem", what = "a frozen file system", frames = { "percpu_rwsem_wait", "__percpu_down_read" },
    with = { "sb_start_write", "__sb_start_write", "mnt_want_write", "sb_start_pagefault", "sb_start_intwrite",
             "file_start_write", "freeze" } },
  { class = "kernel-lock", what = "a kernel lock", frames = { "__mutex_lock", "mutex_lock", "rwsem_down_",
      "down_read", "down_write", "__down", "rt_mutex", "percpu_rwsem_wait", "__percpu_down_read" } },
  { class = "filesystem", what = "writeback throttling", frames = { "balance_dirty_pages" } },
  { class = "filesystem", what = "the journal", frames = { "jbd2", "start_this_handle", "wait_transaction_locked",
      "xlog_", "xfs_log_force", "btrfs_commit_transaction", "wait_current_trans", "btrfs_start_ordered" } },
  { class = "filesystem", what = "a network file system", frames = { "nfs_", "rpc_wait", "__rpc_execute",
      "fuse_", "request_wait_answer", "cifs_", "smb2_", "ceph_" } },
  { class = "disk", what = "disk I/O", frames = { "blk_mq_get_tag", "submit_bio_wait", "blkdev_", "io_schedule",
      "folio_wait_bit", "wait_on_page_bit", "__folio_lock", "folio_wait_writeback", "wait_on_page_writeback",
      "__filemap_fdatawait", "filemap_fdatawait", "file_write_and_wait", "wait_on_buffer", "__wait_on_buffer" } },
}

local function frames_of(kstack)
  local out = {}
  for f in string.gmatch(kstack or "", "[^<]+") do out[#out + 1] = f end
  return out
end

local function has_prefix(frames, prefixes)
  for _, f in ipairs(frames) do
    for _, p in ipairs(prefixes) do
      if f:sub(1, #p) == p then return f end
    end
  end
  return nil
end

--- The class of a thread in D from its kernel stack: class, what, the frame that said it.
function waits.kernel_wait(kstack, iowait)
  local frames = frames_of(kstack)
  for _, r in ipairs(D_RULES) do
    local hit = has_prefix(frames, r.frames)
    if hit and (not r.with or has_prefix(frames, r.with)) then return r.class, r.what, hit end
  end
  if iowait then return "disk", "I/O wait (iowait)", frames[1] end
  if #frames == 0 then return "other", "uninterruptible sleep (no kernel stack)", nil end
  return "other", "uninterruptible sleep", frames[1]
end

-- Syscalls that wait for nothing in particular: a loop's sleep, an event loop, a child.
local IDLE = {
  epoll_wait = "epoll", epoll_pwait = "epoll", epoll_pwait2 = "epoll", select = "select",
  pselect6 = "select", _newselect = "select", poll = "poll", ppoll = "poll", nanosleep = "sleep",
  clock_nanosleep = "sleep", pause = "pause", rt_sigsuspend = "signal wait",
  rt_sigtimedwait = "signal wait", wait4 = "waiting for a child", waitid = "waiting for a child",
  accept = "accept", accept4 = "accept",
}
local FD_READ = { read = true, readv = true, pread64 = true, preadv = true, preadv2 = true,
  recvfrom = true, recvmsg = true, recvmmsg = true }
local FD_WRITE = { write = true, writev = true, pwrite64 = true, pwritev = true, pwritev2 = true,
  sendto = true, sendmsg = true, sendmmsg = true, sendfile = true, splice = true }
local SYNC = { fsync = true, fdatasync = true, sync = true, syncfs = true, sync_file_range = true,
  io_getevents = true, io_pgetevents = true }
local IPC = { msgrcv = "message queue", msgsnd = "message queue", mq_timedreceive = "message queue",
  mq_timedsend = "message queue" }

--- The parts of a socket object: kind ("tcp", "udp", ...), local "addr:port", peer, state, port numbers.
function waits.socket(object)
  if not object then return nil end
  local kind, rest = object:match("^(%a+) (.*)$")
  if kind ~= "tcp" and kind ~= "udp" then return kind and { kind = kind } or nil end
  local l, r, state = rest:match("^(%S+)>(%S+)%s*(%S*)$")
  if not l then
    l, state = rest:match("^(%S+)%s*(%S*)")
  end
  local s = { kind = kind, ["local"] = l, peer = r, state = state ~= "" and state or nil }
  s.lport = tonumber(l and l:match(":(%d+)$"))
  s.rport = tonumber(r and r:match(":(%d+)$"))
  return s
end

-- Is this side of a connected socket the server's (it accepted: its local port is one the
-- host listens on), or the client's? Listening ports come from ctx.proc.listeners() where
-- the check reads them; else a local port below the ephemeral range and a peer in it.
local function server_side(s, opts)
  if not s.lport then return false end
  if opts.listen_ports then return opts.listen_ports[s.lport] == true end
  local lo = opts.ephemeral_lo or 32768
  return s.lport < lo and (s.rport or 0) >= lo
end

-- A wait on a file descriptor, by the file: class, what it waits on.
local function fd_wait(w, opts, reading)
  local obj = w.object
  if not obj then return "other", (w.syscall or "?") .. " (its fd unknown)" end
  local s = waits.socket(obj)
  if s and (s.kind == "tcp" or s.kind == "udp") then
    if s.state == "LISTEN" then return "idle", "accept (" .. (s["local"] or "?") .. ")" end
    if not s.peer or s.rport == 0 then return "idle", s.kind .. " " .. (s["local"] or "?") .. " (not connected)" end
    if server_side(s, opts) then
      return "idle", "a client's next request (" .. s.peer .. ")"
    end
    if s.state == "SYN_SENT" then return "network", "connecting to " .. s.peer end
    return "network", (reading and "replies from " or "sending to ") .. s.peer, s.peer
  end
  if s and s.kind == "unix" then return "ipc", "a local socket (unix)" end
  if obj == "pipe" then return "ipc", "a pipe" end
  if obj == "chr" then return "idle", "a terminal or device" end
  if obj:match("^anon ") then return "idle", obj:sub(6) end
  if obj:match("^file ") then return reading and "disk" or "filesystem", "a file (" .. obj:sub(6) .. ")" end
  return "other", obj
end

local function futex_what(w)
  local f = w.futex
  if not f then return "futex" end
  return "futex " .. f.addr
end

--- A futex wait that has a lock's signature (a contended glibc mutex, a PI lock).
function waits.futex_lock(w)
  local f = w.futex
  if not f then return false end
  if f.cmd == "LOCK_PI" or f.cmd == "LOCK_PI2" or f.cmd == "WAIT_REQUEUE_PI" then return true end
  return f.cmd == "WAIT" and f.val2
end

--- class, what, peer (a socket wait's remote address) of one wait of a process.
function waits.classify(w, opts)
  opts = opts or {}
  local st = w.state
  if st == "?" then return "unknown", "off CPU, not sampled" end
  if st == "T" or st == "t" then return "stopped", st == "t" and "stopped by a tracer" or "stopped (SIGSTOP)" end
  if st == "Z" or st == "X" then return "other", "exiting" end
  if st == "I" then return "idle", "idle kernel thread" end
  if st == "D" then
    local class, what, frame = waits.kernel_wait(w.kstack, w.iowait)
    if frame and what ~= frame then what = what .. " (" .. frame .. ")" end
    return class, what
  end
  local sc = w.syscall
  if not sc or sc == "?" then return "unknown", "a wait this host did not name (its syscall unread)" end
  if sc == "-" then return "other", "off CPU outside a syscall" end
  if sc == "futex" then
    if waits.futex_lock(w) then return "user-lock", futex_what(w) .. " (a contended mutex)" end
    return "futex", futex_what(w)
  end
  if sc == "flock" then return "user-lock", "a file lock (flock)" end
  if sc == "fcntl" then return "user-lock", "a file lock (fcntl)" end
  if sc == "semop" or sc == "semtimedop" then return "user-lock", "a SysV semaphore" end
  if IPC[sc] then return "ipc", IPC[sc] end
  if SYNC[sc] then return "disk", sc end
  if sc == "connect" then return fd_wait(w, opts, false) end
  if (sc == "poll" or sc == "ppoll") and w.pollfd then return fd_wait(w, opts, true) end
  if IDLE[sc] then
    if (sc == "accept" or sc == "accept4") and w.object then
      return "idle", "accept on an empty queue (" .. (w.object:match("^tcp (%S+)") or w.object) .. ")"
    end
    return "idle", IDLE[sc]
  end
  if FD_READ[sc] then return fd_wait(w, opts, true) end
  if FD_WRITE[sc] then return fd_wait(w, opts, false) end
  return "other", sc
end

--- Does the wait read (a syscall of FD_READ, or poll on its fd)?
function waits.reading(w)
  return FD_READ[w.syscall or ""] or ((w.syscall == "poll" or w.syscall == "ppoll") and w.pollfd) or false
end

--- Is a futex wait that has no lock's signature contended (the process serialised on it)?
-- Evidence: more than one thread queued on that address on average, woken again and again
-- (ten times a second each or more, and not parked), while at most one thread of the
-- process runs at a time.
function waits.futex_contended(p, w, window_s)
  if window_s <= 0 or w.s <= 0 then return false end
  local queued = w.s / window_s
  local woken = w.wakes / w.s
  local parked = w.parked_s / w.s
  local running = (p.oncpu_s + p.runq_s) / window_s
  if p.run_max then running = math.min(running, p.run_max) end
  return queued >= 1.5 and woken >= 10 and parked < 0.5 and running <= 1.2 and w.threads >= 2
end

--- Thread time of one process by class: { classes = { [class] = s }, by = { [class] = { {what, s, peer, w}, ... } },
-- busy_s (all but idle), window_s }.
function waits.process(p, window_s, opts)
  local memo = opts and opts.memo
  local out = { classes = {}, by = {}, busy_s = 0, total_s = 0 }
  local function add(class, s, what, peer, w)
    if s <= 0 then return end
    out.classes[class] = (out.classes[class] or 0) + s
    local list = out.by[class] or {}
    out.by[class] = list
    for _, e in ipairs(list) do
      if e.what == what then e.s = e.s + s; e.threads = math.max(e.threads, w and w.threads or 0); return end
    end
    list[#list + 1] = { what = what, s = s, peer = peer, w = w, threads = w and w.threads or 0 }
  end
  add("cpu", p.oncpu_s, "on a CPU")
  add("runq", p.runq_s, "waiting for a CPU")
  for _, w in ipairs(p.waits or {}) do
    -- a wait's class depends on what it waits in alone (its identity), but for the evidence
    -- below: classified once per identity however many processes wait so
    local class, what, peer
    local m = memo and w.ident and memo[w.ident]
    if m then
      class, what, peer = m[1], m[2], m[3]
    else
      class, what, peer = waits.classify(w, opts)
      if memo and w.ident then memo[w.ident] = { class, what, peer } end
    end
    if class == "futex" then
      if waits.futex_contended(p, w, window_s) then
        class, what = "user-lock", what .. " (threads queued on it, one runs at a time)"
      else
        class, what = "idle", "futex (a condition variable or a parked thread)"
      end
    elseif class == "ipc" and w.s > 0 and w.parked_s / w.s >= 0.5 and waits.reading(w) then
      -- a reader that was never woken: nothing came down its pipe or socket (waiting for input)
      class, what = "idle", "reading " .. what .. ", with nothing to read"
    end
    add(class, w.s, what, peer, w)
  end
  if (p.unsampled_s or 0) > 0 then add("unknown", p.unsampled_s, "off CPU between two samples that ran") end
  -- in the classes' order, never pairs(): the same sums to the last bit on every replay
  for _, c in ipairs(waits.classes) do
    local s = out.classes[c.id]
    if s then
      out.total_s = out.total_s + s
      if c.id ~= "idle" then out.busy_s = out.busy_s + s end
      table.sort(out.by[c.id], function(a, b)
        if a.s ~= b.s then return a.s > b.s end
        return a.what < b.what
      end)
    end
  end
  return out
end

--- Every process's time by class: fn(p, a, n) for each active process (n = 1) and once for
-- each group of quiet processes (every thread asleep in the same waits the whole span: most
-- processes of a big host), p then a template of its n members (p.quiet is the group:
-- waits.members lists them). sonde itself is left out.
function waits.each(th, window_s, opts, fn)
  for _, p in ipairs(th.processes or {}) do
    if not p.self then fn(p, waits.process(p, window_s, opts), 1) end
  end
  for _, g in ipairs(th.quiet or {}) do
    -- asleep all along: its threads in D are in D at every round
    local d = 0
    for _, w in ipairs(g.waits) do if w.state == "D" then d = d + (w.threads or 0) end end
    local t = { threads = g.threads, oncpu_s = 0, runq_s = 0, unsampled_s = 0, waits = g.waits, quiet = g,
                d_mean = d }
    fn(t, waits.process(t, window_s, opts), #g.pids)
  end
end

--- The members of a quiet group's template as processes of their own (to name them).
function waits.members(t)
  local out = {}
  for i, pid in ipairs(t.quiet.pids) do
    local cmd = t.quiet.cmdlines and t.quiet.cmdlines[i]
    out[i] = { pid = pid, comm = t.quiet.comms[i], cmdline = cmd ~= "" and cmd or nil, threads = t.threads, oncpu_s = 0, runq_s = 0,
               unsampled_s = 0, waits = t.waits, d_mean = t.d_mean }
  end
  return out
end

--- The options classify needs from the captures: the host's listening ports where read.
function waits.options(ctx)
  local opts = { memo = {} }
  if ctx.proc.listeners then
    local ok, ls = pcall(ctx.proc.listeners)
    if ok and ls then
      opts.listen_ports = {}
      for _, l in ipairs(ls) do if l.port then opts.listen_ports[l.port] = true end end
    end
  end
  return opts
end

--- How the states were read, for a note: source, sampler and its rate, and what was lost.
function waits.resolution(th)
  local parts = {}
  local src = th.source or "?"
  if src == "proc" then
    parts[#parts + 1] = "thread states from /proc/PID/task (" .. (th.source_why or "no task source") .. ")"
      .. ", so not every thread each round: after the first, a round reads only the threads of the"
      .. " processes seen running or with a thread in D"
  else
    parts[#parts + 1] = "thread states from the " .. src .. " pass, every thread each round"
  end
  parts[#parts + 1] = string.format("every %.1f s (%d rounds); on-CPU and run-queue time exact from the scheduler's counters", th.interval_s or 0, th.rounds or 0)
  if (th.rounds_skipped or 0) > 0 then
    parts[#parts + 1] = string.format("%d middle round%s skipped for %s cost (a big host: the round after "
      .. "covers both intervals, the counters being cumulative)", th.rounds_skipped,
      th.rounds_skipped == 1 and "" or "s", th.rounds_skipped == 1 and "its" or "their")
  end
  if th.sampler and th.sampler ~= "none" then
    parts[#parts + 1] = string.format("the waits of the busiest waiters sampled at %.0f Hz (%s, %d passes)",
      th.sampler_hz or 0, th.sampler, math.floor(th.sampler_passes or 0))
  elseif th.sampler_why then
    parts[#parts + 1] = "no sampler: " .. th.sampler_why
  end
  if th.lost then parts[#parts + 1] = "this kernel cannot give " .. th.lost end
  if th.listed then parts[#parts + 1] = "from /proc some processes were read only in some rounds" end
  return table.concat(parts, "; ")
end

--- The sentence of one process's wait: "12 threads of app (pid 123): 85% of their time
-- waiting on futex 0x7f.. (a contended mutex); at most one runs at a time".
function waits.sentence(r)
  local top = r.a.by[r.class] and r.a.by[r.class][1]
  local s = string.format("%s: %.0f%% of %s time waiting on %s", waits.who(r.p), 100 * r.share,
    (r.p.threads or 0) == 1 and "its" or "their", top and top.what or waits.label[r.class])
  if top and #r.a.by[r.class] > 1 then
    s = s .. string.format(" (and %d other %s waits)", #r.a.by[r.class] - 1, waits.label[r.class])
  end
  if r.class == "user-lock" and r.p.run_max and r.p.run_max <= 1 and (r.p.threads or 0) > 1 then
    s = s .. "; at most one runs at a time"
  end
  return s
end

--- The judged classes' check (use.*-waits): the processes whose threads wait most for class,
-- as a share of their busy time (all but idle waits) and as threads waiting on average;
-- metrics per process, culprits, the table, the sentence. spec = { metric, what, next }.
function waits.assess(ctx, args, class, spec)
  local th, why = ctx.proc.threads()
  if not th then
    ctx:unknown(spec.metric, why)
    return
  end
  -- the time the states cover, first round to last (thread-seconds over it are threads on average)
  local window_s = th.span_s
  if not window_s or window_s <= 0 then
    ctx:unknown(spec.metric, "the thread states cover no interval (one round)")
    return
  end
  local opts = spec.opts or { memo = {} }
  local rows, total = {}, 0
  waits.each(th, window_s, opts, function(p, a, n)
    local s = a.classes[class] or 0
    if s <= 0 or a.busy_s <= 0 then return end
    for _, m in ipairs(n > 1 and waits.members(p) or (p.quiet and waits.members(p)) or { p }) do
      rows[#rows + 1] = { p = m, a = a, s = s, share = s / a.busy_s, class = class, waiting = s / window_s }
      total = total + s
    end
  end)
  table.sort(rows, function(x, y)
    if x.s ~= y.s then return x.s > y.s end
    return x.p.pid < y.p.pid
  end)
  ctx:metric(spec.metric, total / window_s, { unit = "threads", agg = "mean",
                                             help = "threads waiting on it, from the thread states" })
  local judged, tab = 0, {}
  for i, r in ipairs(rows) do
    if i > 10 then break end
    local top = r.a.by[class][1]
    tab[#tab + 1] = { r.p.pid, r.p.comm or "?", r.p.threads or 0, string.format("%.2f", r.waiting),
      string.format("%.0f%%", 100 * r.share), top and top.what or "?" }
    local user = not r.p.kernel_thread
    if user and judged < 5 and r.waiting >= args.min_threads then
      judged = judged + 1
      r.status = ctx:metric("wait_pct", 100 * r.share, { unit = "%", warn = args.warn_pct, crit = args.crit_pct,
        instance = string.format("%s (pid %d)", r.p.comm or "?", r.p.pid), agg = "mean", help = "share of the process's busy thread time spent in this wait (thread states)" })
    end
  end
  if #tab > 0 then
    ctx:table { title = "Processes whose threads wait for " .. spec.what .. " (thread states)",
      columns = { "pid", "process", "threads", "threads waiting (mean)", "of their busy time", "waiting on" },
      rows = tab }
  end
  local bad = {}
  for _, r in ipairs(rows) do
    if r.status == "warn" or r.status == "crit" then bad[#bad + 1] = r end
  end
  local sum = 0
  for _, r in ipairs(bad) do sum = sum + r.s end
  for i, r in ipairs(bad) do
    if i > 3 then break end
    ctx:culprit { pid = r.p.pid, comm = r.p.comm, cmdline = r.p.cmdline, share = sum > 0 and r.s / sum or 0 }
  end
  ctx:note(waits.resolution(th))
  if #bad > 0 then
    local parts = {}
    for i, r in ipairs(bad) do
      if i > 2 then break end
      parts[#parts + 1] = waits.sentence(r)
    end
    local s = table.concat(parts, "; ")
    if spec.d_state then
      local d = 0
      for _, r in ipairs(bad) do d = d + (r.p.d_mean or 0) end
      if d >= 0.05 then
        s = s .. string.format("; %.1f of them in D on average, counted in the load average", d)
      end
    end
    ctx:summary(s)
    if spec.next then ctx:next(spec.next) end
  elseif #rows > 0 then
    ctx:summary(string.format("%.2f threads waited for %s on average; most: %s, %.0f%% of its busy time",
      total / window_s, spec.what, waits.who(rows[1].p), 100 * rows[1].share))
  else
    ctx:summary("no thread waited for " .. spec.what)
  end
end

--- The arguments every use.*-waits check takes.
function waits.args()
  return {
    warn_pct = { type = "number", default = 50, help = "% of a process's busy thread time (all but idle waits) spent in this wait that warns" },
    crit_pct = { type = "number", default = 80, help = "% of a process's busy thread time spent in this wait that is critical" },
    min_threads = { type = "number", default = 0.5, help = "threads waiting on average below which a process is not judged" },
  }
end

--- "12 threads of app (pid 123)"
function waits.who(p)
  local n = p.threads or 0
  return string.format("%s of %s (pid %d)", n == 1 and "1 thread" or string.format("%d threads", n),
    p.comm or "?", p.pid)
end

return waits
