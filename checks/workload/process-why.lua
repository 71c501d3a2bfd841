--- Why: where processes block (off-CPU time), by stack (BPF offcputime).
local offcpu = require("offcpu")

return {
  id = "workload.process-why",
  title = "Why: where processes block (off-CPU time)",
  methodology = "workload", resource = "process", metric = "why",
  -- not default: a stack walk at every blocking context switch costs more than sampling
  tags = { "tracing" },
  collect = { "bpf.offcputime" },
  args = { top = { type = "number", default = 10, help = "stacks listed" } },

  run = function(ctx, args)
    local d, why = ctx.bpf.offcputime()
    if not d then
      ctx:unknown("offcpu_time", why)
      return
    end
    local total = offcpu.report(ctx, d, args.top, "", why)
    if total == 0 then
      ctx:summary("no thread blocked during the window")
      return
    end
    local top = d.processes[1]
    ctx:summary(string.format("threads blocked %.2f s in total (blocks of %d us or more); most: %s (pid %d), %.2f s",
      total / 1e6, d.min_block_us, top.comm, top.tgid, top.us / 1e6))
  end,
}
