--- CPU saturated, deeper: which threads wait for a CPU (run-queue latency per thread) and what code the busy ones run (profile).
local fmt = require("fmt")
local hist = require("hist")
local bpf = require("bpf")

return {
  id = "drilldown.cpu-why",
  title = "Drill-down: who waits for a CPU, and on what code the CPUs are spent",
  methodology = "drilldown", resource = "cpu", metric = "why",
  tags = { "drilldown", "tracing" },
  collect = { "bpf.runqlat", "bpf.profile", "proc.stat" },
  args = {
    top = { type = "number", default = 10, help = "threads and stacks listed" },
  },

  run = function(ctx, args)
    local rq, rqwhy = ctx.bpf.runqlat()
    local waited = 0
    -- the tool attaches before the window and is read after it: shares are of the time it traced
    local traced = bpf.traced_s(ctx, rq and rqwhy)
    if rq and hist.count(rq.hist) > 0 then
      ctx:metric("runq_p99_ms", hist.percentile(rq.hist, 99) / 1000, { unit = "ms", agg = "p99" })
      local rows = {}
      for i, t in ipairs(rq.tasks or {}) do
        if i > args.top then break end
        waited = waited + t.total_us / 1e6
        rows[#rows + 1] = { t.pid, t.tgid ~= 0 and t.tgid or "?", t.comm, t.count,
                            string.format("%.3f", t.total_us / 1e6),
                            fmt.pct(100 * t.total_us / 1e6 / traced),
                            fmt.ms(t.max_us) }
      end
      ctx:table { traced = rqwhy, title = "Threads that waited longest for a CPU (runqlat, drill-down window)",
        columns = { "tid", "pid", "thread", "waits", "waited (s)", "of the time traced", "longest (ms)" }, rows = rows }
      hist.heatmap(ctx, "Run-queue latency over the window (runqlat)", rq.intervals, rqwhy)
      local top = rq.tasks and rq.tasks[1]
      if top then
        ctx:culprit { pid = top.tgid ~= 0 and top.tgid or top.pid, comm = top.comm,
                      share = rq.total_us > 0 and top.total_us / rq.total_us or nil }
      end
    else
      ctx:unknown("runq_p99_ms", rqwhy or "runqlat saw no thread wait for a CPU in the drill-down window")
    end

    local p, pwhy = ctx.bpf.profile()
    if p and (p.total or 0) > 0 then
      -- the hottest stacks: folded "comm;frame;...;leaf" with their sample counts
      local rows = {}
      for i, st in ipairs(p.stacks or {}) do
        if i > args.top then break end
        local frames = {}
        for f in string.gmatch(st.folded or "", "[^;]+") do frames[#frames + 1] = f end
        local comm = table.remove(frames, 1) or "?"
        local leaf = {}
        for k = math.max(#frames - 3, 1), #frames do leaf[#leaf + 1] = frames[k] end
        rows[#rows + 1] = { comm, st.count, fmt.pct(100 * st.count / p.total), table.concat(leaf, " < ") }
      end
      ctx:table { traced = pwhy, title = "Hottest on-CPU stacks (profile, drill-down window)",
        columns = { "process", "samples", "share", "stack (last frames, leaf last)" },
        code = { "stack (last frames, leaf last)" }, rows = rows }
    else
      ctx:unknown("hot_stacks", pwhy or "the profile saw no thread on a CPU in the drill-down window")
    end
    ctx:summary(string.format("Over %.1f s traced, the ten threads that waited longest waited %.2f s for a CPU%s",
      traced, waited, p and p.total and p.total > 0 and string.format("; %d on-CPU samples profiled", p.total) or ""))
  end,
}
