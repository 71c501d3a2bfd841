--- Signals: who sent which signals to whom during the window, fatal ones first ("who killed my process?").
local fmt = require("fmt")

local function proc(comm, pid)
  return string.format("%s (pid %s)", comm ~= "" and comm or "?", (pid and pid ~= 0) and tostring(pid) or "?")
end

-- the target as a process when the tool knew its tgid, else the thread
local function target_pid(s)
  return (s.target_tgid and s.target_tgid ~= 0) and s.target_tgid or s.target_pid
end

return {
  id = "workload.signal-who",
  title = "Who signals whom",
  methodology = "workload", resource = "signal", metric = "who",
  tags = { "default", "tracing" },
  collect = { "bpf.killsnoop" },
  args = {
    warn_fatal = { type = "number", default = 1,
                   help = "fatal signals (SIGKILL, SIGTERM, SIGSEGV, ... delivered to a process) in the window that warn" },
    top = { type = "number", default = 15, help = "rows per table" },
  },

  run = function(ctx, args)
    local ks, info = ctx.bpf.killsnoop()
    if not ks then
      ctx:unknown("fatal_signals", info)
      return
    end
    local from = info.traced_from_s or 0

    -- fatal signals one by one; "ignored" ones (SIG_IGN) killed nobody
    local fatal, rows, senders = {}, {}, {}
    for _, e in ipairs(ks.fatal or {}) do
      if e.outcome ~= "ignored" then fatal[#fatal + 1] = e end
    end
    for i, e in ipairs(fatal) do
      if i <= args.top then
        rows[#rows + 1] = { string.format("%.2f", from + (e.at_s or 0)), e.signal,
                            e.sender_pid, e.sender_comm, target_pid(e), e.target_comm, e.origin, e.outcome }
      end
      local key = e.sender_pid .. "\0" .. e.sender_comm
      local s = senders[key]
      if not s then
        s = { pid = e.sender_pid, comm = e.sender_comm, n = 0, first = i }
        senders[key] = s
      end
      s.n = s.n + 1
    end
    local fatal_st = ctx:metric("fatal_signals", #fatal, { warn = args.warn_fatal, agg = "total" })
    ctx:metric("signals", ks.count or 0, { agg = "total" })
    if #rows > 0 then
      ctx:table { traced = info, title = "Fatal signals, in order (" .. table.concat(ks.fatal_signals or {}, " ") .. ")",
                  columns = { "s into window", "signal", "sender pid", "sender", "target pid", "target", "origin", "outcome" },
                  rows = rows }
    end

    -- every signal, counted by sender, target, signal and outcome
    local all = {}
    for i, s in ipairs(ks.signals or {}) do
      if i > args.top then break end
      all[#all + 1] = { s.count, s.signal, s.sender_pid, s.sender_comm, target_pid(s), s.target_comm, s.origin, s.outcome }
    end
    if #all > 0 then
      ctx:table { traced = info, title = string.format("Signals by sender and target (%d distinct of %d signals)", ks.signals_seen or #all, ks.count or 0),
                  columns = { "count", "signal", "sender pid", "sender", "target pid", "target", "origin", "outcome" },
                  rows = all }
    end
    if (info.drops or 0) > 0 then
      ctx:note(string.format("killsnoop dropped %d records (a full table or buffer): counts are a lower bound", info.drops))
    end

    -- culprits: the senders of fatal signals, by how many they sent
    local list = {}
    for _, s in pairs(senders) do list[#list + 1] = s end
    table.sort(list, function(a, b) if a.n ~= b.n then return a.n > b.n end return a.first < b.first end)
    if fatal_st ~= "ok" and #fatal > 0 then
      for i, s in ipairs(list) do
        if i > 3 then break end
        ctx:culprit { pid = s.pid, comm = s.comm, share = s.n / #fatal }
      end
      local e = fatal[1]
      local more = #fatal > 1 and string.format(" (and %d more fatal signals)", #fatal - 1) or ""
      ctx:summary(string.format("%s sent %s to %s%s", proc(e.sender_comm, e.sender_pid), e.signal,
        proc(e.target_comm, target_pid(e)), more))
      ctx:next("what made the sender act: its logs, or the kernel log when the origin is \"kernel\" (OOM killer, a fault)")
    else
      local top = ks.signals and ks.signals[1]
      ctx:summary(string.format("%s signals in the window, none fatal%s", fmt.num(ks.count or 0),
        top and string.format("; most: %s from %s to %s (%d)", top.signal, proc(top.sender_comm, top.sender_pid),
          proc(top.target_comm, target_pid(top)), top.count) or ""))
    end
  end,
}
