--- Off-CPU time by stack (BPF offcputime): the tables, the flame graph and
-- the heat map that workload.process-why and drilldown.task-why both draw.
local fmt = require("fmt")
local hist = require("hist")

local offcpu = {}

--- The leaf end of a folded stack, "... a < b < c" (leaf last), n frames at most.
function offcpu.tail(folded, n)
  local frames = {}
  for f in string.gmatch(folded, "[^;]+") do frames[#frames + 1] = f end
  table.remove(frames, 1) -- the comm
  local from = math.max(#frames - n + 1, 1)
  local out = {}
  for i = from, #frames do out[#out + 1] = frames[i] end
  return (from > 1 and "... " or "") .. table.concat(out, " < ")
end

--- The code a folded stack waited from: its frames nearest the wait that are not the
-- scheduler's ("a < b < c", leaf last, n frames at most), so a summary names the lock or
-- the call, not __schedule.
function offcpu.where(folded, n)
  local frames = {}
  for f in string.gmatch(folded, "[^;]+") do frames[#frames + 1] = f end
  table.remove(frames, 1) -- the comm
  local last = #frames
  while last > 0 and (frames[last]:find("schedule", 1, true) or frames[last]:find("__switch_to", 1, true)) do
    last = last - 1
  end
  local out = {}
  for i = math.max(last - n + 1, 1), last do out[#out + 1] = frames[i] end
  return table.concat(out, " < ")
end

--- Metrics, tables, flame graph and heat map of an offcputime document d; where says which
-- window ("" or " in the drill-down window"); traced: the tool's info (ctx.bpf), so the report
-- says when it traced part of the window. Returns the total blocked time (us).
function offcpu.report(ctx, d, top, where, traced)
  local total = d.total or 0
  ctx:metric("offcpu_s", total / 1e6, { unit = "s", agg = "total" })
  ctx:metric("blocks", d.counted or 0, { agg = "total" })
  if d.kernel_symbols ~= "ok" then ctx:unknown("kernel_frames", d.kernel_symbols) end
  if total == 0 then return 0 end
  local rows = {}
  for i, p in ipairs(d.processes or {}) do
    if i > top then break end
    rows[#rows + 1] = { p.tgid, p.comm, string.format("%.3f", p.us / 1e6), fmt.pct(100 * p.us / total) }
  end
  ctx:table { traced = traced, title = "Processes by time blocked (all their threads)" .. where, columns = { "pid", "process", "blocked (s)", "of all" }, rows = rows }
  rows = {}
  for i, s in ipairs(d.stacks or {}) do
    if i > top then break end
    rows[#rows + 1] = { s.tgid, s.comm, string.format("%.3f", s.us / 1e6), offcpu.tail(s.folded, 6) }
  end
  ctx:table { traced = traced, title = "Stacks where threads blocked longest (leaf last)" .. where, columns = { "pid", "thread", "blocked (s)", "stack" }, code = { "stack" }, rows = rows }
  local folded = {}
  for _, s in ipairs(d.stacks or {}) do
    local us = math.floor(s.us + 0.5)
    if us > 0 then folded[#folded + 1] = s.folded .. " " .. us end
  end
  if #folded > 0 then
    ctx:flamegraph { title = "Off-CPU flame graph (offcputime: time blocked)" .. where, unit = "us", folded = folded,
                     traced = traced }
  end
  hist.heatmap(ctx, "How long threads blocked, over the window (offcputime; each block in the interval it ended)", d.intervals,
    traced)
  if d.unknown_frames > 0 then
    ctx:note(string.format("%d of %d frames are [unknown]", d.unknown_frames, d.frames))
  end
  return total
end

return offcpu
