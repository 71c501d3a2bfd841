-- Cases for checks/lib/cpu.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local cpu = require("cpu")

local function list(n, busy)
  local t = {}
  for i = 1, n do t[i] = { cpu = i - 1, busy = busy(i - 1) } end
  return t
end
local function row(e) return { "cpu" .. e.cpu, e.busy } end
local function rest(others) return { "the other " .. #others } end
local function score(e) return e.busy end

-- 1. a small host: every CPU in CPU order, no rule
do
  local l = list(4, function(c) return 10 * (4 - c) end)
  local rows, rule = cpu.top_rows("Per CPU", { l[3], l[1], l[4], l[2] }, 16, score, row, rest, "busiest")
  tap.ok(#rows == 4 and rows[1][1] == "cpu0" and rows[4][1] == "cpu3", "4 CPUs: all of them, in CPU order")
  tap.ok(rule == "Per CPU", "4 CPUs: no rule in the title")
end

-- 2. top + 1 CPUs: a summary row would save nothing, so every CPU has its own
do
  local rows, rule = cpu.top_rows("Per CPU", list(17, function(c) return c end), 16, score, row, rest, "busiest")
  tap.ok(#rows == 17 and rows[17][1] == "cpu16" and rule == "Per CPU",
    "17 CPUs under a top of 16: every CPU, in order")
end

-- 3. 192 CPUs, hot ones past the first hundred: the top by score, then one row for the rest
do
  local hot = { [150] = 99, [37] = 95, [191] = 95 }
  local busy = function(c) return hot[c] or 3 end
  local rows, rule = cpu.top_rows("Per CPU", list(192, busy), 16, score, row, rest, "busiest")
  tap.ok(#rows == 17, "192 CPUs: 16 rows and the rest's")
  tap.ok(rows[1][1] == "cpu150" and rows[2][1] == "cpu37" and rows[3][1] == "cpu191",
    "the hottest first, ties by CPU number")
  tap.ok(rows[4][1] == "cpu0" and rows[16][1] == "cpu12", "then the others of equal score by CPU number")
  tap.ok(rows[17][1] == "the other 176", "the last row is made of the 176 others")
  tap.ok(rule == "Per CPU (the 16 busiest of 192 CPUs; the other 176 in the last row)",
    "the title says the rule: " .. rule)
end

-- 4. 1,024 CPUs and a top of 0: still one row kept, and a score of nil sorts last
do
  local busy = function(c) if c == 5 then return nil end return c % 7 end
  local rows, rule = cpu.top_rows("IRQ time per CPU (share)", list(1024, busy), 0, score, row, rest, "busiest")
  tap.ok(#rows == 2 and rows[1][1] == "cpu6" and rows[2][1] == "the other 1023", "a top below 1 keeps one row")
  tap.ok(rule == "IRQ time per CPU (share; the 1 busiest of 1024 CPUs; the other 1023 in the last row)",
    "the rule goes inside a title's final parenthesis: " .. rule)
end

-- 5. sum: the ticks of several CPUs, busy of it their mean
do
  local a = { user = 90, nice = 0, system = 5, idle = 5, iowait = 0, irq = 0, softirq = 0, steal = 0, total = 100 }
  local b = { user = 0, nice = 0, system = 0, idle = 100, iowait = 0, irq = 0, softirq = 0, steal = 0, total = 100 }
  local s = cpu.sum({ a, b })
  tap.ok(s.total == 200 and s.user == 90 and s.idle == 105, "sum adds every field and the total")
  tap.ok(math.abs(cpu.busy(s) - 0.475) < 1e-12, "busy of a sum is the mean of the CPUs")
  tap.ok(cpu.busy(cpu.sum({})) == nil, "an empty sum has no busy share")
end
