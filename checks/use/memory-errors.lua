--- Memory errors: OOM kills during the window (vmstat), their victims and triggers (oomkill, kernel log).
local fmt = require("fmt")

-- "name (pid N)", or "?" for a side the tool could not see
local function who(comm, pid)
  if not pid or pid == 0 then return comm ~= "" and comm or "?" end
  return string.format("%s (pid %d)", comm ~= "" and comm or "?", pid)
end

return {
  id = "use.memory-errors",
  title = "Memory errors (OOM kills)",
  methodology = "use", resource = "memory", metric = "errors",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.vmstat", "kernel.log", "bpf.oomkill" },

  run = function(ctx, args)
    local vm, why = ctx.proc.vmstat()
    local kills
    if vm and vm[1].oom_kill then
      kills = vm:delta("oom_kill") or 0
      ctx:metric("oom_kills", kills, { warn = 1, crit = 1, agg = "total", node_exporter = "node_vmstat_oom_kill" })
      ctx:metric("oom_kills_since_boot", vm:last("oom_kill"), { agg = "last", node_exporter = "node_vmstat_oom_kill" })
    else
      ctx:unknown("oom_kills", why or "/proc/vmstat has no oom_kill counter (kernel older than 4.13)")
    end

    -- oomkill (BPF): every kill with its victim and the task that was allocating
    local blamed = {}
    local first_traced
    local oom, owhy = ctx.bpf.oomkill()
    if oom then
      local list = oom.kills_list or {}
      local rows = {}
      for _, k in ipairs(list) do
        local v, t = k.victim or {}, k.trigger or {}
        local at = (owhy.traced_from_s or 0) + (k.at_s or 0)
        rows[#rows + 1] = { string.format("%.2f", at), v.pid or "?", v.comm or "?",
                            v.rss_bytes and fmt.bytes(v.rss_bytes) or "?",
                            v.memcg or k.oom_memcg or "?",
                            t.pid or "?", t.comm or "?" }
        if v.pid and v.pid ~= 0 and not blamed[v.pid] then
          blamed[v.pid] = true
          ctx:culprit { pid = v.pid, comm = v.comm, share = 1 / math.max(#list, 1) }
        end
        first_traced = first_traced or k
      end
      -- no thresholds of its own when vmstat counts the same kills; the only count when it cannot
      local export = { agg = "total", node_exporter = "node_vmstat_oom_kill" }
      ctx:metric("oom_kills_traced", #list, kills and export or { warn = 1, crit = 1, agg = export.agg,
                                                               node_exporter = export.node_exporter })
      if #rows > 0 then
        ctx:table { traced = owhy, title = "OOM kills traced (oomkill): the victim, and the task allocating when the kill was decided",
                    columns = { "s into window", "victim pid", "victim", "victim rss", "memory cgroup", "trigger pid", "trigger" },
                    rows = rows }
      end
      if (owhy.drops or 0) > 0 then
        ctx:note(string.format("oomkill dropped %d kill records (its buffer was full)", owhy.drops))
      end
    else
      ctx:unknown("oom_kills_traced", owhy)
    end

    -- the kernel log: the victims the kernel named, also those before the window
    local log, lwhy = ctx.proc.kernel_log()
    if not log then
      ctx:unknown("oom_victims", lwhy)
    else
      local rows = {}
      local boot0 = ctx.window.kernel_clock_start or 0
      for _, line in ipairs(log) do
        -- /dev/kmsg record: "prio,seq,usec,flags;text"
        local usec, text = line:match("^%d+,%d+,(%d+),[^;]*;(.*)$")
        text = text or line
        local pid, comm = text:match("Killed process (%d+) %((.-)%)")
        if pid then
          local t = usec and tonumber(usec) / 1e6 or nil
          local in_window = t and t >= boot0
          rows[#rows + 1] = { pid, comm, t and string.format("%.1f", t) or "?", in_window and "yes" or "no" }
          if in_window and not blamed[tonumber(pid)] then
            blamed[tonumber(pid)] = true
            ctx:culprit { pid = tonumber(pid), comm = comm, share = 1 }
          end
        end
      end
      if #rows > 0 then
        ctx:table { title = "OOM victims in the kernel log", columns = { "pid", "process", "s after boot", "in this window" }, rows = rows }
      end
    end

    local n = kills or (oom and #(oom.kills_list or {}))
    if n then
      local detail = ""
      if first_traced then
        local v, t = first_traced.victim or {}, first_traced.trigger or {}
        local cg = v.memcg or first_traced.oom_memcg
        detail = string.format(": %s killed%s%s while %s was allocating", who(v.comm or "", v.pid),
          v.rss_bytes and (" with " .. fmt.bytes(v.rss_bytes) .. " resident") or "",
          (cg and cg ~= "") and (" in memory cgroup " .. cg) or "",
          (t.pid == v.pid) and "it" or who(t.comm or "", t.pid))
      end
      ctx:summary(string.format("%d OOM kills during the window%s", n, detail))
      if n > 0 then ctx:next("OOM details: the kernel log around the kill (dmesg), the victim's cgroup limits (memory.limit_in_bytes, memory.max)") end
    end
    ctx:unknown("ecc_errors", "memory ECC counters (EDAC, /sys/devices/system/edac) are not collected by this version")
  end,
}
