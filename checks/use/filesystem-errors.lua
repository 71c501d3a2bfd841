--- File system errors: errors ext4 recorded in its superblock (errors_count), and file
-- systems that turned read-only during the window (the kernel remounts on a metadata error).
-- Writes refused for want of space or quota (ENOSPC, EDQUOT) are counted by tracing every
-- syscall: the drill-down does it when a file system fills up (drilldown.filesystem-who).
local fmt = require("fmt")

return {
  id = "use.filesystem-errors",
  title = "File system errors",
  methodology = "use", resource = "filesystem", metric = "errors",
  tags = { "default", "proc" },
  collect = { "proc.mounts" },

  run = function(ctx, args)
    local parts = {}
    local fs, why = ctx.proc.filesystems()
    if not fs then
      ctx:unknown("fs_errors", why)
      ctx:unknown("turned_readonly", why)
    else
      local mounts = {}
      for m in pairs(fs) do mounts[#mounts + 1] = m end
      table.sort(mounts)
      local ro, counted, no_counter, errs = {}, 0, {}, 0
      local rows = {}
      for _, m in ipairs(mounts) do
        local s = fs[m]
        local first, last = s[1], s[#s]
        if last.status == "ok" and (last.size_bytes or 0) > 0 then
          if first.readonly == false and last.readonly == true then ro[#ro + 1] = m end
          if s.errors_first and s.errors_last then
            local n = s.errors_last - s.errors_first
            ctx:metric("fs_errors", n, { instance = m, warn = 1, crit = 10, agg = "total" })
            counted = counted + 1
            errs = errs + n
            rows[#rows + 1] = { m, last.fstype, last.device or "-", fmt.num(s.errors_last), fmt.num(n) }
          elseif s.errors_reason then
            -- ext4 whose counter was not readable at both ends: the host's reason
            ctx:unknown("fs_errors", s.errors_reason)
          elseif last.fstype ~= "tmpfs" and last.fstype ~= "devtmpfs" then
            -- (memory-backed file systems have no media or metadata errors to count)
            no_counter[#no_counter + 1] = m .. " (" .. last.fstype .. ")"
          end
        end
      end
      if #rows > 0 then
        ctx:table { title = "Errors the file system recorded (ext4 errors_count: since mkfs or the last fsck)",
                    columns = { "mount", "type", "device", "errors in all", "new in window" }, rows = rows }
      end
      if #no_counter > 0 then
        ctx:unknown("fs_errors", "no error counter for " .. table.concat(no_counter, ", ")
          .. ": only ext4 keeps one in sysfs (/sys/fs/ext4/DEV/errors_count); others report errors in the kernel log only")
      end
      ctx:metric("turned_readonly", #ro, { warn = 1, crit = 1, agg = "total", help = "file systems the kernel remounted read-only" })
      if #ro > 0 then
        ctx:note("turned read-only during the window (an error remount, or an operator's mount -o remount,ro): " .. table.concat(ro, ", "))
        ctx:next("why the file system went read-only: dmesg | grep -iE 'remount|fs error|corrupt'")
      end
      parts[#parts + 1] = string.format("%d new file system errors counted (%d with a counter), %d turned read-only", errs, counted, #ro)
    end

    -- ENOSPC/EDQUOT failures: no kernel counter; tracing every syscall is the drill-down's
    ctx:unknown("enospc_edquot_errors", "the kernel counts no failed writes: they are traced (syscount, every syscall) "
      .. "in the drill-down window when a file system fills up (drilldown.filesystem-who)")
    if #parts > 0 then ctx:summary(table.concat(parts, "; ")) end
  end,
}
