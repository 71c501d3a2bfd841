--- Swap running out: swap in use against the swap configured, by its trend over the window; the
-- time until it is full, and the processes that push memory out (their resident memory grows)
-- or hold the most of it.
--
-- Across runs: swap in use (metric used_bytes, instance "swap") continues over the earlier audits
-- of this host in --out (ctx.history) of this boot only: a reboot empties swap, so an audit of
-- another boot is left out, named. A process's swapped-out memory is not carried across runs: a pid
-- does not survive its process.
local runout = require("runout")
local trend = require("trend")
local fmt = require("fmt")

return {
  id = "use.swap-runout",
  title = "Swap running out",
  methodology = "use", resource = "swap", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.meminfo", "proc.pids", "history" },
  args = runout.args(),

  run = function(ctx, args)
    local mem, why = ctx.proc.meminfo()
    if not mem then
      ctx:unknown("time_left_s", why)
      return
    end
    local total = mem:last("SwapTotal") or 0
    if total <= 0 then
      ctx:summary("no swap is configured: nothing to run out (memory itself is use.memory-runout's)")
      return
    end
    local ts, ys = {}, {}
    for _, s in ipairs(mem) do
      if s.SwapTotal and s.SwapFree then ts[#ts + 1], ys[#ys + 1] = s.t, s.SwapTotal - s.SwapFree end
    end
    local c = runout.assess(ctx, { name = "swap", instance = "swap", ts = ts, ys = ys, capacity = total,
      unit = "bytes", verb = "full" }, args)
    if #ys > 0 then ctx:metric("used_bytes", ys[#ys], { unit = "bytes", instance = "swap", over = ys, agg = "last", node_exporter = "node_memory_SwapFree_bytes" }) end
    local hist = ctx.history("used_bytes")
    local long = runout.across(c, hist and hist.swap, { reset_at_boot = true })
    local cands = { c }
    if long then cands[2] = runout.assess(ctx, long, args) end
    local out = runout.report(ctx, cands, args, "Swap: level, trend and time until full")
    runout.audits(ctx, { c })
    runout.across_notes(ctx, { c, long })
    -- who: the processes whose resident memory grows push others out; then those swapped out most
    local growers = {}
    for _, e in ipairs(runout.task_series(ctx, "rss_bytes")) do
      local f = trend.fit(e.ts, e.ys, { level = args.confidence })
      if f and f.real then growers[#growers + 1] = { task = e.task, rate = f.slope } end
    end
    local swapped, rows = {}, {}
    for _, t in ipairs(ctx.proc.tasks() or {}) do
      if not t.self and (t.swap_bytes or 0) > 0 then swapped[#swapped + 1] = t end
    end
    table.sort(swapped, function(a, b) return a.swap_bytes > b.swap_bytes end)
    for i = 1, math.min(5, #swapped) do
      rows[i] = { swapped[i].pid, swapped[i].comm, fmt.bytes(swapped[i].swap_bytes) }
    end
    if #rows > 0 then
      ctx:table { title = "Processes with the most memory swapped out (VmSwap at the end)",
                  columns = { "pid", "process", "swapped out" }, rows = rows }
    end
    if #out == 0 then
      ctx:summary(string.format("swap is not filling: %s of %s in use, no steady growth", fmt.bytes(ys[#ys] or 0),
        fmt.bytes(total)))
      return
    end
    local sentence, named
    if out[1].long then
      named = runout.blame(ctx, growers, 0, 3)
      sentence = runout.grew_sentence(out[1])
      local who = runout.who(named)
      if who then sentence = sentence .. "; growing now: " .. who end
    else
      sentence, named = runout.say(ctx, c, growers, "full", "growing")
    end
    -- the one holding the most swap is named too: a process swapping inside a memory cgroup at
    -- its limit has a flat RSS, so it is no grower, and another process may grow faster
    local holder = swapped[1]
    if holder and not (named[1] and named[1].task.pid == holder.pid) then
      local listed = false
      for _, e in ipairs(named) do listed = listed or e.task.pid == holder.pid end
      if not listed then
        ctx:culprit { pid = holder.pid, comm = holder.comm, cmdline = holder.cmdline,
                      share = holder.swap_bytes / math.max(1, ys[#ys]) }
      end
      sentence = sentence .. "; most swapped out: " .. fmt.task(holder)
    end
    ctx:summary(sentence)
  end,
}
