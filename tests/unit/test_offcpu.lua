-- Cases for checks/lib/offcpu.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local offcpu = require("offcpu")

local is = tap.is

-- a folded offcputime stack: the comm, then root to leaf
local f = "postgres;__libc_start_main;PostgresMain;pg_fsync;fdatasync;do_fsync_[k];"
  .. "jbd2_log_wait_commit_[k];schedule_[k];__schedule_[k];__switch_to_[k]"
is(offcpu.tail(f, 3), "... schedule_[k] < __schedule_[k] < __switch_to_[k]", "tail: the leaf end, elided")
is(offcpu.tail("sleep;main;nanosleep", 5), "main < nanosleep", "tail: a short stack whole, the comm left out")
is(offcpu.tail("idle", 3), "", "tail: only the comm")
is(offcpu.where(f, 2), "do_fsync_[k] < jbd2_log_wait_commit_[k]", "where: the scheduler's frames left out")
is(offcpu.where("x;schedule_[k]", 2), "", "where: nothing but the scheduler")

-- report: the metrics and tables of a document; an empty one stops after the metrics
local m, tables, unknowns = {}, {}, {}
local ctx = {
  metric = function(_, name, v) m[name] = v end,
  unknown = function(_, name, why) unknowns[name] = why end,
  table = function(_, t) tables[#tables + 1] = t end,
  flamegraph = function(_, g) tables[#tables + 1] = g end,
  heatmap = function() end,
  note = function() end,
}
is(offcpu.report(ctx, { total = 0, counted = 0, kernel_symbols = "no kallsyms" }, 5, ""), 0, "nothing blocked: 0")
is(m.offcpu_s, 0.0, "offcpu_s still said")
is(unknowns.kernel_frames, "no kallsyms", "unsymbolized kernel frames: an unknown")
is(#tables, 0, "no tables for nothing")
local d = { total = 3e6, counted = 12, kernel_symbols = "ok", unknown_frames = 0, frames = 10,
  processes = { { tgid = 7, comm = "postgres", us = 2e6 }, { tgid = 8, comm = "cron", us = 1e6 } },
  stacks = { { tgid = 7, comm = "postgres", us = 2e6, folded = f } } }
is(offcpu.report(ctx, d, 1, " (drill-down)"), 3e6, "the total blocked time")
is(#tables[1].rows, 1, "processes cut at top")
is(tables[1].rows[1][4], "66.7%", "a process's share of all")
is(tables[2].title, "Stacks where threads blocked longest (leaf last) (drill-down)", "where names the window")
is(tables[3].folded[1], f .. " 2000000", "the flame graph gets folded lines with their us")
