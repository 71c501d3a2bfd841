-- Cases for checks/lib/controllers.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local controllers = require("controllers")

local is = tap.is

-- PCIe: 8b/10b to gen 2, 128b/130b gen 3 to 5, FLIT from gen 6
is(controllers.pcie_bytes_per_s({ speed_gts = 2.5, width = 1 }), 2.5 * 1e9 * (8 / 10) / 8, "gen 1 x1: 250 MB/s")
is(controllers.pcie_bytes_per_s({ speed_gts = 8, width = 4 }), 8 * 1e9 * (128 / 130) / 8 * 4, "gen 3 x4: 128b/130b")
is(controllers.pcie_bytes_per_s({ speed_gts = 64, width = 16 }), 64 * 1e9 * (242 / 256) / 8 * 16, "gen 6 x16: FLIT")

is(controllers.link_text({}), "unknown", "no link: unknown")
is(controllers.link_text({ link = { speed_gts = 8, width = 4 } }), "8 GT/s x4", "a link at its best")
is(controllers.link_text({ link = { speed_gts = 2.5, width = 4, max_speed_gts = 8, max_width = 4 } }),
  "2.5 GT/s x4 (can do 8 GT/s x4)", "a link trained below what it can do")
is(controllers.link_text({ link = { speed_gts = 8, width = 1, max_width = 4 } }),
  "8 GT/s x1 (can do 8 GT/s x4)", "a narrower link")

local total, fatal = controllers.aer_errors({ aer = {
  correctable = { first = 5, last = 9 }, nonfatal = { first = 0, last = 0 }, fatal = { first = 1, last = 2 } } })
is(total, 5, "AER errors over the window, every kind")
is(fatal, 1, "the fatal ones")
local n, why = controllers.aer_errors({ aer_reason = "no AER capability" })
is(n == nil and why, "no AER capability", "no AER counters: nil and why")
is(controllers.aer_errors({ aer = { correctable = { first = 9, last = 3 } } }), 0, "a counter reset: no negative count")
is(controllers.aer_errors({}), 0, "no aer table: 0")
