--- Where the culprits' threads block, deeper: their off-CPU time by stack
-- (BPF offcputime, filtered in the kernel to the processes a thread-state
-- finding named: a lock, the disk, the file system, a network peer or
-- memory), drawn as an off-CPU flame graph. The first window said what they
-- wait in; this says from which code path, with every block timed.
local offcpu = require("offcpu")

return {
  id = "drilldown.task-why",
  title = "Drill-down: where the culprits' threads block (off-CPU stacks)",
  methodology = "drilldown", resource = "task", metric = "why",
  tags = { "drilldown", "tracing" },
  collect = { "bpf.offcputime" },
  args = { top = { type = "number", default = 10, help = "stacks listed" } },

  run = function(ctx, args)
    local d, why = ctx.bpf.offcputime()
    if not d then
      ctx:unknown("offcpu_s", why)
      return
    end
    local total = offcpu.report(ctx, d, args.top, " (drill-down window)", why)
    if total == 0 then
      ctx:summary("no thread of the culprits blocked during the drill-down window")
      return
    end
    for i, p in ipairs(d.processes or {}) do
      if i > 3 then break end
      ctx:culprit { pid = p.tgid, comm = p.comm, share = p.us / total }
    end
    local top = d.processes[1]
    local s = d.stacks and d.stacks[1]
    ctx:summary(string.format("the culprits' threads blocked %.2f s in the drill-down window; most: %s (pid %d), %.2f s%s",
      total / 1e6, top.comm, top.tgid, top.us / 1e6,
      s and (", longest in " .. offcpu.where(s.folded, 4)) or ""))
  end,
}
