--- One hot CPU: a single CPU saturated while the others idle (a single-threaded bottleneck).
local cpu = require("cpu")
local fmt = require("fmt")
local tasks = require("tasks")

return {
  id = "use.cpu-utilization-percpu",
  title = "One CPU hot while others idle",
  methodology = "use", resource = "cpu", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.stat", "proc.pids" },
  args = {
    hot_pct = { type = "number", default = 90, help = "busy % that makes a CPU hot" },
    others_max_pct = { type = "number", default = 50, help = "the other CPUs' mean busy % must be below this" },
  },

  run = function(ctx, args)
    local stat, why = ctx.proc.stat()
    if not stat then
      ctx:unknown("hottest_cpu_pct", why)
      return
    end
    if #stat.cpus < 2 then
      ctx:note("a single CPU: no imbalance to look for")
      return
    end
    local hottest, hot_busy, sum, n = nil, -1, 0, 0
    for _, s in ipairs(stat.cpus) do
      local u = cpu.busy(cpu.breakdown(s))
      if u then
        u = 100 * u
        sum, n = sum + u, n + 1
        if u > hot_busy then hottest, hot_busy = s, u end
      end
    end
    if not hottest or n < 2 then
      ctx:unknown("hottest_cpu_pct", "the window holds fewer than two /proc/stat samples")
      return
    end
    local others = (sum - hot_busy) / (n - 1)
    local imbalanced = others < args.others_max_pct
    ctx:metric("hottest_cpu_pct", hot_busy, { unit = "%", instance = "cpu" .. hottest.id,
      warn = imbalanced and args.hot_pct or nil, agg = "mean", node_exporter = "node_cpu_seconds_total" })
    ctx:metric("other_cpus_mean_pct", others, { unit = "%", agg = "mean", node_exporter = "node_cpu_seconds_total" })
    ctx:series("cpu" .. hottest.id .. " busy %", cpu.busy_per_interval(hottest), { unit = "%" })
    if imbalanced and hot_busy >= args.hot_pct then
      local list = ctx.proc.tasks()
      local hz = ctx.host.clk_tck
      local top = list and tasks.top(list, function(t) return tasks.cpu_seconds(t, hz) end, 3) or {}
      local window_s = ctx.window.seconds
      local others_avg = n - 1 == 1 and "the other CPU averages" or
        string.format("the other %d CPUs average", n - 1)
      if top[1] then
        -- share: of the hot CPU's capacity over the window
        tasks.blame(ctx, top, window_s, 1)
        ctx:summary(string.format("cpu%d is %s busy while %s %s: %s uses %s of a CPU (a single-threaded bottleneck)",
          hottest.id, fmt.pct(hot_busy), others_avg, fmt.pct(others), fmt.task(top[1].task),
          fmt.pct(100 * top[1].value / window_s)))
      else
        ctx:summary(string.format("cpu%d is %s busy while %s %s",
          hottest.id, fmt.pct(hot_busy), others_avg, fmt.pct(others)))
      end
      ctx:next("profile the culprit's threads: which code keeps one CPU busy (sonde's drill-down, or perf top -p PID)")
    else
      ctx:summary(string.format("hottest CPU cpu%d %s busy, others %s on average",
        hottest.id, fmt.pct(hot_busy), fmt.pct(others)))
    end
  end,
}
