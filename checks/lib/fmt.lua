--- Formatting helpers for summaries and evidence tables.
local fmt = {}

--- "1 CPU", "2 CPUs": a count and its noun, singular for one.
function fmt.count(n, noun, plural)
  if n == 1 then return "1 " .. noun end
  return string.format("%d %s", n, plural or (noun .. "s"))
end

function fmt.pct(x)
  if x == nil then return "?" end
  return string.format("%.1f%%", x)
end

function fmt.bytes(n)
  if n == nil then return "?" end
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local i = 1
  while math.abs(n) >= 1024 and i < #units do
    n = n / 1024
    i = i + 1
  end
  if i == 1 then return string.format("%d B", math.floor(n)) end
  return string.format("%.1f %s", n, units[i])
end

function fmt.rate(n, unit)
  if n == nil then return "?" end
  return string.format("%.1f %s/s", n, unit or "")
end

function fmt.num(n)
  if n == nil then return "?" end
  if math.type(n) == "integer" or n == math.floor(n) and math.abs(n) < 1e15 then
    return string.format("%d", math.floor(n))
  end
  -- a rate of 93,820/s reads "93820", not "9.38e+04"
  if math.abs(n) >= 1000 and math.abs(n) < 1e15 then return string.format("%.0f", n) end
  return string.format("%.3g", n)
end

--- Microseconds as milliseconds in a table cell, "1.25"; "-" for nil.
function fmt.ms(us)
  return us and string.format("%.2f", us / 1000) or "-"
end

--- "comm (pid N)"
function fmt.task(t)
  return string.format("%s (pid %d)", t.comm, t.pid)
end

return fmt
