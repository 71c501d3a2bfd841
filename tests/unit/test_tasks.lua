-- Cases for checks/lib/tasks.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local tasks = require("tasks")

local is = tap.is
local ok = tap.ok

local function desc(a, b) return a > b end

-- tasks.best: the first n in order, one pass
local b = tasks.best({ 5, 1, 9, 3, 7, 9 }, 3, desc)
is(table.concat(b, ","), "9,9,7", "best 3 of six, a tie kept")
is(#tasks.best({}, 5, desc), 0, "an empty list: nothing")
is(#tasks.best({ 1, 2 }, 0, desc), 0, "n = 0: nothing")
is(table.concat(tasks.best({ 2, 1 }, 5, desc), ","), "2,1", "n past the list: all of it, in order")
-- stable for equal keys: the earlier stays first (what a strict order promises)
local firsts = tasks.best({ { k = 1, id = "a" }, { k = 1, id = "b" }, { k = 2, id = "c" } }, 3,
  function(x, y) return x.k > y.k end)
is(firsts[1].id .. firsts[2].id .. firsts[3].id, "cab", "equal keys keep their input order")

-- tasks.top: largest key > 0, ties by lower pid, sonde itself never ranked
local list = {
  { pid = 300, comm = "java", utime = 500, stime = 100, rss_bytes = 2e9 },
  { pid = 20, comm = "kworker/0:1", utime = 0, stime = 0, rss_bytes = 0, kernel_thread = true },
  { pid = 120, comm = "postgres", utime = 200, stime = 400, rss_bytes = 1e9 },
  { pid = 99, comm = "sonde", utime = 900, stime = 900, rss_bytes = 5e7, self = true },
  { pid = 7, comm = "nginx", utime = 50, stime = 10, rss_bytes = nil },
}
local cpu = tasks.top(list, function(t) return tasks.cpu_seconds(t, 100) end, 5)
is(#cpu, 3, "top by CPU: zero and sonde left out")
is(cpu[1].task.pid, 120, "a tie at 6 s: the lower pid first")
is(cpu[2].task.pid, 300, "then the higher pid")
is(cpu[3].value, 0.6, "values are the key's: 60 ticks at 100 Hz")
local rss = tasks.top(list, function(t) return t.rss_bytes end, 1)
is(#rss == 1 and rss[1].task.comm, "java", "top 1 by RSS; a nil key is skipped")
is(#tasks.top({}, function() return 1 end, 3), 0, "no tasks: nothing")

-- tasks.ranker / tasks.rank: the same order as tasks.best over every entry, in one pass
-- that makes entries only for the tasks that enter the ranking
local many = {}
for i = 1, 200 do many[i] = { pid = 1000 - i, v = (i * 37) % 11 } end -- ties everywhere
local want = {}
for _, t in ipairs(many) do want[#want + 1] = { task = t, value = t.v } end
want = tasks.best(want, 6, function(a, c)
  if a.value ~= c.value then return a.value > c.value end
  return a.task.pid < c.task.pid
end)
local got_rank = tasks.rank(many, 6, function(t) return t.v end)
local same = #got_rank == #want
for i = 1, #want do same = same and got_rank[i].task == want[i].task and got_rank[i].value == want[i].value end
ok(same, "rank: the first 6 of 200 with ties, as sorting all of them would give")
is(got_rank[1].value .. "/" .. got_rank[1].task.pid, "10/805", "the largest value, the lowest pid among its ties (i = 195)")
is(#tasks.rank(many, 3, function() return nil end), 0, "rank: nil values are not ranked")
is(#tasks.rank(many, 0, function(t) return t.v end), 0, "rank: n = 0, nothing")
local offer, out = tasks.ranker(2)
offer({ pid = 5 }, 1)
offer({ pid = 4 }, 1)
offer({ pid = 9 }, 3)
offer({ pid = 3 }, 1)
is(#out, 2, "ranker: at most n")
is(out[1].task.pid .. "," .. out[2].task.pid, "9,3", "ranker: 3 first, then the lowest pid of the ties at 1")
offer({ pid = 1 }, 0 / 0)
is(out[2].task.pid, 3, "ranker: a NaN never enters (it is not larger)")

-- tasks.blame: culprits with their share of the total
local got = {}
local ctx = { culprit = function(_, c) got[#got + 1] = c end }
tasks.blame(ctx, cpu, 12, 2)
is(#got, 2, "blame names at most max")
is(got[1].pid, 120, "the first culprit is the top one")
is(got[1].share, 0.5, "its share of the total: 6 s of 12")
got = {}
tasks.blame(ctx, cpu, 0)
is(#got, 3, "max defaults to 3")
is(got[1].share, 0, "a zero total: share 0, not a division by zero")
