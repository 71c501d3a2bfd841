--- CPU time arithmetic over /proc/stat series (counters in clock ticks).
local cpu = {}

local FIELDS = { "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal" }

--- Ticks spent in each state over the window, and the total.
function cpu.breakdown(series)
  local b, total = {}, 0
  for _, f in ipairs(FIELDS) do
    local d = series:delta(f) or 0
    b[f] = d
    total = total + d
  end
  b.total = total
  -- guest time is already counted in user/nice: not added again
  return b
end

--- Busy share (0..1) of a breakdown: everything but idle and iowait.
function cpu.busy(b)
  if b.total <= 0 then return nil end
  return (b.total - b.idle - b.iowait) / b.total
end

--- Per-interval busy percent of one series, for charts.
function cpu.busy_per_interval(series)
  local per = {}
  for _, f in ipairs(FIELDS) do per[f] = series:deltas(f) end
  local out = {}
  for i = 1, #per.idle do
    local total = 0
    for _, f in ipairs(FIELDS) do total = total + (per[f][i] or 0) end
    if total > 0 then
      out[i] = 100 * (total - per.idle[i] - (per.iowait[i] or 0)) / total
    else
      out[i] = 0
    end
  end
  return out
end

return cpu
