--- A file system filling up, deeper: who gets writes refused for want of
-- space or quota (ENOSPC, EDQUOT), per process and syscall (BPF syscount in
-- the drill-down window: the kernel counts no such failure, and tracing every
-- syscall is not for the first window).
local sc = require("syscount")

local FS_ERRNO = { ENOSPC = true, EDQUOT = true }

return {
  id = "drilldown.filesystem-who",
  title = "Drill-down: who gets writes refused (ENOSPC, EDQUOT)",
  methodology = "drilldown", resource = "filesystem", metric = "who",
  tags = { "drilldown", "tracing" },
  collect = { "bpf.syscount" },
  args = {
    warn_failures = { type = "number", default = 1, help = "ENOSPC/EDQUOT failures in the window that warn" },
    top = { type = "number", default = 10, help = "rows per table" },
  },

  run = function(ctx, args)
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
      ctx:metric("enospc_edquot_errors", total, { unit = "failures", warn = args.warn_failures, agg = "total" })
      sc.drops_note(ctx, info)
      if #rows > 0 then
        ctx:table { traced = info, title = "ENOSPC/EDQUOT failures by process and syscall (syscount)",
                    columns = sc.columns, rows = rows }
        for i = 1, math.min(3, #order) do
          ctx:culprit { pid = order[i].pid, comm = order[i].comm, share = total > 0 and order[i].count / total or nil }
        end
      end
      if total > 0 then
        ctx:next("which file system is full: df -h; df -i (inodes); quotas: repquota -a")
      end
      ctx:summary(string.format("%d syscalls failed with ENOSPC or EDQUOT", total))
    end
  end,
}
