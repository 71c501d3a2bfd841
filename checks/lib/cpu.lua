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

--- The sum of breakdowns: the ticks of several CPUs together (cpu.busy of it is their mean).
function cpu.sum(list)
  local b = { total = 0 }
  for _, f in ipairs(FIELDS) do b[f] = 0 end
  for _, x in ipairs(list) do
    for _, f in ipairs(FIELDS) do b[f] = b[f] + x[f] end
    b.total = b.total + x.total
  end
  return b
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

--- A per-CPU table bounded for a host with many CPUs: every CPU in CPU order
-- when there are at most top + 1 of them (a summary row would save nothing);
-- else the top ones by score (highest first, then by CPU number) and one last
-- row for all the others, rest(others) its cells. list: items with .cpu;
-- row(item) -> cells. Returns the rows and the table's title, which says the
-- rule when it cut: "Per CPU (the 16 busiest of 192 CPUs; the other 176 in the
-- last row)", inside the title's own final parenthesis when it has one.
function cpu.top_rows(title, list, top, score, row, rest, what)
  local rows = {}
  top = math.max(math.floor(top), 1)
  local sorted = {}
  for i, e in ipairs(list) do sorted[i] = e end
  if #sorted <= top + 1 then
    table.sort(sorted, function(a, b) return a.cpu < b.cpu end)
    for i, e in ipairs(sorted) do rows[i] = row(e) end
    return rows, title
  end
  local key = {}
  for _, e in ipairs(sorted) do key[e] = score(e) or -math.huge end
  table.sort(sorted, function(a, b)
    if key[a] ~= key[b] then return key[a] > key[b] end
    return a.cpu < b.cpu
  end)
  local others = {}
  for i, e in ipairs(sorted) do
    if i <= top then rows[#rows + 1] = row(e) else others[#others + 1] = e end
  end
  rows[#rows + 1] = rest(others)
  local rule = string.format("the %d %s of %d CPUs; the other %d in the last row", top, what, #sorted, #others)
  if title:sub(-1) == ")" then return rows, title:sub(1, -2) .. "; " .. rule .. ")" end
  return rows, title .. " (" .. rule .. ")"
end

return cpu
