--- File system errors: writes refused for want of space or quota (ENOSPC, EDQUOT per process,
-- BPF syscount), errors ext4 recorded in its superblock (errors_count), and file systems that
-- turned read-only during the window (the kernel remounts on a metadata error).
local fmt = require("fmt")
local sc = require("syscount")

local FS_ERRNO = { ENOSPC = true, EDQUOT = true }

return {
  id = "use.filesystem-errors",
  title = "File system errors",
  methodology = "use", resource = "filesystem", metric = "errors",
  tags = { "default", "proc", "tracing" },
  collect = { "proc.mounts", "bpf.syscount" },
  args = {
    warn_failures = { type = "number", default = 1, help = "ENOSPC/EDQUOT failures in the window that warn" },
    top = { type = "number", default = 10, help = "rows per table" },
  },

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
            ctx:metric("fs_errors", n, { instance = m, warn = 1, crit = 10 })
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
      ctx:metric("turned_readonly", #ro, { warn = 1, crit = 1 })
      if #ro > 0 then
        ctx:note("turned read-only during the window (an error remount, or an operator's mount -o remount,ro): " .. table.concat(ro, ", "))
        ctx:next("why the file system went read-only: dmesg | grep -iE 'remount|fs error|corrupt'")
      end
      parts[#parts + 1] = string.format("%d new file system errors counted (%d with a counter), %d turned read-only", errs, counted, #ro)
    end

    local d, info = ctx.bpf.syscount()
    if not d then
      ctx:unknown("enospc_edquot_errors", info)
    else
      local function is_fs_error(e)
        if e.errno_name then return FS_ERRNO[e.errno_name] == true end
        return e.errno == 28 -- ENOSPC: errno-base, the same on every architecture
      end
      local total = sc.total(d, is_fs_error)
      -- by comm: a writer retried from a shell loop is a new pid each time, one culprit
      local order, rows = sc.by_process(d, is_fs_error, args.top, true)
      ctx:metric("enospc_edquot_errors", total, { unit = "failures", warn = args.warn_failures })
      sc.drops_note(ctx, info)
      if #rows > 0 then
        ctx:table { title = "ENOSPC/EDQUOT failures by process and syscall (syscount)",
                    columns = sc.columns, rows = rows }
        for i = 1, math.min(3, #order) do
          ctx:culprit { pid = order[i].pid, comm = order[i].comm, share = total > 0 and order[i].count / total or nil }
        end
      end
      if total > 0 then
        ctx:next("which file system is full: df -h; df -i (inodes); quotas: repquota -a")
      end
      parts[#parts + 1] = string.format("%d syscalls failed with ENOSPC or EDQUOT", total)
    end
    if #parts > 0 then ctx:summary(table.concat(parts, "; ")) end
  end,
}
