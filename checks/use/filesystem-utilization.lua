--- File system capacity: space and inodes used per mounted file system (statvfs), as df counts
-- them: used is size - free, root's reserve (free but not available) apart, Use% of used + available. Pseudo file systems (proc, sysfs, cgroup, ...) hold no
-- capacity and are left out; network and FUSE file systems are not asked (statfs goes to a
-- server or a daemon and can hang) and are listed as such.
local fmt = require("fmt")

return {
  id = "use.filesystem-utilization",
  title = "File system utilization",
  methodology = "use", resource = "filesystem", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.mounts" },
  args = {
    warn_pct = { type = "number", default = 85, help = "% of space or inodes used that warns" },
    crit_pct = { type = "number", default = 95, help = "critical %" },
  },

  run = function(ctx, args)
    local fs, why = ctx.proc.filesystems()
    if not fs then
      ctx:unknown("used_pct", why)
      return
    end
    local mounts = {}
    for m in pairs(fs) do mounts[#mounts + 1] = m end
    table.sort(mounts)
    local rows, remote, failed, also = {}, {}, {}, {}
    local worst, worst_pct = nil, -1
    local full = false -- a mount whose space or inodes the runner judged warn or crit
    for _, m in ipairs(mounts) do
      local s = fs[m]
      local last = s[#s]
      if last.status == "remote" then
        remote[#remote + 1] = m .. " (" .. last.fstype .. ")"
      elseif last.status == "same" then
        also[#also + 1] = m
      elseif last.reason then
        failed[#failed + 1] = last.reason
      elseif last.status == "ok" and (last.size_bytes or 0) > 0 then
        local pct = s:max("used_pct")
        if pct then
          local st = ctx:metric("used_pct", pct, { unit = "%", instance = m, warn = args.warn_pct, crit = args.crit_pct,
                                        over = s:values("used_pct"), agg = "peak", node_exporter = "node_filesystem_avail_bytes" })
          full = full or st ~= "ok"
          if pct > worst_pct then worst, worst_pct = m, pct end
        end
        local ipct = s:max("inodes_pct")
        if ipct then
          local st = ctx:metric("inodes_pct", ipct, { unit = "%", instance = m, warn = args.warn_pct, crit = args.crit_pct, agg = "peak", node_exporter = "node_filesystem_files_free" })
          full = full or st ~= "ok"
          if ipct > worst_pct then worst, worst_pct = m, ipct end
        end
        local growth = (s:last("used_bytes") or 0) - (s:first("used_bytes") or 0)
        rows[#rows + 1] = { m, last.fstype, last.source, fmt.bytes(last.size_bytes), fmt.bytes(last.used_bytes),
                            fmt.bytes(last.avail_bytes), fmt.bytes(last.reserved_bytes or 0), pct and fmt.pct(pct) or "-", ipct and fmt.pct(ipct) or "-",
                            (growth >= 0 and "+" or "-") .. fmt.bytes(math.abs(growth)), last.readonly and "ro" or "rw" }
      end
    end
    if #rows == 0 then
      ctx:unknown("used_pct", #failed > 0 and table.concat(failed, "; ")
        or "no mounted file system with a capacity (only pseudo or network file systems are mounted)")
    else
      table.sort(rows, function(a, b) return a[1] < b[1] end)
      ctx:table { title = "File systems (statvfs; Use% as df: used of used + available to non-root)",
                  columns = { "mount", "type", "source", "size", "used", "avail", "reserved", "use%", "inodes%", "growth in window", "mode" },
                  rows = rows }
    end
    for _, r in ipairs(failed) do ctx:note(r) end
    if #also > 0 then
      ctx:note("mounted again (bind mounts of a device already listed): " .. table.concat(also, ", "))
    end
    if #remote > 0 then
      -- not a known unknown of the whole cell: local file systems are measured
      ctx:note("not measured (network or FUSE file systems: statfs asks a server or a daemon and can hang): "
        .. table.concat(remote, ", "))
    end
    if worst then
      local s = fs[worst]
      ctx:summary(string.format("fullest file system: %s at %s (space %s, inodes %s)", worst, fmt.pct(worst_pct),
        fmt.pct(s:max("used_pct") or 0), s:max("inodes_pct") and fmt.pct(s:max("inodes_pct")) or "n/a"))
      if full then
        ctx:next("what fills " .. worst .. ": du -xsh " .. worst .. "/* | sort -h; deleted but open files: lsof +L1")
      end
    end
  end,
}
