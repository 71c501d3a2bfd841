--- Why processes wait: time blocked off CPU (BPF offcputime), by stack.
local fmt = require("fmt")
local hist = require("hist")

local function tail(folded, n)
  local frames = {}
  for f in string.gmatch(folded, "[^;]+") do frames[#frames + 1] = f end
  table.remove(frames, 1) -- the comm
  local from = math.max(#frames - n + 1, 1)
  local out = {}
  for i = from, #frames do out[#out + 1] = frames[i] end
  return (from > 1 and "... " or "") .. table.concat(out, " < ")
end

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
    local total = d.total or 0
    ctx:metric("offcpu_s", total / 1e6, { unit = "s", agg = "total" })
    ctx:metric("blocks", d.counted or 0, { agg = "total" })
    if d.kernel_symbols ~= "ok" then ctx:unknown("kernel_frames", d.kernel_symbols) end
    if total == 0 then
      ctx:summary("no thread blocked during the window")
      return
    end
    local rows = {}
    for i, p in ipairs(d.processes or {}) do
      if i > args.top then break end
      rows[#rows + 1] = { p.tgid, p.comm, string.format("%.3f", p.us / 1e6), fmt.pct(100 * p.us / total) }
    end
    ctx:table { title = "Processes by time blocked (all their threads)", columns = { "pid", "process", "blocked (s)", "of all" }, rows = rows }
    rows = {}
    for i, s in ipairs(d.stacks or {}) do
      if i > args.top then break end
      rows[#rows + 1] = { s.tgid, s.comm, string.format("%.3f", s.us / 1e6), tail(s.folded, 6) }
    end
    ctx:table { title = "Stacks where threads blocked longest (leaf last)", columns = { "pid", "thread", "blocked (s)", "stack" }, rows = rows }
    local folded = {}
    for _, s in ipairs(d.stacks or {}) do
      local us = math.floor(s.us + 0.5)
      if us > 0 then folded[#folded + 1] = s.folded .. " " .. us end
    end
    if #folded > 0 then
      ctx:flamegraph { title = "Off-CPU flame graph (offcputime: time blocked)", unit = "us", folded = folded }
    end
    hist.heatmap(ctx, "How long threads blocked, over the window (offcputime; each block in the interval it ended)", d.intervals)
    if d.unknown_frames > 0 then
      ctx:note(string.format("%d of %d frames are [unknown]", d.unknown_frames, d.frames))
    end
    local top = d.processes[1]
    ctx:summary(string.format("threads blocked %.2f s in total (blocks of %d us or more); most: %s (pid %d), %.2f s",
      total / 1e6, d.min_block_us, top.comm, top.tgid, top.us / 1e6))
  end,
}
