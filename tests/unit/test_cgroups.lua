-- Cases for checks/lib/cgroups.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local cgroups = require("cgroups")

local is = tap.is

-- a v2 cgroup as ctx.proc.cgroups() gives it: counters read at both ends of the window
local cg = {
  path = "/system.slice/db.service", version = 2, controllers = { "cpu", "memory", "io", "pids" },
  procs = { 100, 101, 999 },
  cpu = { first = { t = 10, usage_usec = 5000000 }, last = { t = 20, usage_usec = 9000000 } },
  memory = { first = { t = 10, events_max = 7 }, last = { t = 20, events_max = 2 } },
  pids = { first = { t = 10 }, last = { t = 10 } },
  io = {
    limits = { ["8:0"] = { rbps = 1048576, wiops = 100 } },
    first = { ["8:0"] = { t = 10, rbytes = 0, wbytes = 0, rios = 0, wios = 0 } },
    last = { ["8:0"] = { t = 20, rbytes = 5242880, wbytes = 1024, rios = 50, wios = 900 } },
  },
}

is(cgroups.delta(cg, "cpu", "usage_usec"), 4000000, "a counter's increase over the window")
is(cgroups.delta(cg, "memory", "events_max"), 2, "a counter that went down (recreated): from zero")
is(cgroups.delta(cg, "cpu", "nr_throttled"), nil, "a counter not read: nil")
is(cgroups.span(cg, "cpu"), 10, "seconds between the reads")
is(cgroups.span(cg, "pids"), nil, "read once: nil")
is(cgroups.has(cg, "io"), true, "has io")
is(cgroups.has(cg, "cpuset"), false, "has no cpuset")
is(cgroups.name(cg, { v2 = true }), "/system.slice/db.service", "the path on a v2-only host")
is(cgroups.name(cg, { v1 = true, v2 = true }), "/system.slice/db.service (v2)", "(v2) on a hybrid host")

local lim = cgroups.io_limit(cg)
is(lim.what, "write IOPS", "the direction nearest its limit: 90 IOPS of 100")
is(lim.pct, 90.0, "at 90%")
is(lim.dev, "8:0", "on 8:0")
is(cgroups.io_limit({ io = { limits = {}, first = {}, last = {} } }), nil, "no limit: nil")
is(cgroups.io_limit({}), nil, "no io at all: nil")
is(cgroups.io_rate(cg), (5242880 + 1024) / 10, "read + write bytes per second")
is(cgroups.io_rate({ io = { first = {}, last = { ["8:0"] = { t = 1 } } } }), nil, "one read only: nil")

local all = {
  { pid = 100, comm = "postgres", utime = 300, stime = 100, rss_bytes = 1e9, threads = 4 },
  { pid = 101, comm = "postgres", utime = 100, stime = 100, rss_bytes = 5e8, threads = 1 },
  { pid = 102, comm = "bash", utime = 900, stime = 0, rss_bytes = 1e6, threads = 1 },
}
local members = cgroups.tasks(cg, all)
is(#members, 2, "the tasks in cgroup.procs that are still there (999 exited)")
is(#cgroups.tasks(cg, nil), 0, "no task list: none")
local got = {}
local ctx = { culprit = function(_, c) got[#got + 1] = c end }
local top = cgroups.blame(ctx, cg, all, cgroups.cpu_key)
is(#top, 2, "both members ranked")
is(got[1].pid, 100, "the busiest member first")
is(got[1].share, 400 / 600, "its share of the cgroup's, not the host's")
is(cgroups.io_key({ read_bytes = 5 }), 5, "io_key: a missing write counts 0")
