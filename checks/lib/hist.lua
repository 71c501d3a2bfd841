--- log2 histograms from the BPF tools: slots[i] (1-based) counts values in
-- [2^(i-1), 2^i), the first slot also 0 (bcc's layout, shifted for Lua).
local fmt = require("fmt")

local hist = {}

function hist.count(slots)
  local n = 0
  for _, c in ipairs(slots or {}) do n = n + c end
  return n
end

local function bounds(i)
  if i == 1 then return 0, 2 end
  return 2 ^ (i - 1), 2 ^ i
end

--- The p-th percentile (0-100), interpolated linearly inside its slot: a
-- log2 histogram knows a value only to within a factor of two.
function hist.percentile(slots, p)
  local total = hist.count(slots)
  if total == 0 then return nil end
  local want = total * p / 100
  local seen = 0
  for i, c in ipairs(slots) do
    if c > 0 and seen + c >= want then
      local lo, hi = bounds(i)
      return lo + (hi - lo) * (want - seen) / c
    end
    seen = seen + c
  end
  local _, hi = bounds(#slots)
  return hi
end

--- Share (0-1) of the values at or above v (counted by whole slots from the one holding v).
function hist.share_above(slots, v)
  local total, above = hist.count(slots), 0
  if total == 0 then return nil end
  for i, c in ipairs(slots) do
    local _, hi = bounds(i)
    if hi > v then above = above + c end
  end
  return above / total
end

-- A bound in its unit, shown in the largest unit it reaches, so every row
-- says its own unit ("512 us - 1.02 ms"): the report's formatter.
local function label(x, unit)
  return units.value(x, unit)
end

--- The histogram as an evidence table with text bars (what runqlat prints):
-- each row's range with its unit, empty rows before the first and after the
-- last count left out, and the bar column saying what its longest bar is.
-- traced: the BPF tool's info (ctx.bpf), so the report says when it traced part of the window.
function hist.table(ctx, title, slots, unit, traced)
  local total, top, first, last = hist.count(slots), 0, nil, nil
  for i, c in ipairs(slots) do
    if c > top then top = c end
    if c > 0 then
      first = first or i
      last = i
    end
  end
  local rows = {}
  for i = first or 1, last or 0 do
    local c = slots[i]
    local lo, hi = bounds(i)
    local bar = top > 0 and string.rep("#", math.floor(40 * c / top + 0.5)) or ""
    rows[#rows + 1] = { label(lo, unit) .. " - " .. label(hi, unit), c,
                        fmt.pct(total > 0 and 100 * c / total or 0), bar }
  end
  local what = unit .. " (range)"
  if unit == "ns" or unit == "us" or unit == "ms" or unit == "s" then what = "time (range)" end
  ctx:table { title = title, rows = rows, traced = traced,
              columns = { what, "count", "share",
                          string.format("distribution (40 # = %d)", top) } }
end

--- Per-interval histograms of a BPF tool (its "intervals": { interval_ms,
-- unit, counts = { slots of interval 1, ... } }, docs/bpf-tools.md), or nil
-- when the capture has none (a bundle from before they were kept) or they
-- counted nothing.
function hist.intervals(iv)
  if type(iv) ~= "table" or type(iv.counts) ~= "table" then return nil end
  for _, slots in ipairs(iv.counts) do
    if hist.count(slots) > 0 then return iv end
  end
  return nil
end

--- The intervals as a latency heat map (time by log2 bucket) in the report,
-- when there are any; true when it was drawn. traced: the tool's info (ctx.bpf), as for
-- hist.table.
function hist.heatmap(ctx, title, iv, traced)
  iv = hist.intervals(iv)
  if not iv then return false end
  ctx:heatmap(title, iv, { traced = traced })
  return true
end

--- Each interval's p-th percentile (nil for an interval without a count).
function hist.interval_percentiles(iv, p)
  local out = {}
  for i, slots in ipairs((iv or {}).counts or {}) do
    out[i] = hist.percentile(slots, p) or false
  end
  return out
end

return hist
