--- Memory errors: OOM kills during the window (vmstat) and their victims (kernel log).
return {
  id = "use.memory-errors",
  title = "Memory errors (OOM kills)",
  methodology = "use", resource = "memory", metric = "errors",
  tags = { "default", "proc" },
  collect = { "proc.vmstat", "kernel.log" },

  run = function(ctx, args)
    local vm, why = ctx.proc.vmstat()
    local kills
    if vm and vm[1].oom_kill then
      kills = vm:delta("oom_kill") or 0
      ctx:metric("oom_kills", kills, { warn = 1, crit = 1 })
      ctx:metric("oom_kills_since_boot", vm:last("oom_kill"), { })
    else
      ctx:unknown("oom_kills", why or "/proc/vmstat has no oom_kill counter (kernel older than 4.13)")
    end
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
          if in_window then ctx:culprit { pid = tonumber(pid), comm = comm, share = 1 } end
        end
      end
      if #rows > 0 then
        ctx:table { title = "OOM victims in the kernel log", columns = { "pid", "process", "s after boot", "in this window" }, rows = rows }
      end
    end
    if kills then
      ctx:summary(string.format("%d OOM kills during the window", kills))
      if kills > 0 then ctx:next("OOM details: the kernel log around the kill (dmesg), the victim's cgroup limits") end
    end
    ctx:unknown("ecc_errors", "memory ECC counters (EDAC, /sys/devices/system/edac) are not collected by this version")
  end,
}
