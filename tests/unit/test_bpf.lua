-- Cases for checks/lib/bpf.lua, run in the checks' sandbox by test_checks_lib.c.
local tap = ...
local bpf = require("bpf")

local is = tap.is

local ctx = { window = { seconds = 10 } }

-- a tool that attached 0.25 s before the window and was read 0.5 s after it
is(bpf.traced_s(ctx, { traced_from_s = -0.25, traced_to_s = 10.5 }), 10.75, "the span the tool saw")
-- the tool did not run: its info is the reason, a string
is(bpf.traced_s(ctx, "bpf: not permitted"), 10, "no info table: the window's seconds")
is(bpf.traced_s(ctx, nil), 10, "nil info: the window's seconds")
is(bpf.traced_s(ctx, false), 10, "`tool and info` false: the window's seconds")
is(bpf.traced_s(ctx, { traced_from_s = 1 }), 10, "half a span: the window's seconds")
is(bpf.traced_s(ctx, { traced_from_s = 3, traced_to_s = 3 }), 10, "an empty span: the window's seconds")
is(bpf.traced_s(ctx, { traced_from_s = 4, traced_to_s = 3 }), 10, "a negative span: the window's seconds")
is(bpf.traced_s({ window = { seconds = 0 } }, nil), 1e-9, "no span and an empty window: 1e-9, a rate stays defined")
is(bpf.traced_s({ window = {} }, nil), 1e-9, "no window seconds at all: 1e-9")
